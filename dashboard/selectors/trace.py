"""Reads for the trace panel: a query followed through a replay, drawn as strips over the timeline."""

from __future__ import annotations

from dataclasses import dataclass

from dashboard import memo
from dashboard.models import Transcript
from dashboard.selectors.simulations import replay_key, simulation_result
from dashboard.selectors.transcript_pages import message_o200k
from dashboard.selectors.transcripts import transcript_parsed
from simulator import (
    BeforeAfter,
    EstimateCheck,
    PresenceRun,
    Reread,
    TraceMatch,
    TraceQuery,
    TraceQueryError,
    changed_contents,
    estimate_check,
    match_before_after,
    rereads,
    trace_session,
    trace_to_json,
)
from simulator import Profile as DomainProfile

MAX_MATCHES = 100
"""Matches drawn at most; a query that matches more says how many were left out."""
STRIP_WIDTH = 1000
"""The timeline's viewBox width, so a strip lines up with the bars above it."""


@dataclass(frozen=True, slots=True)
class StripRun:
    run: PresenceRun
    x: float
    width: float


@dataclass(frozen=True, slots=True)
class TraceMatchView:
    match: TraceMatch
    strip: tuple[StripRun, ...]
    changed: bool
    """A content rule changed it (soft trim, clear, truncation, image): a before/after view exists."""
    opened: BeforeAfter | None


@dataclass(frozen=True, slots=True)
class TraceScreen:
    query: str
    regex: bool
    error: str | None
    matches: tuple[TraceMatchView, ...] = ()
    more: int = 0
    rereads: tuple[Reread, ...] = ()
    calls: int = 0
    width: int = STRIP_WIDTH


_CHANGED = {"soft-trimmed", "hard-cleared", "truncated", "image-removed"}


def _strip(runs: tuple[PresenceRun, ...], calls: int) -> tuple[StripRun, ...]:
    step = STRIP_WIDTH / max(calls, 1)
    return tuple(
        StripRun(r, round((r.first - 1) * step, 2), round((r.last - r.first + 1) * step, 2)) for r in runs
    )


def simulation_rereads(
    *, transcript: Transcript, profile: DomainProfile, assumed_gap_seconds: float | None = None
) -> tuple[Reread, ...]:
    """Tool calls repeated after their earlier result left the context (the session's re-read count).

    A walk over the whole replay, so it is kept beside the replay rather than redone for every call shown.
    """
    key = replay_key(transcript, profile, assumed_gap_seconds)
    return memo.REREADS.get_or_compute(
        key,
        lambda: rereads(
            transcript_parsed(transcript=transcript),
            simulation_result(
                transcript=transcript, profile=profile, assumed_gap_seconds=assumed_gap_seconds
            ),
        ),
    )


def simulation_trace_json(
    *,
    transcript: Transcript,
    profile: DomainProfile,
    find: str,
    regex: bool,
    assumed_gap_seconds: float | None = None,
) -> dict[str, object]:
    """The CLI's ``trace --json`` answer for a stored transcript and profile (at most ``MAX_MATCHES``
    matches followed; ``more`` counts the rest).

    Raises:
        TraceQueryError: ``find`` is empty or an invalid regular expression (named ``find``).
    """
    query = TraceQuery.parse(find, regex=regex, name="find")
    parsed = transcript_parsed(transcript=transcript)
    result = simulation_result(
        transcript=transcript, profile=profile, assumed_gap_seconds=assumed_gap_seconds
    )

    def contents_at(number: int) -> dict[int, tuple[int, str]]:
        return changed_contents(parsed, profile, result, number)

    return trace_to_json(trace_session(parsed, result, query, contents_at=contents_at, limit=MAX_MATCHES))


def simulation_trace(
    *,
    transcript: Transcript,
    profile: DomainProfile,
    find: str,
    regex: bool,
    opened: int | None = None,
    assumed_gap_seconds: float | None = None,
) -> TraceScreen:
    """The messages matching ``find`` followed through the replay; ``opened`` gets its before/after view.
    ``assumed_gap_seconds`` is the replay's gap for a transcript without timestamps.

    An invalid query is not an exception here: the screen carries the problem to show in place.
    """
    try:
        query = TraceQuery.parse(find, regex=regex)
    except TraceQueryError as exc:
        return TraceScreen(find, regex, exc.problem)
    parsed = transcript_parsed(transcript=transcript)
    result = simulation_result(
        transcript=transcript, profile=profile, assumed_gap_seconds=assumed_gap_seconds
    )

    def contents_at(number: int) -> dict[int, tuple[int, str]]:
        return changed_contents(parsed, profile, result, number)

    found = trace_session(parsed, result, query, contents_at=contents_at, limit=MAX_MATCHES)
    calls = len(result.calls)
    views = tuple(
        TraceMatchView(
            m,
            _strip(m.runs, calls),
            m.departure is not None and m.departure.kind in _CHANGED,
            match_before_after(parsed, m, contents_at) if m.message_index == opened else None,
        )
        for m in found.matches
    )
    return TraceScreen(find, regex, None, views, found.more, found.rereads, calls)


def simulation_estimates(
    *, transcript: Transcript, profile: DomainProfile, assumed_gap_seconds: float | None = None
) -> EstimateCheck:
    """Per call: the runtime's estimate, o200k and the provider's count; flagged at 2× or more.

    Every message's o200k count is read from the transcript's kept counts (counted once), and the check
    is kept beside the replay.
    """

    def check() -> EstimateCheck:
        parsed = transcript_parsed(transcript=transcript)
        result = simulation_result(
            transcript=transcript, profile=profile, assumed_gap_seconds=assumed_gap_seconds
        )
        counts = message_o200k(transcript=transcript, indices=range(len(parsed.messages)))
        return estimate_check(parsed, result, o200k_per_message=[counts[i] for i in range(len(counts))])

    return memo.ESTIMATES.get_or_compute(replay_key(transcript, profile, assumed_gap_seconds), check)
