"""What one profile does to one session, reduced to the numbers an operator compares across a corpus.

Everything is read off a :class:`~simulator.replay.SimulationResult` (the replay of the runtime's own
rules) and priced with :mod:`simulator.cost`. Definitions, per session:

* ``calls`` / ``calls_trimmed`` -- model calls, and those at which the runtime left history out;
* ``overflow_failures`` -- calls still over the provider window after the runtime's rules (and its
  overflow retries): the real runtime would have returned an error there;
* ``messages_dropped`` / ``turns_dropped`` -- the most messages (turns) of the conversation so far that
  any one call left out; a turn counts as kept when any of its messages is sent;
* ``kept_turn_fraction`` at a call -- turns kept / turns so far (1.0 before the first turn); the session
  keeps its minimum, its mean over calls, and a 10-bin histogram so a corpus-wide distribution can be
  drawn without keeping every call;
* ``tokens_sent`` -- the runtime estimator's tokens over all calls; cache reads / writes, uncached input
  and ``cost_usd`` from the cache model priced at the transcript's model (the price table's default,
  with a warning, when the model is unknown);
* ``first_trim_call`` -- the first call that was trimmed (``None`` = never);
* ``rereads`` -- re-reads after forgetting (:func:`simulator.trace.rereads`): the same tool with the
  same arguments called again at a call where its earlier result was no longer sent in full.

Each quantity is computed in one pass over the calls and their sent ranges, so the cost stays linear in
the number of calls times the (small) number of ranges per call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from simulator.cost import (
    SessionCost,
    TranscriptTokens,
    price_requests,
    pricing_for,
    requests_from_result,
    summary_cost_usd,
)
from simulator.costing import changed_for
from simulator.profiles import Profile
from simulator.replay import (
    PreparedReplay,
    SimulationResult,
    prepare,
    replay_prepared,
)
from simulator.trace import rereads
from simulator.transcript import Transcript
from simulator.turns import segment_turns

KEPT_BINS = 10
"""Bins of the per-call kept-turn histogram: ``[0, 0.1), …, [0.9, 1.0]``."""


@dataclass(frozen=True, slots=True)
class SessionMetrics:
    """One (session, profile) pair's numbers; see the module docstring for each definition."""

    source: str
    profile: str
    runtime: str
    messages: int
    calls: int
    calls_trimmed: int
    overflow_failures: int
    messages_dropped: int
    turns_dropped: int
    turns: int
    min_kept_turn_fraction: float
    mean_kept_turn_fraction: float
    kept_histogram: tuple[int, ...]
    tokens_sent: int
    tokens_full: int
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cost_usd: float
    first_trim_call: int | None
    priced: bool = True
    """False when the session was evaluated without the cost model (cost fields are then 0)."""
    warnings: tuple[str, ...] = ()
    rereads: int = 0
    """Tool calls repeated (same tool, same arguments) after their earlier result left the context."""


@dataclass(frozen=True, slots=True)
class PreparedTranscript:
    """A transcript with what every profile's metrics reuse, computed once per transcript.

    ``turn_of`` maps each transcript message to its turn ordinal (-1 before the first real turn);
    ``tokens`` are the cost model's per-message fingerprints and o200k counts (``None`` = not priced:
    counting every message with o200k is the largest single cost of an evaluation).
    """

    source: str
    transcript: Transcript
    turn_of: tuple[int, ...]
    tokens: TranscriptTokens | None
    replays: dict[str, PreparedReplay] = field(default_factory=dict, compare=False, repr=False)
    """Per runtime, the transcript converted and sized for its replays, made on first use and kept:
    a corpus evaluated under several profiles (or a profile search over many knob values) replays
    each transcript many times, and only the replay itself depends on the knobs."""

    def replay_of(self, runtime: str) -> PreparedReplay:
        """The transcript prepared for ``runtime``'s replays (once per runtime)."""
        found = self.replays.get(runtime)
        if found is None:
            found = self.replays[runtime] = prepare(self.transcript, runtime)
        return found

    @classmethod
    def of(
        cls,
        transcript: Transcript,
        *,
        source: str,
        priced: bool = True,
        counted: dict[str, int] | None = None,
    ) -> PreparedTranscript:
        """Prepare ``transcript``; ``counted`` is the o200k memo shared over a corpus (see
        :meth:`~simulator.cost.TranscriptTokens.of`)."""
        turn_of = [-1] * len(transcript.messages)
        ordinal = -1
        for group in segment_turns(transcript.messages):
            if group.kind == "turn":
                ordinal += 1
            for i in group.indices:
                turn_of[i] = ordinal
        tokens = TranscriptTokens.of(transcript, counted=counted) if priced else None
        return cls(source, transcript, tuple(turn_of), tokens)


def _native_turns(prepared: PreparedTranscript, result: SimulationResult) -> list[int]:
    """Turn ordinal per native message (a native built from several messages takes its first one's)."""
    out: list[int] = []
    last = -1
    turn_of = prepared.turn_of
    for origin in result.origins:
        if origin and turn_of[origin[0]] > last:  # ``max`` without its call, once per native
            last = turn_of[origin[0]]
        out.append(last)
    return out


def _kept_turns(sent: Sequence[tuple[int, int]], tid: Sequence[int]) -> int:
    """Distinct turns with at least one message in the sent ranges (ranges ascending, turns monotone)."""
    kept = 0
    last = -1
    for start, end in sent:
        if end <= start:
            continue
        # ``max(tid[start], last + 1, 0)``, spelled out: this runs for every range of every call.
        low = tid[start]
        if low <= last:
            low = last + 1
        if low < 0:
            low = 0
        high = tid[end - 1]
        if high >= low:
            kept += high - low + 1
        if high > last:
            last = high
    return kept


def _price(
    prepared: PreparedTranscript, profile: Profile, result: SimulationResult
) -> tuple[SessionCost, str | None] | None:
    """The session priced at its model with the cache model, and the price lookup's warning."""
    if prepared.tokens is None:
        return None
    transcript = prepared.transcript
    lookup = pricing_for(transcript.model, provider=transcript.provider)

    changed = changed_for(transcript, profile, result)
    requests = requests_from_result(transcript, result, changed=changed, tokens=prepared.tokens)
    return price_requests(requests, lookup.pricing), lookup.warning


def measure(prepared: PreparedTranscript, profile: Profile, result: SimulationResult) -> SessionMetrics:
    """The metrics of ``result``, the replay of ``prepared`` under ``profile``."""
    tid = _native_turns(prepared, result)
    # Turns so far before each native: ``tid`` already never decreases (nor goes below -1).
    prefix_turns = [t + 1 for t in tid]
    histogram = [0] * KEPT_BINS
    messages_dropped = turns_dropped = 0
    fraction_sum = 0.0
    fraction_min = 1.0
    first_trim: int | None = None
    turns = 0
    for call in result.calls:
        # ``min`` and ``max`` spelled out as comparisons: this loop runs once per model call.
        available = call.available
        available_turns = prefix_turns[available - 1] if available else 0
        kept = _kept_turns(call.sent, tid)
        fraction = kept / available_turns if available_turns else 1.0
        if fraction > 1.0:
            fraction = 1.0
        fraction_sum += fraction
        if fraction < fraction_min:
            fraction_min = fraction
        histogram[min(int(fraction * KEPT_BINS), KEPT_BINS - 1)] += 1
        unsent = available
        for start, end in call.sent:
            unsent -= end - start
        if unsent > messages_dropped:
            messages_dropped = unsent
        if available_turns - kept > turns_dropped:
            turns_dropped = available_turns - kept
        turns = available_turns
        if call.trimmed and first_trim is None:
            first_trim = call.number
    cost = _price(prepared, profile, result)
    warnings: tuple[str, ...] = () if cost is None or cost[1] is None else (cost[1],)
    calls = len(result.calls)
    return SessionMetrics(
        source=prepared.source,
        profile=profile.name,
        runtime=profile.runtime,
        messages=len(prepared.transcript.messages),
        calls=calls,
        calls_trimmed=result.trims,
        overflow_failures=result.overflow_failures,
        messages_dropped=max(messages_dropped, 0),
        turns_dropped=max(turns_dropped, 0),
        turns=turns,
        min_kept_turn_fraction=fraction_min,
        mean_kept_turn_fraction=fraction_sum / calls if calls else 1.0,
        kept_histogram=tuple(histogram),
        tokens_sent=result.total_tokens_sent,
        tokens_full=sum(c.tokens_full for c in result.calls),
        input_tokens=0 if cost is None else cost[0].input_tokens,
        cache_read_tokens=0 if cost is None else cost[0].cache_read_tokens,
        cache_write_tokens=0 if cost is None else cost[0].cache_write_tokens,
        output_tokens=0 if cost is None else cost[0].output_tokens,
        cost_usd=0.0 if cost is None else summary_cost_usd(cost[0]),
        first_trim_call=first_trim,
        priced=cost is not None,
        warnings=warnings,
        rereads=len(rereads(prepared.transcript, result)),
    )


def evaluate_session(prepared: PreparedTranscript, profile: Profile) -> SessionMetrics:
    """Replay ``prepared`` under ``profile`` and measure it."""
    return measure(prepared, profile, replay_prepared(prepared.replay_of(profile.runtime), profile))


__all__ = ["KEPT_BINS", "PreparedTranscript", "SessionMetrics", "evaluate_session", "measure"]
