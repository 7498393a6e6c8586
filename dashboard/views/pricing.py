"""The Pricing screen: the price table in effect for the signed-in user, with its sources; edit an entry
for yourself or (staff) for the dashboard; drop an edit to go back to the checked-in price."""

from __future__ import annotations

import math

from django.contrib import messages
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from dashboard import selectors, services
from dashboard.services.pricing import Scope
from dashboard.views.common import HtmxHttpRequest
from simulator import PriceTableError

FIELDS = ("input_per_mtok", "output_per_mtok", "cache_write_multiplier", "cache_read_multiplier")


def _user(request: HtmxHttpRequest) -> User:
    if not isinstance(request.user, User):
        raise PermissionDenied
    return request.user


def _context(user: User, **extra: object) -> dict[str, object]:
    table = selectors.price_table_for(user=user)
    return {
        "nav": "pricing",
        "rows": selectors.pricing_rows(user=user),
        "table": table,
        "staff": user.is_staff,
        **extra,
    }


@require_GET
def pricing(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "dashboard/pricing.html", _context(_user(request)))


def _number(raw: str, field: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise PriceTableError(field, f"{field} must be a number, not {raw!r}") from None
    if not math.isfinite(value):
        raise PriceTableError(field, f"{field} must be a finite number")
    return value


@require_POST
def pricing_edit(request: HtmxHttpRequest) -> HttpResponse:
    user = _user(request)
    key = request.POST.get("key", "")
    scope: Scope = "dashboard" if request.POST.get("scope") == "dashboard" else "user"
    try:
        if request.POST.get("action") == "reset":
            services.price_override_delete(user=user, key=key, scope=scope)
            messages.success(
                request, f"{key}: back to the {'table' if scope == 'dashboard' else 'dashboard'} price."
            )
        else:
            values = {f: _number(request.POST.get(f, ""), f) for f in FIELDS}
            ttl = _number(request.POST.get("cache_ttl_seconds", ""), "cache_ttl_seconds")
            services.price_override_set(user=user, key=key, scope=scope, cache_ttl_seconds=int(ttl), **values)
            messages.success(
                request, f"{key}: saved {'for the dashboard' if scope == 'dashboard' else 'for you'}."
            )
    except (PriceTableError, PermissionDenied) as exc:
        error = exc.message if isinstance(exc, PriceTableError) else str(exc)
        return render(
            request, "dashboard/pricing.html", _context(user, error=error, error_key=key), status=400
        )
    return HttpResponseRedirect(reverse("pricing"))
