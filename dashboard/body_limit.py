"""An HTTP request body over the limit is answered 413 before it is read, never a 500.

Django's own checks (``DATA_UPLOAD_MAX_MEMORY_SIZE``) run only once the whole body has been received and
spooled, and inside django-ninja its ``RequestDataTooBig`` surfaced as a 500. Two layers:

- under daphne, ``dashboard.daphne_patches.refuse_oversized_bodies`` (applied at startup): Twisted
  receives the whole body before daphne
  calls the application, so the check has to be in Twisted's request: a declared ``Content-Length`` over
  the limit is answered as soon as the headers are in, and a chunked body is counted as it arrives and
  answered once it passes the limit; the connection is closed and the rest is never read;
- :class:`BodySizeLimit`, ASGI middleware for any server that streams bodies to the application: the same
  two checks on the ASGI messages (past the limit the application is told the client went away, Django
  then stops reading and answers nothing, and the 413 is sent instead).

The limit is the transcript upload limit plus 1 MiB for the form or JSON around it.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings

Scope = dict[str, Any]
Message = dict[str, Any]

ENVELOPE_BYTES = 1024 * 1024


def request_limit() -> int:
    limit: int = settings.TRIMSCOPE_MAX_UPLOAD_BYTES
    return limit + ENVELOPE_BYTES


def _declared_length(scope: Scope) -> int | None | str:
    """The ``Content-Length`` header as a number, ``None`` when absent, the raw text when unreadable."""
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            text = value.decode("latin-1").strip()
            return int(text) if text.isdigit() and len(text) < 20 else text
    return None


def _message(size: int | None, limit: int) -> str:
    upload: int = settings.TRIMSCOPE_MAX_UPLOAD_BYTES
    what = f"over {limit:,}" if size is None else f"{size:,}"
    return f"request body is {what} bytes; the limit is {limit:,} bytes (transcripts up to {upload:,} bytes)"


def _payload(path: str, message: str, extra: dict[str, object]) -> tuple[bytes, bytes]:
    if path.startswith("/api/"):
        return json.dumps({"message": message, "extra": extra}).encode(), b"application/json"
    return message.encode(), b"text/plain; charset=utf-8"


def refusal_payload(path: str, size: int | None) -> tuple[bytes, bytes]:
    """The 413's body and content type: the API's error shape under ``/api/``, plain text elsewhere."""
    limit = request_limit()
    return _payload(path, _message(size, limit), {"limit": limit, "size": size})


async def _answer(scope: Scope, send: Any, status: int, message: str, extra: dict[str, object]) -> None:
    body, content_type = _payload(scope.get("path", ""), message, extra)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", content_type),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodySizeLimit:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = request_limit()
        declared = _declared_length(scope)
        if isinstance(declared, str):
            await _answer(scope, send, 400, f"Content-Length {declared[:40]!r} is not a number", {})
            return
        if declared is not None and declared > limit:
            await _refuse(scope, send, declared, limit)
            return
        received = 0
        over = False
        started = False

        async def counted_receive() -> Message:
            nonlocal received, over
            if over:
                return {"type": "http.disconnect"}
            message: Message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    over = True
                    return {"type": "http.disconnect"}
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            if over and not started:
                return  # the application's answer to a body it never got whole is not sent
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        await self.app(scope, counted_receive, tracked_send)
        if over and not started:
            await _refuse(scope, send, None, limit)


async def _refuse(scope: Scope, send: Any, size: int | None, limit: int) -> None:
    await _answer(scope, send, 413, _message(size, limit), {"limit": limit, "size": size})
