"""Reads for watching the fleet: runtime rows, the event feed, top sessions, alerts, one session's events.

Every time window is measured against ``now`` (an argument, so tests pin the clock) on
``TrimEvent.received_at``, which is indexed alone and with ``runtime`` and ``session_id``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal
from urllib.parse import urlencode

from django.conf import settings
from django.db.models import Count, Max, Q, QuerySet
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from dashboard.models import Profile, Runtime, Transcript, TrimEvent
from dashboard.selectors.simulations import simulation_profile, simulation_result
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

# Sparkline geometry (SVG user units): one bar per minute.
SPARK_BAR = 4
SPARK_HEIGHT = 24

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


def fleet_session_url(session_id: str) -> str:
    """The session page's URL, or "" when there is no id (or one no URL can carry, e.g. a newline)."""
    if not session_id:
        return ""
    try:
        return reverse("fleet-session", args=[session_id])
    except NoReverseMatch:
        return ""


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
    trims_hour: int
    per_minute: tuple[int, ...]  # the last SPARK_MINUTES minutes, oldest first, the current one last
    bars: tuple[SparkBar, ...]

    @property
    def spark_total(self) -> int:
        return sum(self.per_minute)

    @property
    def spark_peak(self) -> int:
        return max(self.per_minute, default=0)

    @property
    def spark_width(self) -> int:
        return SPARK_BAR * len(self.per_minute)

    @property
    def spark_height(self) -> int:
        return SPARK_HEIGHT


def _spark_bars(per_minute: Sequence[int]) -> tuple[SparkBar, ...]:
    peak = max(per_minute, default=0)
    bars = []
    for i, n in enumerate(per_minute):
        height = 0 if n == 0 or peak == 0 else max(2, round(n * (SPARK_HEIGHT - 2) / peak))
        bars.append(SparkBar(i * SPARK_BAR, SPARK_HEIGHT - height, height, n, len(per_minute) - 1 - i))
    return tuple(bars)


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
    rows = []
    for runtime in Runtime.objects.order_by("name"):
        counts = tuple(buckets.get(runtime.pk, [0] * SPARK_MINUTES))
        rows.append(
            RuntimeRow(
                runtime=runtime,
                online=runtime_online(runtime, now=now),
                trims_hour=hour.get(runtime.pk, 0),
                per_minute=counts,
                bars=_spark_bars(counts),
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


AlertKind = Literal["session_trims", "overflow_failed", "runtime_silent"]


@dataclass(frozen=True, slots=True)
class Alert:
    kind: AlertKind
    message: str
    session_id: str = ""
    runtime: str = ""
    count: int = 0
    at: datetime | None = None
    event_id: int | None = None

    @property
    def session_url(self) -> str:
        return fleet_session_url(self.session_id)


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


def _ago(delta: timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    if minutes < 1:
        return "under a minute"
    if minutes < 120:
        return f"{minutes} min"
    hours = minutes // 60
    if hours < 48:
        return f"{hours} h"
    return f"{hours // 24} days"


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
            Alert(
                kind="session_trims",
                message=(
                    f"Session {row['session_id']} trimmed {row['n']:,} times in the last "
                    f"{rules.session_trims_minutes} min (rule: more than {rules.session_trims_count})"
                ),
                session_id=row["session_id"],
                count=row["n"],
                at=row["last"],
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
    for event in failed:
        where = f"session {event.session_id}" if event.session_id else "a session without an id"
        alerts.append(
            Alert(
                kind="overflow_failed",
                message=(
                    f"Overflow recovery failed in {where} on {event.runtime.name} "
                    f"({_ago(now - event.received_at)} ago)"
                ),
                session_id=event.session_id,
                runtime=event.runtime.name,
                count=1,
                at=event.received_at,
                event_id=event.pk,
            )
        )

    silent = Runtime.objects.filter(
        revoked_at__isnull=True,
        last_seen_at__isnull=False,
        last_seen_at__lte=now - timedelta(minutes=rules.runtime_silent_minutes),
    ).order_by("last_seen_at", "name")[:20]
    for runtime in silent:
        assert runtime.last_seen_at is not None  # filtered above
        alerts.append(
            Alert(
                kind="runtime_silent",
                message=(
                    f"Runtime {runtime.name} silent for {_ago(now - runtime.last_seen_at)} "
                    f"(rule: {rules.runtime_silent_minutes} min)"
                ),
                runtime=runtime.name,
                at=runtime.last_seen_at,
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
