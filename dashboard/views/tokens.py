"""The API tokens screen: the signed-in user's own tokens, a create form that shows the secret once, revoke.

The secret exists only in the response to the create request (never stored, never cached); afterwards
only its prefix is shown. Another user's token is a 404, as if it did not exist.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from dashboard import selectors, services
from dashboard.errors import get_or_404
from dashboard.views.common import HtmxHttpRequest

TEMPLATE = "dashboard/token-list.html"


def _user(request: HtmxHttpRequest) -> User:
    # SignInRequiredMiddleware has sent anonymous visitors to the sign-in page before any view runs.
    if not isinstance(request.user, User):
        raise PermissionDenied
    return request.user


def _context(user: User, **extra: object) -> dict[str, object]:
    return {"nav": "tokens", "tokens": selectors.api_token_list(user=user), **extra}


@require_GET
def token_list(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, TEMPLATE, _context(_user(request)))


@never_cache
@require_POST
def token_create(request: HtmxHttpRequest) -> HttpResponse:
    user = _user(request)
    row, secret = services.api_token_create(user=user, name=request.POST.get("name", ""))
    # Rendered, not redirected: the secret must not be put anywhere it would outlive this response.
    return render(request, TEMPLATE, _context(user, created=row, secret=secret))


@require_POST
def token_revoke(request: HtmxHttpRequest, token_id: int) -> HttpResponse:
    token = get_or_404(selectors.api_token_get(user=_user(request), token_id=token_id), "token", token_id)
    runtimes = services.api_token_revoke(token=token)
    also = f" Also revoked {len(runtimes)} runtime(s) registered with it." if runtimes else ""
    messages.success(request, f"Revoked “{token.name}”: it no longer opens the API.{also}")
    return HttpResponseRedirect(reverse("token-list"))
