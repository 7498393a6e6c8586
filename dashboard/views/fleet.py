"""The fleet screens: runtimes, a live feed of trim events, alerts, and one session's trims.

Filters live in the URL. New events arrive over ``/ws/fleet/`` (``dashboard.consumers.fleet``) and are
swapped into the feed by the htmx ws extension; the status (alerts, runtimes, top sessions) is polled.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from prometheus_client import CollectorRegistry
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

from dashboard import selectors, services
from dashboard.views.common import HtmxHttpRequest

# htmx targets that get a fragment instead of the page.
STATUS_TARGET = "fleet-alerts"
FEED_TARGET = "event-feed"


@require_GET
def fleet(request: HtmxHttpRequest) -> HttpResponse:
    target = request.htmx.target if request.htmx else None
    screen = selectors.fleet_screen(
        filters=selectors.fleet_filters(request.GET), feed=target != STATUS_TARGET
    )
    template = "dashboard/fleet.html"
    if target == STATUS_TARGET:
        template += "#fleet-status"
    elif target == FEED_TARGET:
        template += "#event-feed"
    return render(
        request, template, {"nav": "fleet", "screen": screen, "filters": screen.filters, "oob": bool(target)}
    )


def _int(raw: str | None) -> int | None:
    try:
        return int(raw) if raw else None
    except ValueError:
        return None


@require_GET
def fleet_session(request: HtmxHttpRequest, session_id: str) -> HttpResponse:
    screen = selectors.fleet_session(session_id=session_id, profile_id=_int(request.GET.get("profile")))
    breaks = selectors.fleet_session_break_costs(rows=screen.rows, user=request.user)
    return render(
        request,
        "dashboard/fleet-session.html",
        {
            "nav": "fleet",
            "screen": screen,
            "break_costs": breaks,
            "rows_with_costs": list(zip(screen.rows, breaks.per_row, strict=True)),
        },
    )


# Alert actions: plain forms that come back to the page with its filters and range.


def _back(request: HttpRequest) -> HttpResponseRedirect:
    filters = selectors.fleet_filters(request.POST)
    query = filters.query
    return HttpResponseRedirect(reverse("fleet") + (f"?{query}" if query else ""))


def _refused(exc: services.AlertInvalid) -> HttpResponse:
    return HttpResponseBadRequest(f"{exc.field}: {exc.message}", content_type="text/plain; charset=utf-8")


def _alert_action(request: HttpRequest, action: Callable[[], object]) -> HttpResponse:
    """Run one alert service: a refusal is a 400 naming the field, success goes back to the page."""
    try:
        action()
    except services.AlertInvalid as exc:
        return _refused(exc)
    return _back(request)


def _alert_subject(request: HttpRequest) -> dict[str, str]:
    """Which alert a form acts on: its rule and subject, as the alert row's hidden fields carry them."""
    return {
        "rule": request.POST.get("rule", ""),
        "runtime": request.POST.get("alert_runtime", ""),
        "session_id": request.POST.get("alert_session", ""),
    }


@require_POST
def alert_ack(request: HttpRequest) -> HttpResponse:
    subject = _alert_subject(request)
    return _alert_action(request, lambda: services.alert_acknowledge(**subject, user=request.user))


@require_POST
def alert_mute(request: HttpRequest) -> HttpResponse:
    subject, scope = _alert_subject(request), request.POST.get("scope", "")
    return _alert_action(request, lambda: services.alert_mute(**subject, scope=scope, user=request.user))


@require_POST
def alert_unmute(request: HttpRequest, silence_id: int) -> HttpResponse:
    if not services.alert_unmute(silence_id=silence_id):
        raise Http404("no such mute")
    return _back(request)


@require_POST
def alert_thresholds(request: HttpRequest) -> HttpResponse:
    values: dict[str, int] = {}
    for name in ("session_trims_count", "session_trims_minutes", "runtime_silent_minutes"):
        raw = request.POST.get(name, "").strip()
        try:
            values[name] = int(raw)
        except ValueError:
            return _refused(services.AlertInvalid(name, f"{name.replace('_', ' ')} must be a whole number"))
    return _alert_action(request, lambda: services.alert_thresholds_update(**values))


# Prometheus


@login_not_required
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    """``/metrics`` in the Prometheus text format, for ``Authorization: Bearer TRIMSCOPE_METRICS_TOKEN``."""
    expected: str = settings.TRIMSCOPE_METRICS_TOKEN
    if not expected:
        raise Http404("metrics are off: set TRIMSCOPE_METRICS_TOKEN")
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), expected.encode()):
        response = HttpResponse("a bearer token is needed\n", status=401, content_type="text/plain")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    registry = CollectorRegistry(auto_describe=False)
    registry.register(selectors.FleetCollector())
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
