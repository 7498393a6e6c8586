"""Refuse NUL characters at the HTTP edge: 400 naming the field, before any view or query sees them.

PostgreSQL cannot hold U+0000 in text (nor in ``jsonb``), and psycopg refuses to send it even as a query
parameter, so a NUL in a session id, a name or a filter turned into a 500 on PostgreSQL while SQLite took
it. No field of this application has a use for one, so every request is checked once: the path, query
parameters, cookies (the session cookie is looked up in the database), form fields and uploaded file
names, and JSON bodies. ``POST /api/events`` is left to its
per-event schema (dashboard/fleet_schemas.py), which rejects such an event alone instead of the batch.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse

NUL = "\x00"
PER_EVENT_PATHS = ("/api/events",)


def _json_field_with_nul(value: object) -> str | None:
    """The path of the first key or string holding a NUL (iterative: the body may be deeply nested)."""
    stack: list[tuple[object, str]] = [(value, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, str):
            if NUL in node:
                return path or "body"
        elif isinstance(node, dict):
            for key, item in node.items():
                here = f"{path}.{key}" if path else str(key)
                if NUL in str(key):
                    return here
                stack.append((item, here))
        elif isinstance(node, list):
            stack.extend((item, f"{path}[{i}]") for i, item in enumerate(node))
    return None


def nul_field(request: HttpRequest) -> str | None:
    """The name of the first request field holding a NUL character, or ``None``."""
    if NUL in request.path:
        return "path"
    for key, values in request.GET.lists():
        if NUL in key or any(NUL in v for v in values):
            return key
    for key, value in request.COOKIES.items():
        if NUL in key or NUL in value:
            return f"cookie {key.replace(NUL, '')}"
    if request.method not in ("POST", "PUT", "PATCH", "DELETE") or request.path.startswith(PER_EVENT_PATHS):
        return None
    content_type = request.content_type or ""
    if content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        for key, values in request.POST.lists():
            if NUL in key or any(NUL in v for v in values):
                return key
        for key, uploads in request.FILES.lists():
            if any(NUL in (upload.name or "") for upload in uploads):
                return f"{key} (file name)"
        return None
    body = request.body
    # JSON can only carry a NUL as the escape \u0000 (a raw one is invalid JSON): decode only then.
    if b"\\u0000" in body or b"\x00" in body:
        try:
            return _json_field_with_nul(json.loads(body))
        except (ValueError, RecursionError):
            return None  # not JSON: the view reports that
    return None


class RefuseNulMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        field = nul_field(request)
        if field is None:
            return self.get_response(request)
        message = f"{field}: contains a NUL character (U+0000), which is not accepted anywhere"
        if request.path.startswith("/api/"):
            return JsonResponse({"message": message, "extra": {"field": field}}, status=400)
        return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
