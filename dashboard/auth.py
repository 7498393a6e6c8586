"""API authentication: a per-user bearer token for scripts, or the browser's session with CSRF.

Order matters: a request that carries ``Authorization: Bearer`` is decided by its token alone, so a
script's POST needs no cookie and no CSRF token (a browser cannot be tricked into sending that header
to another site). Only a request authenticated by its session cookie has its CSRF token checked; a
request with neither is a 401, not a CSRF error.

A token's user must be active; a token is throttled per token, and a client sending tokens that open
nothing is throttled per address (429 with ``Retry-After``).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils import timezone
from ninja.errors import Throttled
from ninja.security import HttpBearer, SessionAuth

from dashboard.models import ApiToken
from dashboard.throttle import API_BAD_TOKEN, API_TOKEN, throttle_hit, throttle_wait
from dashboard.tokens import token_hash


def client_address(request: HttpRequest) -> str:
    # daphne puts the peer (or, with --proxy-headers, the proxy's X-Forwarded-For client) here.
    return str(request.META.get("REMOTE_ADDR") or "unknown")


class ApiTokenAuth(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> ApiToken | None:
        address = client_address(request)
        wait = throttle_wait(API_BAD_TOKEN, address)
        if wait is not None:
            raise Throttled(wait)
        row = (
            ApiToken.objects.select_related("user")
            .filter(key_hash=token_hash(token), revoked_at__isnull=True, user__is_active=True)
            .first()
        )
        if row is None:
            throttle_hit(API_BAD_TOKEN, address)
            return None
        wait = throttle_hit(API_TOKEN, str(row.pk))
        if wait is not None:
            raise Throttled(wait)
        ApiToken.objects.filter(pk=row.pk).update(last_used_at=timezone.now())
        request.user = row.user
        return row


class SessionWithCsrfAuth(SessionAuth):
    """Django's session; the CSRF token is checked only when the session has signed someone in."""

    def __call__(self, request: HttpRequest) -> Any | None:
        if not request.user.is_authenticated:
            return None
        return super().__call__(request)


API_AUTH = [ApiTokenAuth(), SessionWithCsrfAuth()]


def request_api_token(request: HttpRequest) -> ApiToken | None:
    """The API token that authenticated this request, or ``None`` for the browser session."""
    auth = getattr(request, "auth", None)
    return auth if isinstance(auth, ApiToken) else None
