"""Request guards: sign-in for pages, loopback-only debug mode, debug pages without credentials, CSP."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.middleware import LoginRequiredMiddleware
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.http.request import split_domain_port
from django.views.debug import SafeExceptionReporterFilter

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


def host_is_loopback(raw_host: str) -> bool:
    """Whether a Host header names this machine's loopback (``localhost``, ``127.x.x.x``, ``[::1]``)."""
    domain, _port = split_domain_port(raw_host.lower())
    return domain in {"localhost", "[::1]", "::1"} or (
        domain.startswith("127.") and all(part.isdigit() for part in domain.split("."))
    )


class LoopbackOnlyWhileDebugMiddleware:
    """In debug mode, answer a plain 400 to any Host that is not loopback, before anything else runs.

    Debug mode is only on for a loopback bind (settings.DEBUG), but a page on another site can still
    reach it through DNS rebinding (its own name resolving to 127.0.0.1): such a request carries that
    name as Host and would otherwise get Django's debug page, settings included, readable by that site.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if settings.DEBUG and not host_is_loopback(request.META.get("HTTP_HOST", "")):
            return HttpResponse(
                "Bad Request: in debug mode this server answers only loopback host names "
                "(localhost, 127.0.0.1, [::1]).\n",
                status=400,
                content_type="text/plain; charset=utf-8",
            )
        return self.get_response(request)


# The part of a Content-Security-Policy the pages already meet: no framing, no plugins, no <base> or form
# target elsewhere. Scripts are not restricted yet: several templates still use inline event handlers.
CONTENT_SECURITY_POLICY = "frame-ancestors 'none'; object-src 'none'; base-uri 'self'; form-action 'self'"


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return response


_URL_CREDENTIALS = re.compile(r"(?<=://)[^/@\s]+@")


class CredentialsHiddenReporterFilter(SafeExceptionReporterFilter):
    """Django's filter, plus connection URLs and addresses, and any ``user:password@`` in a URL."""

    hidden_settings = re.compile("API|AUTH|TOKEN|KEY|SECRET|PASS|SIGNATURE|HTTP_COOKIE|URL|ADDRESS", re.I)

    def cleanse_setting(self, key: Any, value: Any) -> Any:
        cleansed = super().cleanse_setting(key, value)
        if isinstance(cleansed, str):
            return _URL_CREDENTIALS.sub(self.cleansed_substitute + "@", cleansed)
        return cleansed
