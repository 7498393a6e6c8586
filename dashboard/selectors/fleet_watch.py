"""Reads for watching the fleet: runtime rows, the event feed, top sessions, alerts, one session's events.

Queries only: how rows are shown (sparkline geometry, alert wording, the session's links to the
simulation) is in ``dashboard.presenters.fleet``. "Runtime" here is a fleet runtime (the ``Runtime``
model: a registered process streaming trim events), not a reproduced runtime kind of the simulator.

Every time window is measured against ``now`` (an argument, so tests pin the clock) on
``TrimEvent.received_at``, which is indexed alone and with ``runtime`` and ``session_id``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.db.models import Count, Max, Q, QuerySet
from django.utils import timezone

from dashboard.models import Profile, Runtime, Transcript, TrimEvent
from dashboard.presenters.fleet import (
    Alert,
    FeedRow,
    RuntimeRow,
    SessionCount,
    SessionScreen,
    busy_session_alert,
    feed_row,
    overflow_failed_alert,
    runtime_row,
    session_event_rows,
    silent_runtime_alert,
)
from dashboard.selectors.profiles import profile_domain
from dashboard.selectors.simulations import simulation_result
from simulator import SimulatorError

ONLINE_SECONDS = 60
"""A runtime is online when seen this recently: an open socket refreshes ``last_seen_at`` every
``HEARTBEAT_SECONDS`` (dashboard/consumers/runtime.py), so a server killed with the socket open stops
refreshing it and the runtime goes offline on its own; a connection counter cannot (nothing decrements it)."""
SPARK_MINUTES = 30
FEED_LIMIT = 50
TOP_SESSIONS = 10
SESSION_EVENTS_LIMIT = 1000
FILTER_MAX = 200

DEFAULT_ALERTS: dict[str, object] = {
    "session_trims": {"count": 5, "minutes": 10},
    "overflow_failed_minutes": 60,
    "runtime_silent_minutes": 15,
}


# Filters


@dataclass(frozen=True, slots=True)
class FleetFilters:
    runtime: str = ""
    session: str = ""
    reason: str = ""

    @property
    def active(self) -> bool:
        return bool(self.runtime or self.session or self.reason)

    @property
    def query(self) -> str:
        """The filters as a query string (empty ones left out), for links and the socket URL."""
        pairs = [("runtime", self.runtime), ("session", self.session), ("reason", self.reason)]
        return urlencode([(k, v) for k, v in pairs if v])


def fleet_filters(params: Mapping[str, str]) -> FleetFilters:
    """Filters from GET parameters (or a socket's query string); blanks mean "any"."""

    def one(name: str) -> str:
        value = params.get(name) or ""
        return value.strip()[:FILTER_MAX]

    return FleetFilters(runtime=one("runtime"), session=one("session"), reason=one("reason"))


def _filtered(rows: QuerySet[TrimEvent], filters: FleetFilters) -> QuerySet[TrimEvent]:
    if filters.runtime:
        rows = rows.filter(runtime__name=filters.runtime)
    if filters.session:
        rows = rows.filter(session_id=filters.session)
    if filters.reason:
        rows = rows.filter(reason=filters.reason)
    return rows


# The event feed


def feed_row_matches(row: FeedRow, filters: FleetFilters) -> bool:
    """Whether a live row passes the filters (the same test ``_filtered`` makes in SQL)."""
    return (
        (not filters.runtime or row.runtime == filters.runtime)
        and (not filters.session or row.session_id == filters.session)
        and (not filters.reason or row.reason == filters.reason)
    )


def trim_event_list(*, filters: FleetFilters, limit: int = FEED_LIMIT) -> QuerySet[TrimEvent]:
    """The newest events first (by arrival), filtered."""
    rows = TrimEvent.objects.select_related("runtime").order_by("-received_at", "-id")
    return _filtered(rows, filters)[:limit]


# Fleet runtimes


def runtime_online(runtime: Runtime, *, now: datetime) -> bool:
    return runtime.last_seen_at is not None and now - runtime.last_seen_at <= timedelta(
        seconds=ONLINE_SECONDS
    )


def fleet_runtime_rows(*, now: datetime) -> list[RuntimeRow]:
    """Every runtime with its trims in the last hour and per minute over the last SPARK_MINUTES minutes."""
    this_minute = now.replace(second=0, microsecond=0)
    starts = [this_minute - timedelta(minutes=SPARK_MINUTES - 1 - i) for i in range(SPARK_MINUTES)]
    ends = [Q(received_at__lt=start) for start in starts[1:]] + [Q(received_at__lte=now)]
    # One pass over the hour, counted per runtime with one filtered COUNT per minute: plain range
    # comparisons (truncating every row's timestamp in SQL is several times slower on SQLite).
    minutes = {
        f"m{i}": Count("id", filter=Q(received_at__gte=starts[i]) & ends[i]) for i in range(SPARK_MINUTES)
    }
    counted = (
        TrimEvent.objects.filter(received_at__gt=now - timedelta(hours=1), received_at__lte=now)
        .order_by()
        .values("runtime_id")
        .annotate(hour=Count("id"), **minutes)
        .values_list("runtime_id", "hour", *minutes)
    )
    hour: dict[int, int] = {}
    buckets: dict[int, list[int]] = {}
    for runtime_id, in_hour, *per_minute in counted:
        hour[runtime_id] = in_hour
        buckets[runtime_id] = per_minute
    return [
        runtime_row(
            runtime,
            online=runtime_online(runtime, now=now),
            trims_hour=hour.get(runtime.pk, 0),
            per_minute=buckets.get(runtime.pk, [0] * SPARK_MINUTES),
        )
        for runtime in Runtime.objects.order_by("name")
    ]


# Top sessions


def fleet_top_sessions(
    *, filters: FleetFilters, now: datetime, limit: int = TOP_SESSIONS
) -> list[SessionCount]:
    """Sessions with the most trims in the last hour (events without a session id are left out)."""
    rows = _filtered(
        TrimEvent.objects.filter(received_at__gt=now - timedelta(hours=1), received_at__lte=now), filters
    ).exclude(session_id="")
    counted = (
        rows.order_by()
        .values("session_id")
        .annotate(n=Count("id"), last=Max("received_at"))
        .order_by("-n", "-last", "session_id")[:limit]
    )
    return [SessionCount(r["session_id"], r["n"], r["last"]) for r in counted]


# Alerts


@dataclass(frozen=True, slots=True)
class AlertRules:
    session_trims_count: int
    session_trims_minutes: int
    overflow_failed_minutes: int
    runtime_silent_minutes: int


def _positive(value: object, default: int) -> int:
    return value if isinstance(value, int) and value > 0 else default


def alert_rules(config: Mapping[str, object] | None = None) -> AlertRules:
    """The rules from ``settings.TRIMSCOPE_ALERTS`` (or ``config``), each missing value at its default."""
    raw: Mapping[str, object] = (
        config if config is not None else getattr(settings, "TRIMSCOPE_ALERTS", DEFAULT_ALERTS)
    )
    session = raw.get("session_trims")
    session_map: Mapping[str, object] = session if isinstance(session, Mapping) else {}
    return AlertRules(
        session_trims_count=_positive(session_map.get("count"), 5),
        session_trims_minutes=_positive(session_map.get("minutes"), 10),
        overflow_failed_minutes=_positive(raw.get("overflow_failed_minutes"), 60),
        runtime_silent_minutes=_positive(raw.get("runtime_silent_minutes"), 15),
    )


def fleet_alerts(*, now: datetime | None = None, rules: AlertRules | None = None) -> list[Alert]:
    """Every rule that fires now: busy sessions, failed overflow recoveries, silent runtimes."""
    now = now or timezone.now()
    rules = rules or alert_rules()
    alerts: list[Alert] = []

    window = timedelta(minutes=rules.session_trims_minutes)
    busy = (
        TrimEvent.objects.filter(received_at__gte=now - window, received_at__lte=now)
        .exclude(session_id="")
        .order_by()
        .values("session_id")
        .annotate(n=Count("id"), last=Max("received_at"))
        .filter(n__gt=rules.session_trims_count)
        .order_by("-n", "session_id")[:20]
    )
    for row in busy:
        alerts.append(
            busy_session_alert(
                session_id=row["session_id"],
                trims=row["n"],
                last_at=row["last"],
                minutes=rules.session_trims_minutes,
                limit=rules.session_trims_count,
            )
        )

    failed = (
        TrimEvent.objects.filter(
            received_at__gte=now - timedelta(minutes=rules.overflow_failed_minutes),
            received_at__lte=now,
            overflow_recovery="failed",
        )
        .select_related("runtime")
        .order_by("-received_at", "-id")[:20]
    )
    alerts.extend(overflow_failed_alert(event, now=now) for event in failed)

    silent = Runtime.objects.filter(
        revoked_at__isnull=True,
        last_seen_at__isnull=False,
        last_seen_at__lte=now - timedelta(minutes=rules.runtime_silent_minutes),
    ).order_by("last_seen_at", "name")[:20]
    for runtime in silent:
        assert runtime.last_seen_at is not None  # filtered above
        alerts.append(
            silent_runtime_alert(
                runtime, last_seen_at=runtime.last_seen_at, now=now, minutes=rules.runtime_silent_minutes
            )
        )
    return alerts


# The fleet screen


@dataclass(frozen=True, slots=True)
class FleetScreen:
    filters: FleetFilters
    now: datetime
    runtimes: list[RuntimeRow]
    feed: list[FeedRow]
    top_sessions: list[SessionCount]
    alerts: list[Alert]
    reasons: list[str]


def fleet_screen(*, filters: FleetFilters, feed: bool = True, now: datetime | None = None) -> FleetScreen:
    """Everything the fleet page shows; ``feed=False`` for the status poll, which leaves the feed alone."""
    now = now or timezone.now()
    reasons = (
        TrimEvent.objects.filter(received_at__gt=now - timedelta(hours=1))
        .order_by("reason")
        .values_list("reason", flat=True)
        .distinct()[:50]
        if feed
        else []
    )
    return FleetScreen(
        filters=filters,
        now=now,
        runtimes=fleet_runtime_rows(now=now),
        feed=[feed_row(e) for e in trim_event_list(filters=filters)] if feed else [],
        top_sessions=fleet_top_sessions(filters=filters, now=now),
        alerts=fleet_alerts(now=now),
        reasons=list(reasons),
    )


# One session


def _trimmed_calls(transcript: Transcript, profile: Profile) -> tuple[list[int], int]:
    result = simulation_result(transcript=transcript, profile=profile_domain(profile=profile))
    return [c.number for c in result.calls if c.trimmed], len(result.calls)


def fleet_session(*, session_id: str, profile_id: int | None = None) -> SessionScreen:
    """A session's trim events in time order, linked to the simulation of its transcript when uploaded.

    The replay under the chosen profile (the first ZeroClaw profile by default) is run only when an
    event did not report its call; ``dashboard.presenters.fleet.session_event_rows`` matches events to
    calls.
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
