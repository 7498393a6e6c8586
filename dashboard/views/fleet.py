"""The fleet screens: runtimes, a live feed of trim events, alerts, and one session's trims.

Filters live in the URL. New events arrive over ``/ws/fleet/`` (``dashboard.consumers.fleet``) and are
swapped into the feed by the htmx ws extension; the status (alerts, runtimes, top sessions) is polled.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from dashboard import selectors
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
