from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.middleware import LoginRequiredMiddleware
from django.http import HttpRequest, HttpResponseBase

# The API answers 401 JSON itself (session or bearer token) and runtimes use their own tokens, so the
# browser sign-in redirect must not apply to them.
UNREDIRECTED_PREFIXES = ("/api/", "/ws/")


class SignInRequiredMiddleware(LoginRequiredMiddleware):
    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., HttpResponseBase],
        view_args: tuple[Any, ...],
        view_kwargs: dict[str, Any],
    ) -> HttpResponseBase | None:
        if request.path.startswith(UNREDIRECTED_PREFIXES):
            return None
        return super().process_view(request, view_func, view_args, view_kwargs)
