"""Reads for watching the fleet: runtime rows, the event feed, top sessions, alerts, one session's events.

Every time window is measured against ``now`` (an argument, so tests pin the clock). Counts over a time
range (sparklines, top sessions, busy sessions) come from the per-minute rollups
(``dashboard.services.fleet_rollups``), so they cost the same at ten million events as at ten; the
feed and one session's page read the newest events through the ``received_at`` indexes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal
from urllib.parse import urlencode

from django.db.models import ExpressionWrapper, F, IntegerField, Max, QuerySet, Sum
from django.urls import reverse
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
from dashboard.selectors.fleet_alerts import AlertStrip, fleet_alert_strip
from dashboard.selectors.fleet_filters import (
    DEFAULT_RANGE,
    RANGES,
    FleetFilters,
    TimeRange,
    fleet_session_url,
)
from dashboard.selectors.simulations import simulation_profile, simulation_result
from dashboard.services.fleet_rollups import epoch_minute
from simulator import SimulatorError

ONLINE_SECONDS = 60
"""A runtime is online when seen this recently: an open socket refreshes ``last_seen_at`` every
``HEARTBEAT_SECONDS`` (dashboard/consumers/runtime.py), so a server killed with the socket open stops
refreshing it and the runtime goes offline on its own; a connection counter cannot (nothing decrements it)."""
FEED_LIMIT = 50
TOP_SESSIONS = 10
SESSION_EVENTS_LIMIT = 1000

# Sparkline geometry (SVG user units): one bar per bucket of the time range.
SPARK_BAR = 4
SPARK_HEIGHT = 24


def _filtered(rows: QuerySet[TrimEvent], filters: FleetFilters) -> QuerySet[TrimEvent]:
    if filters.runtime:
        rows = rows.filter(runtime__name=filters.runtime)
    if filters.session:
        rows = rows.filter(session_id=filters.session)
    if filters.reason:
        rows = rows.filter(reason=filters.reason)
    return rows


# The event feed


@dataclass(frozen=True, slots=True)
class FeedRow:
    """One row of the live feed, built from a stored event or from its group message alike."""

    id: int
    at: datetime
    runtime: str
    session_id: str
    reason: str
    dropped_messages: int
    kept_turns: int
    tokens_before: int | None
    tokens_after: int | None
    overflow_recovery: str

    @property
    def session_url(self) -> str:
        return fleet_session_url(self.session_id)


def feed_row(event: TrimEvent) -> FeedRow:
    return FeedRow(
        id=event.pk,
        at=event.occurred_at,
        runtime=event.runtime.name,
        session_id=event.session_id,
        reason=event.reason,
        dropped_messages=event.dropped_messages,
        kept_turns=event.kept_turns,
        tokens_before=event.tokens_before,
        tokens_after=event.tokens_after,
        overflow_recovery=event.overflow_recovery,
    )


def _as_int(value: object) -> int:
    return value if isinstance(value, int) else 0


def _as_opt_int(value: object) -> int | None:
    return value if isinstance(value, int) else None


def _as_str(value: object) -> str:
    return value if isinstance(value, str) else ""


def feed_row_from_message(message: Mapping[str, object]) -> FeedRow:
    """The row for a ``fleet.event`` group message (``dashboard.events.event_message``); no query."""
    raw_at = _as_str(message.get("occurred_at")) or _as_str(message.get("received_at"))
    try:
        at = datetime.fromisoformat(raw_at)
    except ValueError:
        at = timezone.now()
    return FeedRow(
        id=_as_int(message.get("id")),
        at=at,
        runtime=_as_str(message.get("runtime")),
        session_id=_as_str(message.get("session_id")),
        reason=_as_str(message.get("reason")),
        dropped_messages=_as_int(message.get("dropped_messages")),
        kept_turns=_as_int(message.get("kept_turns")),
        tokens_before=_as_opt_int(message.get("tokens_before")),
        tokens_after=_as_opt_int(message.get("tokens_after")),
        overflow_recovery=_as_str(message.get("overflow_recovery")),
    )


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


@dataclass(frozen=True, slots=True)
class SparkBar:
    x: int
    y: int
    height: int
    count: int
    minutes_ago: int


@dataclass(frozen=True, slots=True)
class RuntimeRow:
    runtime: Runtime
    online: bool
    trims: int  # in the time range
    per_bar: tuple[int, ...]  # trims per bucket of the range, oldest first, the current one last
    bars: tuple[SparkBar, ...]
    bar_minutes: int

    @property
    def spark_total(self) -> int:
        return sum(self.per_bar)

    @property
    def spark_peak(self) -> int:
        return max(self.per_bar, default=0)

    @property
    def spark_width(self) -> int:
        return SPARK_BAR * len(self.per_bar)

    @property
    def spark_height(self) -> int:
        return SPARK_HEIGHT


def _spark_bars(per_bar: Sequence[int], bar_minutes: int) -> tuple[SparkBar, ...]:
    peak = max(per_bar, default=0)
    bars = []
    for i, n in enumerate(per_bar):
        height = 0 if n == 0 or peak == 0 else max(2, round(n * (SPARK_HEIGHT - 2) / peak))
        bars.append(
            SparkBar(i * SPARK_BAR, SPARK_HEIGHT - height, height, n, (len(per_bar) - 1 - i) * bar_minutes)
        )
    return tuple(bars)


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
                bars=_spark_bars(counts, time_range.bar_minutes),
                bar_minutes=time_range.bar_minutes,
            )
        )
    return rows


# Top sessions


@dataclass(frozen=True, slots=True)
class SessionCount:
    session_id: str
    trims: int
    last_at: datetime

    @property
    def session_url(self) -> str:
        return fleet_session_url(self.session_id)


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
    if filters.runtime:
        rows = rows.filter(runtime__name=filters.runtime)
    if filters.session:
        rows = rows.filter(session_id=filters.session)
    if filters.reason:
        rows = rows.filter(reason=filters.reason)
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


@dataclass(frozen=True, slots=True)
class SessionEventRow:
    number: int
    event: TrimEvent
    call: int | None
    call_source: CallSource
    call_note: str
    url: str


@dataclass(frozen=True, slots=True)
class SessionScreen:
    session_id: str
    rows: list[SessionEventRow]
    total: int
    runtimes: list[str]
    transcript: Transcript | None
    profiles: list[Profile]
    profile: Profile | None
    replay_trims: int | None
    replay_calls: int | None
    replay_error: str


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _trimmed_calls(transcript: Transcript, profile: Profile) -> tuple[list[int], int]:
    result = simulation_result(transcript=transcript, profile=simulation_profile(profile=profile))
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
        zeroclaw = [p for p in profiles if p.runtime == Profile.Runtime.ZEROCLAW]
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

    rows: list[SessionEventRow] = []
    for number, event in enumerate(events, start=1):
        call: int | None = None
        source: CallSource = ""
        note = ""
        if event.call_number is not None:
            call, source, note = event.call_number, "reported", "call reported by the runtime"
        elif trimmed is not None and calls:
            source = "nearest"
            if number <= len(trimmed):
                call = trimmed[number - 1]
                note = f"nearest: the replay's {_ordinal(number)} trim"
            elif trimmed:
                call = trimmed[-1]
                note = f"nearest: the replay's last trim (it trims {len(trimmed):,} times)"
            else:
                call = calls
                note = "the replay never trims under this profile; last call"
        url = ""
        if call is not None and transcript is not None and profile is not None:
            query = urlencode({"transcript": transcript.pk, "profile": profile.pk, "call": call})
            url = f"{reverse('simulation')}?{query}"
        rows.append(SessionEventRow(number, event, call, source, note, url))

    return SessionScreen(
        session_id=session_id,
        rows=rows,
        total=total,
        runtimes=runtimes,
        transcript=transcript,
        profiles=profiles,
        profile=profile,
        replay_trims=len(trimmed) if trimmed is not None else None,
        replay_calls=calls,
        replay_error=error,
    )
