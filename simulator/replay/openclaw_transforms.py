"""One OpenClaw model call's transforms over a replayed session: the reference and the fast way, one answer.

:class:`ReferenceTransforms` runs :func:`~simulator.runtimes.openclaw.attempt.attempt_step` on the call's
history (every transform over every message: quadratic over a session). :class:`FastTransforms` gives the
same :class:`Outcome` for 2026.7.1 from facts computed once per message, running a transform on the call's
messages only when it can change something:

* pruning: the TTL gate is the runtime's own (``ttl_gate.gate_closed``, which ``on_context`` asks first);
  while it is closed nothing runs and the state is kept; when it is open the incremental pruner
  (:mod:`openclaw_fast`) answers; a pass that changes the context has its soft trims built per message
  (memoised), and its hard clear (a run of the oldest candidates) kept as that run, with prefix sums over
  the candidates of what clearing each one does to the guard's size, the size sent and media, so a call
  costs what it changes anew rather than everything it changes; the clock moves by the hook's own rule
  (``ttl_gate.after_pass``);
* the context guard: which tool results are over the single-result share and the context's size come from
  per-message facts and prefix sums, unless pruning changed the context;
* image cleanup: skipped while no message so far has an image or a media-reference-like text; after,
  each stored message it changes is cleaned once, as its turn comes of age (the cutoff only moves forward:
  :mod:`openclaw_cleanup_2026_7`), a message pruning or the guard rewrote is cleaned as rewritten, and what
  it changed is handed out as a window of the growing list of cleaned messages, its size change as sums
  (a hard-cleared run whose placeholder may name media runs it on the whole context);
* the transcript policy: skipped while no assistant message so far has thinking; after, on a route that
  drops it, each assistant is stripped once, from the call a newer assistant arrives on (no other transform
  rewrites an assistant: :mod:`openclaw_strips_2026_7`), handed out as a window of the assistants with
  thinking, its size change as sums; the pruning pass's estimate, which counts them stripped, is the
  stored sizes' plus those sums.

2026.9.6 has its own fast transforms (:mod:`openclaw_transforms_2026_9`); here it runs the reference on
every call. Equality is property-tested (``tests/simulator/test_openclaw_replay.py``,
``tests/simulator/test_openclaw_fast_2026_9.py``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import accumulate, chain, compress, islice, repeat
from operator import lt
from typing import Protocol

from simulator.replay.model import IndexSlice, slot_builder
from simulator.replay.openclaw_attempt_memos import LastTouches, SetupMemo
from simulator.replay.openclaw_cleanup_2026_7 import (
    CleanedIndexes,
    HistoryCleanup,
    Positions,
    SkippedPositions,
)
from simulator.replay.openclaw_fast import FastPrune, IncrementalPruner
from simulator.replay.openclaw_gate import as_view
from simulator.replay.openclaw_strips_2026_7 import StrippedPart, ThinkingStrips
from simulator.replay.openclaw_views import SliceView
from simulator.runtimes.openclaw import context_guard as guard_v1
from simulator.runtimes.openclaw.attempt import (
    AttemptConfig,
    AttemptSetup,
    AttemptState,
    CacheTtlMarker,
    CompactionPoint,
    attempt_step,
    begin_attempt,
    start_attempt,
)
from simulator.runtimes.openclaw.estimate import StripFacts, drop_thinking_blocks, estimate_message_chars
from simulator.runtimes.openclaw.image_prune import may_name_media, prune_processed_history_images
from simulator.runtimes.openclaw.messages import (
    AgentMessage,
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from simulator.runtimes.openclaw.pruner import PruneMemo, cleared_tool_result
from simulator.runtimes.openclaw.route import ModelRoute, OpenClawVersion
from simulator.runtimes.openclaw.ttl_gate import (
    PruningRuntime,
    TtlGateOutcome,
    TtlGateState,
    after_pass,
    elapsed_since_touch,
    gate_closed,
    gate_outcome,
)
from simulator.runtimes.openclaw.v2026_9_6.cache_ttl import CacheTtlOutcome


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one call's transforms did, in native indices (the summary of a compaction is not one)."""

    overflow: bool
    gate: TtlGateOutcome | None
    pruned: FastPrune | None
    """2026.7.1: the pruning pass, when the TTL gate let it run."""
    cache_ttl: CacheTtlOutcome | None
    guard: tuple[int, ...]
    images: Sequence[int]
    """Native indices of the messages history image cleanup changed (a fast replay hands out a view)."""
    policy: Sequence[int]
    """Native indices of the assistants the transcript policy stripped (a fast replay hands out a view)."""
    budget: tuple[int, ...]
    compaction: CompactionPoint | None
    compacted_through: int | None
    """The messages before this native index were sent as a compaction summary."""
    last_touch_before: float | None
    changed: Mapping[int, AgentMessage] = field(default_factory=dict)
    """Native index → the message as sent, for every message a transform changed."""
    sent_delta: int | None = None
    """Σ over ``changed`` of (estimated chars as sent − as stored), when the transforms kept it as a sum."""
    sticky: tuple[Sequence[int], Sequence[int]] | None = field(default=None, compare=False)
    """2026.9.6: of the projections replayed, the natives sent trimmed again and cleared again, when the
    transforms kept them (else the record builder reads them from ``cache_ttl`` and ``changed``)."""


@dataclass(frozen=True, slots=True)
class QuietChanges:
    """What a call answered without its outcome (:meth:`FastTransforms.quiet_gate`) sends changed: only
    stored messages, cleaned or stripped, as its outcome would tell them."""

    images: Sequence[int]
    """The old messages history image cleanup changed (the outcome's ``images``)."""
    policy: Sequence[int]
    """The assistants the transcript policy stripped (the outcome's ``policy``)."""
    sent_delta: int
    """Σ over both of (estimated chars as sent − as stored) (the outcome's ``sent_delta``)."""


_outcome = slot_builder(Outcome)
"""``Outcome(...)`` positionally, and the others below: once per call each (see :func:`slot_builder`)."""
_attempt_state = slot_builder(AttemptState)
_gate_state = slot_builder(TtlGateState)
_quiet_changes = slot_builder(QuietChanges)


class Transforms(Protocol):
    """An attempt's start, and one model call over the first ``end`` native messages at time ``now``."""

    def start(
        self,
        config: AttemptConfig,
        route: ModelRoute,
        markers: Sequence[CacheTtlMarker],
        state: AttemptState,
        version: OpenClawVersion,
        end: int,
    ) -> tuple[AttemptSetup, AttemptState]: ...

    def call(
        self, setup: AttemptSetup, state: AttemptState, now: float, end: int
    ) -> tuple[Outcome, AttemptState]: ...


def reference_outcome(
    natives: Sequence[AgentMessage], setup: AttemptSetup, state: AttemptState, now: float, end: int
) -> tuple[Outcome, AttemptState]:
    """The call through :func:`attempt_step` itself, in native indices."""
    through = state.compacted_through if setup.config.apply_provider_compaction else None
    history = tuple(natives[:end])
    call, after = attempt_step(setup, state, now, history)

    def native(i: int) -> int | None:
        if through is None:
            return i
        return None if i == 0 else through + i - 1

    def mapped(indexes: Sequence[int]) -> tuple[int, ...]:
        return tuple(n for i in indexes if (n := native(i)) is not None)

    changed: dict[int, AgentMessage] = {}
    if call.context is not None:
        for i, message in enumerate(call.context):
            n = native(i)
            if n is not None and message is not history[n] and message != history[n]:
                changed[n] = message
    gate = call.pruning
    pruned = as_view(gate.prune) if gate is not None and gate.prune is not None else None
    outcome = Outcome(
        overflow=call.context is None,
        gate=gate,
        pruned=pruned,
        cache_ttl=call.cache_ttl,
        guard=mapped(call.guard_truncated_indexes),
        images=mapped(call.image_cleanup_indexes),
        policy=mapped(call.transcript_policy_indexes),
        budget=mapped(call.provider_budget_indexes),
        compaction=call.compaction,
        compacted_through=through,
        last_touch_before=call.last_cache_touch_at_before,
        changed=changed,
    )
    return outcome, after


def start_on_history(
    natives: Sequence[AgentMessage],
    config: AttemptConfig,
    route: ModelRoute,
    markers: Sequence[CacheTtlMarker],
    state: AttemptState,
    version: OpenClawVersion,
    end: int,
) -> tuple[AttemptSetup, AttemptState]:
    """:func:`start_attempt` with the session's first ``end`` messages (2026.9.6 reconciles with them)."""
    history = tuple(natives[:end]) if version != "2026.7.1" else ()
    return start_attempt(config, route, markers, state, version, history)


class _StartOnHistory:
    """``start_attempt`` on the history so far (2026.9.6 reconciles projections with it)."""

    _natives: Sequence[AgentMessage]

    def start(
        self,
        config: AttemptConfig,
        route: ModelRoute,
        markers: Sequence[CacheTtlMarker],
        state: AttemptState,
        version: OpenClawVersion,
        end: int,
    ) -> tuple[AttemptSetup, AttemptState]:
        return start_on_history(self._natives, config, route, markers, state, version, end)


class ReferenceTransforms(_StartOnHistory):
    """:func:`attempt_step` on the call's messages, every call."""

    def __init__(self, natives: Sequence[AgentMessage]) -> None:
        self._natives = natives

    def call(
        self, setup: AttemptSetup, state: AttemptState, now: float, end: int
    ) -> tuple[Outcome, AttemptState]:
        return reference_outcome(self._natives, setup, state, now, end)


def _may_hold_media(message: AgentMessage) -> bool:
    """Whether history image cleanup could ever change the message (over-approximated on purpose)."""
    if not isinstance(message, UserMessage | ToolResultMessage):
        return False
    content = message.content
    if isinstance(content, str):
        texts: tuple[str, ...] = (content,)
    elif not isinstance(content, tuple):
        return content is not None  # a shape the cleanup may not know: never skipped
    else:
        if any(isinstance(b, ImageContent) for b in content):
            return True
        texts = tuple(b.text for b in content if isinstance(b, TextContent))
        if any(not isinstance(b, TextContent) for b in content):
            return True
    return any(map(may_name_media, texts))


_NEVER_THINKING = (TextContent, ToolCall, ImageContent)
"""Blocks whose JSON type is fixed and not a thinking one (their extra fields never hold ``type``)."""


def _has_thinking(message: AgentMessage) -> bool:
    if not isinstance(message, AssistantMessage):
        return False
    content = message.content
    if isinstance(content, tuple) and all(isinstance(b, _NEVER_THINKING) for b in content):
        return False  # nothing the policy strips, without building the blocks' JSON
    return drop_thinking_blocks((message, message))[0] is not message


def media_and_thinking_of(natives: Sequence[AgentMessage]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The natives image cleanup may change, and the assistants with thinking, ascending."""
    media = tuple(i for i, m in enumerate(natives) if _may_hold_media(m))
    return media, tuple(i for i, m in enumerate(natives) if _has_thinking(m))


@dataclass(slots=True)
class _GuardFacts:
    """Per window: the tool results over the single-result share, their rewrite, and guarded sizes."""

    max_context: int
    over: list[int]
    rewritten: dict[int, AgentMessage]
    chars: list[int]
    """Prefix sums of each message's guard size after its own rewrite."""
    max_single: int
    """The single-result share of this window (``guard_limits``), kept beside ``max_context``."""


@dataclass(slots=True)
class _ClearSums:
    """What hard-clearing each pruner candidate changes, as prefix sums over candidate positions."""

    candidates: Sequence[int]
    placeholder: str
    guard: list[int]
    """Prefix Σ (guard size of the cleared result as guarded − guard size of the stored one as guarded)."""
    sent: list[int]
    """Prefix Σ (estimate of the cleared result − estimate of the stored one)."""
    cut_positions: list[int]
    """Candidate positions whose cleared result the guard still truncates (a huge placeholder)."""
    cut_messages: list[AgentMessage]
    media: bool | None
    """Whether a cleared result may hold media (its only text is the placeholder)."""
    unit: tuple[int, int] | None = None
    """A cleared result's guard size and estimate, once one is known not to be cut (all share them)."""
    inside: list[int] = field(default_factory=lambda: [0])
    """Prefix count over the cleanup's ``cleanable`` of the candidates (a run's members among them)."""
    inside_delta: list[int] = field(default_factory=lambda: [0])
    """Prefix Σ over the same of the cleanup's size change of each candidate (what a run sends uncleaned)."""


class _ClearedRun:
    """The candidates one pass hard-cleared (a run of candidate positions), answered from the sums."""

    __slots__ = ("_cleared", "_sums", "_message", "_lo", "_hi")

    def __init__(
        self,
        cleared: Sequence[int],
        sums: _ClearSums | None,
        message: Callable[[int, str], AgentMessage],
    ) -> None:
        self._cleared = cleared
        self._sums = sums
        self._message = message
        self._lo = self._hi = 0
        if cleared and sums is not None:
            self._lo = bisect_left(sums.candidates, cleared[0])
            self._hi = self._lo + len(cleared)

    def __bool__(self) -> bool:
        return self._hi > self._lo

    def __len__(self) -> int:
        return self._hi - self._lo

    def __iter__(self) -> Iterator[int]:
        return iter(self._cleared) if self else iter(())

    def __contains__(self, index: object) -> bool:
        if not self or self._sums is None or not isinstance(index, int):
            return False
        position = bisect_left(self._sums.candidates, index)
        return (
            self._lo <= position < self._hi
            and position < len(self._sums.candidates)
            and self._sums.candidates[position] == index
        )

    def message(self, index: int) -> AgentMessage:
        """The cleared result at a native index of the run."""
        assert self._sums is not None
        return self._message(index, self._sums.placeholder)

    def guard_delta(self) -> int:
        if not self or self._sums is None:
            return 0
        return self._sums.guard[self._hi] - self._sums.guard[self._lo]

    def sent_delta(self) -> int:
        if not self or self._sums is None:
            return 0
        return self._sums.sent[self._hi] - self._sums.sent[self._lo]

    def guard_cuts(self) -> dict[int, AgentMessage]:
        if not self or self._sums is None:
            return {}
        sums = self._sums
        first = bisect_left(sums.cut_positions, self._lo)
        last = bisect_left(sums.cut_positions, self._hi)
        return {sums.candidates[sums.cut_positions[k]]: sums.cut_messages[k] for k in range(first, last)}

    def may_hold_media(self) -> bool:
        return bool(self) and self._sums is not None and bool(self._sums.media)

    def span(self) -> tuple[int, int]:
        """The first and last native index of the run (a non-empty one)."""
        return self._cleared[0], self._cleared[-1]


@dataclass(frozen=True, slots=True)
class _CleanedPart:
    """The stored messages a call sends cleaned: ``cleanable[:count]`` but the positions in ``skip`` (sent
    as a transform rewrote or cleared them)."""

    cleanup: HistoryCleanup
    count: int
    skip: Positions

    def get(self, index: int) -> AgentMessage | None:
        position = self.cleanup.position(index, self.count)
        if position is None or position in self.skip:
            return None
        return self.cleanup.cleaned_at(position)

    def __iter__(self) -> Iterator[int]:
        cleanable, skip = self.cleanup.cleanable, self.skip
        return (cleanable[k] for k in range(self.count) if k not in skip)

    def __len__(self) -> int:
        return self.count - len(self.skip)


class _SentView(Mapping[int, AgentMessage]):
    """Native index → message as sent: a few rewritten messages over a run of hard-cleared ones (and, in
    2026.7.1, the old stored messages history image cleanup changed).

    Built per call without visiting the run, so a call costs what it changed anew, not all it changes.
    """

    __slots__ = ("_small", "_run", "_cleaned", "_stripped")

    def __init__(
        self,
        small: dict[int, AgentMessage],
        run: _ClearedRun,
        cleaned: _CleanedPart | None = None,
        stripped: StrippedPart | None = None,
    ) -> None:
        self._small = small
        self._run = run
        self._cleaned = cleaned
        """2026.7.1's old stored messages sent cleaned, when the call cleaned any (none of them in the
        others)."""
        self._stripped = stripped
        """2026.7.1's assistants the transcript policy sent stripped, when it stripped any (assistants: none
        of them in the others)."""

    def __getitem__(self, index: int) -> AgentMessage:
        found = self._small.get(index)
        if found is not None:
            return found
        if index in self._run:
            return self._run.message(index)
        if self._cleaned is not None and (found := self._cleaned.get(index)) is not None:
            return found
        if self._stripped is not None and (found := self._stripped.get(index)) is not None:
            return found
        raise KeyError(index)

    def __iter__(self) -> Iterator[int]:
        yield from (i for i in self._run if i not in self._small)
        yield from self._small
        if self._cleaned is not None:
            yield from self._cleaned
        if self._stripped is not None:
            yield from self._stripped

    def __len__(self) -> int:
        cleaned = len(self._cleaned) if self._cleaned is not None else 0
        stripped = len(self._stripped) if self._stripped is not None else 0
        return len(self._run) + sum(1 for i in self._small if i not in self._run) + cleaned + stripped

    def __bool__(self) -> bool:
        # Whether anything changed, without counting (every record asks).
        return (
            bool(self._small)
            or bool(self._run)
            or (self._cleaned is not None and len(self._cleaned) > 0)
            or (self._stripped is not None and len(self._stripped) > 0)
        )


Layer = tuple[str, IndexSlice, Callable[[int], AgentMessage]]
"""``(name, window, message as sent at a native index)`` of a rewrite that stays once made, its window a
prefix of a list that only grows (:class:`~simulator.replay.sent_runs.SentLayer`)."""


def sent_parts(
    changed: Mapping[int, AgentMessage],
) -> (
    tuple[Mapping[int, AgentMessage], Sequence[int], Callable[[int], AgentMessage], str, tuple[Layer, ...]]
    | None
):
    """When ``changed`` is a fast call's view: its few rewritten messages, the run it hard-cleared, the
    cleared result at a native index of the run, the placeholder every cleared result holds, and the old
    stored messages history image cleanup cleaned and the assistants the transcript policy stripped, as
    layers (each under the others: a message rewritten or cleared is told so); else ``None``.

    A cleared result is a function of its native index and the placeholder alone (built once per index), so a
    reader may keep what it derives from one per index instead of asking again at every call; so is a cleaned
    message and a stripped assistant, and every later call cleans and strips at least as many.
    """
    if not isinstance(changed, _SentView):
        return None
    run, small = changed._run, changed._small
    layers: list[Layer] = []
    if (cleaned := changed._cleaned) is not None and cleaned.count:
        cleanup = cleaned.cleanup
        layers.append(
            ("cleaned", IndexSlice(cleanup.cleanable, 0, cleaned.count), partial(_cleaned, cleanup))
        )
    if (stripped := changed._stripped) is not None and stripped.count:
        strips = stripped.strips
        layers.append(
            ("stripped", IndexSlice(strips.thinking, 0, stripped.count), partial(_stripped, strips))
        )
    if not run or run._sums is None:
        return small, (), run.message, "", tuple(layers)
    return small, run._cleared, run.message, run._sums.placeholder, tuple(layers)


def _cleaned(cleanup: HistoryCleanup, index: int) -> AgentMessage:
    return cleanup.cleaned_at(bisect_left(cleanup.cleanable, index))


def _stripped(strips: ThinkingStrips, index: int) -> AgentMessage:
    return strips.message(bisect_left(strips.thinking, index))


@dataclass(slots=True)
class _PrunePass:
    """What the pruning hook did at one call: the gate's outcome, the pass, and what it sends changed."""

    gate: TtlGateOutcome | None
    view: FastPrune | None
    pruned: dict[int, AgentMessage]
    """Native index → the soft-trimmed (or image-replaced) result."""
    cleared: Sequence[int]
    """The run of hard-cleared candidates (native indices)."""
    sums: _ClearSums | None


class FastTransforms(_StartOnHistory):
    """The same outcomes as :class:`ReferenceTransforms`, from per-message facts where they decide."""

    def __init__(
        self,
        natives: Sequence[AgentMessage],
        chars: Sequence[int] | None = None,
        guard_chars: Sequence[int] | None = None,
        media_and_thinking: tuple[Sequence[int], Sequence[int]] | None = None,
        strips: Sequence[StripFacts | None] | None = None,
    ) -> None:
        self._natives = natives
        # Per-native facts when the caller made them once (prepared), else worked out here.
        self._chars = chars
        self._guard_chars = guard_chars
        media, thinking = media_and_thinking or media_and_thinking_of(natives)
        self._media = media
        self._thinking = thinking
        self._guards: dict[int, _GuardFacts] = {}
        self._pruners: dict[str, IncrementalPruner] = {}
        self._fed: dict[str, int] = {}
        self._memos: dict[str, PruneMemo] = {}
        self._cleared: dict[int, tuple[str, AgentMessage]] = {}
        self._sums: dict[tuple[str, int], _ClearSums] = {}
        self._sizes: dict[int, tuple[AgentMessage, int]] = {}
        self._guarded_memo: dict[tuple[int, int], tuple[AgentMessage, AgentMessage, int]] = {}
        self._setups = SetupMemo()
        self._touches = LastTouches()
        self._keys: dict[int, tuple[PruningRuntime, str, str]] = {}
        self._no_run = _ClearedRun((), None, self._cleared_by_index)
        """What a call that hard-cleared nothing hands its view (shared: it holds nothing)."""
        self._cleanup = HistoryCleanup(natives, media, self._stored_size)
        # What preparing read of each strip, when it read the same assistants this finds.
        self._strips = ThinkingStrips(natives, thinking, strips if media_and_thinking else None)

    def start(
        self,
        config: AttemptConfig,
        route: ModelRoute,
        markers: Sequence[CacheTtlMarker],
        state: AttemptState,
        version: OpenClawVersion,
        end: int,
    ) -> tuple[AttemptSetup, AttemptState]:
        """:func:`start_on_history`, the setup made once per route, the markers read once each."""
        setup = self._setups(config, route, version)
        if version != "2026.7.1":
            return begin_attempt(setup, markers, state, tuple(self._natives[:end]))
        # begin_attempt for 2026.7.1 (no projections to reconcile): the clock from the newest marker.
        touched = self._touches(markers, setup.route) if setup.pruning_active else None
        return setup, _attempt_state(_gate_state(touched), state.projections, state.compacted_through)

    def call(
        self, setup: AttemptSetup, state: AttemptState, now: float, end: int
    ) -> tuple[Outcome, AttemptState]:
        if setup.version != "2026.7.1":
            return reference_outcome(self._natives, setup, state, now, end)
        runtime = setup.pruning
        drops_estimate = runtime is not None and runtime.drop_thinking_blocks
        strips = self._strips.count(end) if setup.drop_thinking_blocks or drops_estimate else 0
        if strips is None:  # the latest assistant's content is not an array (rare)
            return reference_outcome(self._natives, setup, state, now, end)
        # What the transcript policy strips, and what the pruner's estimate sizes stripped (one route's
        # rule: the same strips).
        policy = strips if setup.drop_thinking_blocks else 0
        # The runtime's own gate; closed (most calls of a session), no pass runs and the state stays.
        gate = gate_closed(runtime.settings, state.clock, now) if runtime is not None else None
        if runtime is None or gate is not None:
            return self._unpruned(setup, gate, end, state.clock.last_cache_touch_at, policy), state
        before = state.clock.last_cache_touch_at
        extra = self._strips.delta(strips) if drops_estimate else 0
        passed, state = self._prune(setup, state, now, end, extra)
        run = _ClearedRun(passed.cleared, passed.sums, self._cleared_by_index)
        over, rewritten, overflow = self._context_guard(setup.guard_window_tokens, end, passed.pruned, run)
        if overflow:
            outcome = _outcome(
                True, passed.gate, passed.view, None, over, (), (), (), None, None, before, {}, None, None
            )
            return outcome, state
        media_before = bool(self._media) and self._media[0] < end
        needs_cleanup = (
            media_before or any(_may_hold_media(m) for m in passed.pruned.values()) or run.may_hold_media()
        )
        small = {**passed.pruned, **rewritten}
        sent = self._sent(small, run, end, needs_cleanup, policy)
        if sent is not None:
            images, stripped, changed, delta = sent
            ran, view = passed.gate, passed.view
            outcome = _outcome(
                False, ran, view, None, over, images, stripped, (), None, None, before, changed, delta, None
            )
            return outcome, state
        final = {**{i: run.message(i) for i in passed.cleared}, **passed.pruned, **rewritten}
        images, stripped, changed_all = self._cleanup_and_policy(final, end, needs_cleanup, policy > 0)
        outcome = _outcome(
            False,
            passed.gate,
            passed.view,
            None,
            over,
            images,
            stripped,
            (),
            None,
            None,
            before,
            changed_all,
            None,
            None,
        )
        return outcome, state

    def _sent(
        self, small: dict[int, AgentMessage], run: _ClearedRun, end: int, needs_cleanup: bool, policy: int
    ) -> tuple[Sequence[int], Sequence[int], _SentView, int] | None:
        """What the call sends after the guard: the few rewritten messages over the cleared run, cleaned
        (:meth:`_sent_cleaned`) when the cleanup may change something, and the first ``policy`` assistants
        with thinking stripped; which the cleanup changed, which the policy stripped, and the change of the
        estimate. ``None`` when the cleanup is left to :meth:`_cleanup_and_policy`."""
        if needs_cleanup:
            cleaned = self._sent_cleaned(small, run, end)
            if cleaned is None:
                return None
            images, view, delta = cleaned
        else:
            images = ()
            view, delta = self._sent_over_run(small, run)
        if not policy:
            return images, (), view, delta
        # No transform before the policy rewrites an assistant: the stripped ones join the view as they are.
        strips = self._strips
        view = _SentView(view._small, view._run, view._cleaned, StrippedPart(strips, policy))
        return images, SliceView(strips.thinking, 0, policy), view, delta + strips.delta(policy)

    def quiet_gate(
        self, setup: AttemptSetup, state: AttemptState, now: float, end: int
    ) -> tuple[TtlGateOutcome, bool, QuietChanges | None] | None:
        """What a call :meth:`call` answers with the state as it was holds, when only that call's record is
        wanted: 2026.7.1, pruning active, the gate closed (so no pass runs), no tool result over the guard's
        share (so the guard rewrites nothing), and the thinking the route drops countable (the latest
        assistant's content an array). Its gate's outcome; whether the context is over the guard's limit (a
        preemptive overflow: nothing is sent, nothing cleaned or stripped; most calls of a long session);
        else what history image cleanup and the transcript policy change, the only transforms left to run
        (``None``: nothing). Its outcome would hold no more: the record needs no more.

        ``None`` for any other call (nothing done: the caller asks :meth:`call`)."""
        runtime = setup.pruning
        if setup.version != "2026.7.1" or runtime is None:
            return None
        policy = self._strips.count(end) if setup.drop_thinking_blocks else 0
        if policy is None:  # :meth:`call` leaves it to the reference
            return None
        gate = gate_closed(runtime.settings, state.clock, now)
        if gate is None:
            return None
        facts = self._guards.get(setup.guard_window_tokens)
        if facts is None or len(facts.chars) <= end:
            facts = self._guard(setup.guard_window_tokens, end)
        over = facts.over
        if over and over[0] < end:
            return None
        if facts.chars[end] > facts.max_context:
            return gate, True, None
        return gate, False, self._cleaned_and_stripped(end, policy)

    def _cleaned_and_stripped(self, end: int, policy: int) -> QuietChanges | None:
        """What :meth:`_sent` changes over the stored messages alone (no transform before the cleanup
        rewrote one): the old ones history image cleanup changes, the first ``policy`` assistants with
        thinking stripped, the windows its outcome would hold and the sums of their size changes."""
        images: Sequence[int] = ()
        delta = 0
        if self._media and self._media[0] < end:
            cleanup = self._cleanup
            count = cleanup.upto(cleanup.cutoff(end))
            if count:
                images, delta = SliceView(cleanup.cleanable, 0, count), cleanup.delta_to(count)
        if not policy:
            return _quiet_changes(images, (), delta) if images else None
        strips = self._strips
        return _quiet_changes(images, SliceView(strips.thinking, 0, policy), delta + strips.delta(policy))

    def _unpruned(
        self, setup: AttemptSetup, gate: TtlGateOutcome | None, end: int, before: float | None, policy: int
    ) -> Outcome:
        """A call no pruning pass ran for: the guard's facts over the stored messages answer it (``policy``:
        how many assistants with thinking the transcript policy strips)."""
        facts = self._guards.get(setup.guard_window_tokens)
        if facts is None or len(facts.chars) <= end:
            facts = self._guard(setup.guard_window_tokens, end)
        over = facts.over
        cut = bisect_left(over, end) if over else 0
        guarded = tuple(over[:cut]) if cut else ()
        if facts.chars[end] > facts.max_context:  # a preemptive overflow: nothing is sent
            return _outcome(True, gate, None, None, guarded, (), (), (), None, None, before, {}, None, None)
        rewritten = {i: facts.rewritten[i] for i in guarded}
        needs_cleanup = bool(self._media) and self._media[0] < end
        sent = self._sent(rewritten, self._no_run, end, needs_cleanup, policy)
        delta: int | None = None
        changed: Mapping[int, AgentMessage]
        images: Sequence[int]
        stripped: Sequence[int]
        if sent is not None:
            images, stripped, changed, delta = sent
        else:
            images, stripped, changed = self._cleanup_and_policy(rewritten, end, needs_cleanup, policy > 0)
        # No pruning pass, no provider budget cut, no compaction: the guard's and the cleanup's changes alone.
        return _outcome(
            False, gate, None, None, guarded, images, stripped, (), None, None, before, changed, delta, None
        )

    def _prune(
        self, setup: AttemptSetup, state: AttemptState, now: float, end: int, extra: int
    ) -> tuple[_PrunePass, AttemptState]:
        """The pruning hook's pass, once the gate let it run (``gate_closed`` said no): the incremental
        pruner answers it (``on_context`` would run the reference pruner on the whole history); ``extra``
        is what its estimate's source adds to the stored sizes (the strips of a route that drops thinking)."""
        runtime = setup.pruning
        assert runtime is not None
        pruner, key = self._pruner(setup, end)
        view = pruner.prune(end, extra)
        passed = _PrunePass(None, view, {}, (), None)
        if view.changed:
            # What the pass sends, message by message as the pruner builds it (soft trims memoised per
            # message).
            memo = self._memo(runtime)
            for i in chain(view.soft_trimmed, view.images_replaced):
                message = self._natives[i]
                assert isinstance(message, ToolResultMessage)
                trimmed = memo.soft_trim(message, memo.settings)
                passed.pruned[i] = trimmed[0] if trimmed is not None else message
            # Hard clear takes a run of the oldest candidates: kept as a run, its sizes as sums.
            passed.cleared = view.hard_cleared
            passed.sums = self._clear_sums(
                key, pruner, setup.guard_window_tokens, memo.settings.hard_clear.placeholder
            )
        # The clock moves as the hook moves it (the runtime's own rule).
        decision, clock = after_pass(runtime.settings, state.clock, now, changed=view.changed)
        passed.gate = gate_outcome(decision, elapsed_since_touch(state.clock, now))
        if clock is state.clock:
            return passed, state
        return passed, _attempt_state(clock, state.projections, state.compacted_through)

    def _context_guard(
        self, window_tokens: int, end: int, pruned: Mapping[int, AgentMessage], run: _ClearedRun
    ) -> tuple[tuple[int, ...], dict[int, AgentMessage], bool]:
        """The tool-result context guard over the pruned context: which results it truncates, their
        rewrite, and whether the context is over the guard's share (a preemptive overflow)."""
        facts = self._guard(window_tokens, end)
        over = facts.over[: bisect_left(facts.over, end)]
        rewritten: dict[int, AgentMessage] = {
            i: facts.rewritten[i] for i in over if i not in pruned and i not in run
        }
        chars = facts.chars[end]
        if pruned or run:
            max_single = facts.max_single
            for i, message in pruned.items():
                chars -= facts.chars[i + 1] - facts.chars[i]
                cut, size = self._guarded(message, max_single)
                if cut is not message:
                    rewritten[i] = cut
                chars += size
            chars += run.guard_delta()
            rewritten.update(run.guard_cuts())
            over = sorted(rewritten)
        return tuple(over), rewritten, chars > facts.max_context

    def _guarded(self, message: AgentMessage, max_single: int) -> tuple[AgentMessage, int]:
        """A pruned message as the guard sends it (a tool result over the single-result share truncated) and
        its guard size, by identity and share: the pass's soft trims are the same objects pass after pass
        (memoised), and a long session's screenshots are soft-trimmed at every pass."""
        key = (id(message), max_single)
        hit = self._guarded_memo.get(key)
        if hit is None:
            cut = message
            if isinstance(message, ToolResultMessage):
                cut = guard_v1.truncate_tool_result_to_chars(message, max_single)
            # The entry keeps the message alive, so its id is not reused while kept.
            hit = self._guarded_memo[key] = (message, cut, guard_v1.guard_message_chars(cut))
        return hit[1], hit[2]

    def _sent_over_run(self, small: dict[int, AgentMessage], run: _ClearedRun) -> tuple[_SentView, int]:
        """What the call sends when no later transform runs: a few rewrites over the cleared run, and the
        change of the estimate they make, without visiting the run."""
        delta = run.sent_delta()
        for i, message in small.items():
            base = run.message(i) if i in run else self._natives[i]
            delta += self._size(message) - self._size(base)
        return _SentView(small, run), delta

    def _sent_cleaned(
        self, small: dict[int, AgentMessage], run: _ClearedRun, end: int
    ) -> tuple[Sequence[int], _SentView, int] | None:
        """What the call sends when history image cleanup is the last transform to run: the few rewritten
        messages (cleaned as rewritten when old), the cleared run, and the old stored messages the cleanup
        changes, each cleaned once (:class:`HistoryCleanup`); which it changed, and the change of the
        estimate. ``None`` when a cleared result may hold media (left to :meth:`_cleanup_and_policy`)."""
        cleanup = self._cleanup
        cutoff = cleanup.cutoff(end)
        count = cleanup.upto(cutoff)
        if run and run.may_hold_media() and run.span()[0] < cutoff:
            return None
        natives = self._natives
        skip: set[int] = set()  # positions in cleanable of rewritten messages (a cleared run's: _skipped)
        added: list[int] = []  # rewritten messages the cleanup changes
        sent = small
        for i, message in small.items():
            if i >= cutoff:
                continue
            position = cleanup.position(i, count)
            if position is not None:
                skip.add(position)
            cleaned = cleanup.clean(message)
            if cleaned is not message:
                if cleaned == natives[i]:
                    return None  # cleaned back to the stored message: not one the call changed
                if sent is small:
                    sent = dict(small)
                sent[i] = cleaned
                added.append(i)
        skipped, uncleaned = self._skipped(run, count, skip)
        view, delta = self._sent_over_run(sent, run)
        delta += cleanup.delta_to(count) - uncleaned
        view = _SentView(sent, run, _CleanedPart(cleanup, count, skipped)) if count else view
        if not (len(skipped) or added):
            return SliceView(cleanup.cleanable, 0, count), view, delta
        return CleanedIndexes(cleanup.cleanable, count, skipped, tuple(sorted(added))), view, delta

    def _skipped(self, run: _ClearedRun, count: int, few: set[int]) -> tuple[Positions, int]:
        """The positions in ``cleanable[:count]`` a call sends as another transform made them: ``few`` (the
        rewritten messages') and the hard-cleared run's, counted from prefix sums rather than visited (a long
        session's run holds many old screenshots); and Σ of what cleaning them would change."""
        cleanup = self._cleanup
        if not (run and count) or run._sums is None:
            return frozenset(few), sum(cleanup.delta(k) for k in few)
        first, last = run.span()
        cleanable = cleanup.cleanable
        lo, hi = bisect_left(cleanable, first, 0, count), bisect_left(cleanable, last + 1, 0, count)
        inside, deltas = self._cleanable_candidates(run._sums, hi)
        # Within the run's span, a cleanable message is the run's when it is a candidate.
        alone = [k for k in few if not (lo <= k < hi and cleanable[k] in run)]
        length = len(alone) + inside[hi] - inside[lo]
        uncleaned = sum(cleanup.delta(k) for k in alone) + deltas[hi] - deltas[lo]
        return SkippedPositions(frozenset(few), cleanable, lo, hi, run, length), uncleaned

    def _cleanable_candidates(self, sums: _ClearSums, hi: int) -> tuple[list[int], list[int]]:
        """Prefix sums over ``cleanable[:hi]`` of which are candidates, and of their cleanup's size change,
        grown as far as asked (a native's candidacy is its own: the pruner holds every native before the
        call's end, and the run is before it)."""
        cleanable, candidates, cleanup = self._cleanup.cleanable, sums.candidates, self._cleanup
        inside, deltas = sums.inside, sums.inside_delta
        while len(inside) <= hi:
            k = len(inside) - 1
            index = cleanable[k]
            position = bisect_left(candidates, index)
            member = position < len(candidates) and candidates[position] == index
            inside.append(inside[-1] + member)
            deltas.append((deltas[-1] + cleanup.delta(k)) if member else deltas[-1])
        return inside, deltas

    def _stored_size(self, index: int) -> int:
        """A native's estimate as stored."""
        return self._chars[index] if self._chars is not None else self._size(self._natives[index])

    def _cleanup_and_policy(
        self, final: Mapping[int, AgentMessage], end: int, needs_cleanup: bool, needs_policy: bool
    ) -> tuple[tuple[int, ...], tuple[int, ...], dict[int, AgentMessage]]:
        """History image cleanup and the transcript policy over the whole guarded context: what each changed,
        and every message sent differently from the stored one."""
        guarded: list[AgentMessage] = list(self._natives[:end])
        for i, message in final.items():
            guarded[i] = message
        history = tuple(guarded)
        cleaned = prune_processed_history_images(history) or history if needs_cleanup else history
        sent = drop_thinking_blocks(cleaned) if needs_policy else cleaned
        images = tuple(i for i in range(end) if cleaned[i] is not history[i] and cleaned[i] != history[i])
        policy = tuple(i for i in range(end) if sent[i] is not cleaned[i] and sent[i] != cleaned[i])
        changed_all = {
            i: sent[i] for i in range(end) if sent[i] is not self._natives[i] and sent[i] != self._natives[i]
        }
        return images, policy, changed_all

    def _size(self, message: AgentMessage) -> int:
        """The estimate of a message, by identity (the same rewritten object is sent call after call)."""
        hit = self._sizes.get(id(message))
        if hit is None:
            # The entry keeps the message alive, so its id is not reused while cached.
            hit = (message, estimate_message_chars(message))
            self._sizes[id(message)] = hit
        return hit[1]

    def _clear_sums(
        self, key: str, pruner: IncrementalPruner, window_tokens: int, placeholder: str
    ) -> _ClearSums:
        """Prefix sums over the pruner's candidates of what clearing each one changes, grown as they grow."""
        sums = self._sums.get((key, window_tokens))
        if sums is None:
            sums = _ClearSums(pruner.candidates, placeholder, [0], [0], [], [], None)
            self._sums[(key, window_tokens)] = sums
        if len(sums.guard) > len(pruner.candidates):
            return sums
        facts = self._guard(window_tokens, pruner.candidates[-1] + 1)
        max_single = facts.max_single
        while len(sums.guard) <= len(pruner.candidates):
            position = len(sums.guard) - 1
            i = pruner.candidates[position]
            native = self._natives[i]
            assert isinstance(native, ToolResultMessage)
            stored = facts.chars[i + 1] - facts.chars[i]
            if sums.unit is not None:
                # Every cleared result has the same content, so the same sizes (and no cut).
                guard, sent = sums.unit
                native_size = self._chars[i] if self._chars is not None else self._size(native)
                sums.guard.append(sums.guard[-1] + guard - stored)
                sums.sent.append(sums.sent[-1] + sent - native_size)
                continue
            message = self._cleared_at(i, native, placeholder)
            assert isinstance(message, ToolResultMessage)
            if sums.media is None:
                sums.media = _may_hold_media(message)
            cut = guard_v1.truncate_tool_result_to_chars(message, max_single)
            if cut is not message:
                sums.cut_positions.append(position)
                sums.cut_messages.append(cut)
            else:
                # Sizes and the guard's verdict depend on a result's content alone (the placeholder).
                sums.unit = (guard_v1.guard_message_chars(message), self._size(message))
            sums.guard.append(sums.guard[-1] + guard_v1.guard_message_chars(cut) - stored)
            sums.sent.append(sums.sent[-1] + self._size(message) - self._size(native))
        return sums

    def _cleared_by_index(self, index: int, placeholder: str) -> AgentMessage:
        message = self._natives[index]
        assert isinstance(message, ToolResultMessage)
        return self._cleared_at(index, message, placeholder)

    def _cleared_at(self, index: int, message: ToolResultMessage, placeholder: str) -> AgentMessage:
        """The cleared result of one message, built once: the same object every call (sizes memoised)."""
        hit = self._cleared.get(index)
        if hit is None or hit[0] != placeholder:
            hit = (placeholder, cleared_tool_result(message, placeholder))
            self._cleared[index] = hit
        return hit[1]

    def _settings_keys(self, runtime: PruningRuntime) -> tuple[str, str]:
        """The settings' text, and with the window the pruner's key, by identity (attempts of one route
        share their runtime: its repr was made at every call)."""
        hit = self._keys.get(id(runtime))
        if hit is None:
            # The entry keeps the runtime alive, so its id is not reused while cached.
            text = repr(runtime.settings)
            hit = (runtime, text, f"{text}|{runtime.context_window_tokens}")
            self._keys[id(runtime)] = hit
        return hit[1], hit[2]

    def _memo(self, runtime: PruningRuntime) -> PruneMemo:
        """One memo per equal settings value (each route's runtime has its own settings object)."""
        key = self._settings_keys(runtime)[0]
        found = self._memos.get(key)
        if found is None:
            found = PruneMemo(runtime.settings)
            self._memos[key] = found
        return found

    def _pruner(self, setup: AttemptSetup, end: int) -> tuple[IncrementalPruner, str]:
        runtime = setup.pruning
        assert runtime is not None
        # Equal settings share one pruner (it only grows).
        key = self._settings_keys(runtime)[1]
        pruner = self._pruners.get(key)
        if pruner is None:
            window = float(setup.route.context_window) if setup.route.context_window else None
            pruner = IncrementalPruner(
                runtime.settings,
                context_window=window,
                context_window_tokens_override=runtime.context_window_tokens,
                sizes=self._chars,
            )
            self._pruners[key] = pruner
            self._fed[key] = 0
        fed = self._fed[key]
        if fed < end:
            # Fed ahead, up to twice what it held: the pruner answers any prefix of what it holds, and a
            # long session's passes then grow it a few times instead of at every pass (each growth has its
            # fixed costs), while a replay that prunes early only never grows it past twice its need.
            target = min(len(self._natives), max(end, 2 * fed))
            pruner.extend(self._natives[fed:target])
            self._fed[key] = target
        return pruner, key

    def _guard(self, window_tokens: int, end: int) -> _GuardFacts:
        facts = self._guards.get(window_tokens)
        if facts is None:
            max_single, max_context = guard_v1.guard_limits(window_tokens)
            facts = _GuardFacts(max_context, [], {}, [0], max_single)
            self._guards[window_tokens] = facts
        chars = facts.chars
        if len(chars) > end:
            return facts
        natives, sizes, max_single = self._natives, self._guard_chars, facts.max_single
        if sizes is not None:
            # Every message at once (one's facts do not depend on the others'): the sizes summed in C, only
            # the tool results over the share visited (the guard leaves one within it alone, unbuilt).
            start = len(chars) - 1
            grown = list(sizes[start:])
            # The positions over the share, picked in C (size > max_single).
            for k in list(compress(range(len(grown)), map(lt, repeat(max_single), grown))):
                message = natives[start + k]
                if isinstance(message, ToolResultMessage):
                    rewritten = guard_v1.truncate_tool_result_to_chars(message, max_single)
                    if rewritten is not message:
                        facts.over.append(start + k)
                        facts.rewritten[start + k] = rewritten
                        grown[k] = guard_v1.guard_message_chars(rewritten)
            chars.extend(islice(accumulate(grown, initial=chars[-1]), 1, None))
            return facts
        while len(chars) <= end:  # no sizes given: each message sized as it comes
            i = len(chars) - 1
            message = natives[i]
            if isinstance(message, ToolResultMessage):
                rewritten = guard_v1.truncate_tool_result_to_chars(message, max_single)
                if rewritten is not message:
                    facts.over.append(i)
                    facts.rewritten[i] = rewritten
                    message = rewritten
            chars.append(chars[-1] + guard_v1.guard_message_chars(message))
        return facts
