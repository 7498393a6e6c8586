"""The fleet API for scripts: the alerts that fire now and the latest trim events, filtered.

Session or user-token auth (the API default). Filters match exactly: ``runtime`` is the runtime's name.
"""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import HttpRequest
from ninja import Query, Router

from dashboard import presenters, selectors
from dashboard.models import TrimEvent
from dashboard.schemas import FleetAlertOut, FleetEventFilterIn, FleetEventOut

router = Router(tags=["fleet"])


@router.get("/alerts", response=list[FleetAlertOut], summary="List fleet alerts")
def list_alerts(request: HttpRequest) -> list[presenters.AlertRow]:
    """One row per rule and subject, most severe first (failed recoveries, silent runtimes, busy
    sessions), over ``overflow_failed_minutes``; acknowledged and muted alerts are left out."""
    return [presenters.alert_row(a) for a in selectors.fleet_alerts()]


@router.get("/events", response=list[FleetEventOut], summary="List trim events")
def list_events(request: HttpRequest, filters: Query[FleetEventFilterIn]) -> QuerySet[TrimEvent]:
    """The latest trim events, newest first, filtered exactly by runtime name, session id and reason."""
    return selectors.trim_event_list(
        filters=selectors.FleetFilters(
            runtime=filters.runtime, session=filters.session, reason=filters.reason
        ),
        limit=filters.limit,
    )
