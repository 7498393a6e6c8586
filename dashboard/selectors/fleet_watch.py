"""Reads for watching the fleet: runtime rows, the event feed, top sessions, alerts, one session's events.

Every time window is measured against ``now`` (an argument, so tests pin the clock). Counts over a time
range (sparklines, top sessions, busy sessions) come from the per-minute rollups
(``dashboard.services.fleet_rollups``), so they cost the same at ten million events as at ten; the
feed and one session's page read the newest events through the ``received_at`` indexes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

from django.db.models import ExpressionWrapper, F, IntegerField, Max, QuerySet, Sum
from django.utils import timezone

from dashboard.models import (
    Profile,
    Runtime,
    RuntimeHour,
    RuntimeMinute,
    SessionHour,
    SessionMinute,
    Transcript,
    TrimEvent,
)
from dashboard.presenters.fleet import (
    FeedRow,
    RuntimeRow,
    SessionCount,
    SessionScreen,
    feed_row,
    session_event_rows,
    spark_bars,
)
from dashboard.selectors.fleet_alerts import AlertStrip, fleet_alert_strip
from dashboard.selectors.fleet_filters import (
    DEFAULT_RANGE,
    RANGES,
    FleetFilters,
    TimeRange,
    epoch_minute,
)
from dashboard.selectors.profiles import profile_domain
from dashboard.selectors.simulations import simulation_result
from simulator import SimulatorError

ONLINE_SECONDS = 60
"""A runtime is online when seen this recently: an open socket refreshes ``last_seen_at`` every
``HEARTBEAT_SECONDS`` (dashboard/consumers/runtime.py), so a server killed with the socket open stops
refreshing it and the runtime goes offline on its own; a connection counter cannot (nothing decrements it)."""
FEED_LIMIT = 50
TOP_SESSIONS = 10
SESSION_EVENTS_LIMIT = 1000


def _filtered(rows: QuerySet[TrimEvent], filters: FleetFilters) -> QuerySet[TrimEvent]:
    rows = filters.narrow(rows)
    return rows


# The event feed


def feed_row_matches(row: FeedRow, filters: FleetFilters) -> bool:
    return (
        (not filters.runtime or row.runtime == filters.runtime)
        and (not filters.session or row.session_id == filters.session)
        and (not filters.reason or row.reason == filters.reason)
    )


def trim_event_list(*, filters: FleetFilters, limit: int = FEED_LIMIT) -> QuerySet[TrimEvent]:
    """The newest events first (by arrival), filtered."""
    rows = TrimEvent.objects.select_related("runtime").order_by("-received_at", "-id")
    return _filtered(rows, filters)[:limit]


# Runtimes


def runtime_online(runtime: Runtime, *, now: datetime) -> bool:
    return runtime.last_seen_at is not None and now - runtime.last_seen_at <= timedelta(
        seconds=ONLINE_SECONDS
    )


def fleet_runtime_rows(*, now: datetime, time_range: TimeRange | None = None) -> list[RuntimeRow]:
    """Every runtime with its trims in the range, bucketed for the sparkline, from ``RuntimeMinute``.

    One grouped query over at most (runtimes × minutes, or hours for 24 h and 7 d) rollup rows; the bucket
    is integer arithmetic on the epoch minute, so it is the same on PostgreSQL and SQLite.
    """
    time_range = time_range or RANGES[DEFAULT_RANGE]
    first, last = time_range.first_minute(now), epoch_minute(now)
    bucket = ExpressionWrapper((F("minute") - first) / time_range.bar_minutes, output_field=IntegerField())
    rollups = RuntimeHour if time_range.hourly else RuntimeMinute
    counted = (
        rollups.objects.filter(minute__gte=first, minute__lte=last)
        .order_by()
        .annotate(bucket=bucket)
        .values("runtime_id", "bucket")
        .annotate(n=Sum("trims"))
        .values_list("runtime_id", "bucket", "n")
    )
    buckets: dict[int, list[int]] = {}
    for runtime_id, index, n in counted:
        buckets.setdefault(runtime_id, [0] * time_range.bars)[index] = n
    rows = []
    for runtime in Runtime.objects.order_by("name"):
        counts = tuple(buckets.get(runtime.pk, [0] * time_range.bars))
        rows.append(
            RuntimeRow(
                runtime=runtime,
                online=runtime_online(runtime, now=now),
                trims=sum(counts),
                per_bar=counts,
                bars=spark_bars(counts, time_range.bar_minutes),
                bar_minutes=time_range.bar_minutes,
            )
        )
    return rows


# Top sessions


def fleet_top_sessions(
    *, filters: FleetFilters, now: datetime, limit: int = TOP_SESSIONS
) -> list[SessionCount]:
    """Sessions with the most trims in the range (no session id: left out), from the session rollups:
    per minute for the short ranges, per hour (from the start of the range's first hour) for the long
    ones."""
    time_range = filters.time_range
    first = time_range.first_minute(now)
    rows: QuerySet[SessionMinute] | QuerySet[SessionHour]
    if time_range.hourly:
        rows = SessionHour.objects.filter(minute__gte=first, minute__lte=epoch_minute(now))
    else:
        rows = SessionMinute.objects.filter(minute__gte=first, minute__lte=epoch_minute(now))
    rows = filters.narrow(rows)
    counted = (
        rows.exclude(session_id="")
        .order_by()
        .values("session_id")
        .annotate(n=Sum("trims"), last=Max("last_at"))
        .order_by("-n", "-last", "session_id")[:limit]
    )
    return [SessionCount(r["session_id"], r["n"], r["last"]) for r in counted]


# The fleet screen


@dataclass(frozen=True, slots=True)
class FleetScreen:
    filters: FleetFilters
    now: datetime
    runtimes: list[RuntimeRow]
    feed: list[FeedRow]
    top_sessions: list[SessionCount]
    alerts: AlertStrip
    reasons: list[str]
    ranges: Mapping[str, TimeRange] = field(default_factory=lambda: RANGES)


def fleet_screen(*, filters: FleetFilters, feed: bool = True, now: datetime | None = None) -> FleetScreen:
    """Everything the fleet page shows; ``feed=False`` for the status poll, which leaves the feed alone."""
    now = now or timezone.now()
    reasons = (
        SessionMinute.objects.filter(minute__gt=epoch_minute(now) - 60)
        .order_by("reason")
        .values_list("reason", flat=True)
        .distinct()[:50]
        if feed
        else []
    )
    return FleetScreen(
        filters=filters,
        now=now,
        runtimes=fleet_runtime_rows(now=now, time_range=filters.time_range),
        feed=[feed_row(e) for e in trim_event_list(filters=filters)] if feed else [],
        top_sessions=fleet_top_sessions(filters=filters, now=now),
        alerts=fleet_alert_strip(filters=filters, now=now),
        reasons=list(reasons),
    )


# One session


CallSource = Literal["reported", "nearest", ""]


def _trimmed_calls(transcript: Transcript, profile: Profile) -> tuple[list[int], int]:
    result = simulation_result(transcript=transcript, profile=profile_domain(profile=profile))
    return [c.number for c in result.calls if c.trimmed], len(result.calls)


def fleet_session(*, session_id: str, profile_id: int | None = None) -> SessionScreen:
    """A session's trim events in time order, linked to the simulation of its transcript when uploaded.

    The call is the one the runtime reported (``call_number``) when it did. Otherwise the k-th event is
    matched to the k-th call the replay under the chosen profile trimmed (the nearest call by count of
    events), and the row says so.
    """
    events_qs = TrimEvent.objects.filter(session_id=session_id).select_related("runtime")
    total = events_qs.count()
    events = list(events_qs.order_by("occurred_at", "received_at", "id")[:SESSION_EVENTS_LIMIT])
    runtimes = sorted({e.runtime.name for e in events})
    transcript = Transcript.objects.filter(session_id=session_id).order_by("-uploaded_at", "-id").first()
    profiles = list(Profile.objects.order_by("name"))
    profile = next((p for p in profiles if p.pk == profile_id), None) if profile_id is not None else None
    if profile is None:
        # Default: the first ZeroClaw profile (the runtime whose events these are), else the first one.
        zeroclaw = [p for p in profiles if p.runtime == Profile.RuntimeKind.ZEROCLAW]
        profile = next(iter(zeroclaw or profiles), None)

    trimmed: list[int] | None = None
    calls: int | None = None
    error = ""
    needs_replay = any(e.call_number is None for e in events)
    if transcript is not None and profile is not None and needs_replay:
        try:
            trimmed, calls = _trimmed_calls(transcript, profile)
        except SimulatorError as exc:
            error = f"the replay under {profile.name} failed: {exc.message}"

    return SessionScreen(
        session_id=session_id,
        rows=session_event_rows(events, trimmed=trimmed, calls=calls, transcript=transcript, profile=profile),
        total=total,
        runtimes=runtimes,
        transcript=transcript,
        profiles=profiles,
        profile=profile,
        replay_trims=len(trimmed) if trimmed is not None else None,
        replay_calls=calls,
        replay_error=error,
    )
