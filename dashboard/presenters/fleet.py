"""How the fleet pages show what the fleet selectors read: feed rows, sparkline geometry, session rows
linked to the simulation. (Alert rows and their wording: ``dashboard.presenters.fleet_alerts``.)

Everything here is a pure function of values handed in (rows, counts, ``now``): no query, no settings.
Times are measured against ``now`` passed by the caller. What may import this module: selectors
(``dashboard.selectors.fleet_watch`` builds its screens with it), views, consumers, the API.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal
from urllib.parse import urlencode

from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.safestring import SafeString

from dashboard.models import Profile, Runtime, Transcript, TrimEvent
from dashboard.presenters.feed_html import feed_row_html

# Sparkline geometry (SVG user units): one bar per bucket of the time range.
SPARK_BAR = 4
SPARK_HEIGHT = 24


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

    @property
    def html(self) -> SafeString:
        return feed_row_html(self)


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


# Fleet runtimes and their sparklines


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


def spark_bars(per_bar: Sequence[int], bar_minutes: int) -> tuple[SparkBar, ...]:
    """One bar per bucket of ``bar_minutes``, scaled to the peak; a bucket with a trim is at least 2 tall."""
    peak = max(per_bar, default=0)
    bars = []
    for i, n in enumerate(per_bar):
        height = 0 if n == 0 or peak == 0 else max(2, round(n * (SPARK_HEIGHT - 2) / peak))
        bars.append(
            SparkBar(i * SPARK_BAR, SPARK_HEIGHT - height, height, n, (len(per_bar) - 1 - i) * bar_minutes)
        )
    return tuple(bars)


# Top sessions


@dataclass(frozen=True, slots=True)
class SessionCount:
    session_id: str
    trims: int
    last_at: datetime

    @property
    def session_url(self) -> str:
        return fleet_session_url(self.session_id)


# One session's events, linked to the simulation


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


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def session_event_rows(
    events: Sequence[TrimEvent],
    *,
    trimmed: Sequence[int] | None,
    calls: int | None,
    transcript: Transcript | None,
    profile: Profile | None,
) -> list[SessionEventRow]:
    """Each event with the call it belongs to and a link to that call's simulation.

    The call is the one the runtime reported (``call_number``) when it did. Otherwise the k-th event is
    matched to the k-th call the replay trimmed (``trimmed``, the nearest call by count of events), and
    the row says so.
    """
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
                note = f"nearest: the replay's {ordinal(number)} trim"
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
    return rows
