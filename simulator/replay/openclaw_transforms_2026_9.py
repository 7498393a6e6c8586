"""OpenClaw 2026.9.6's per-call transforms over a replayed session, from per-message facts and running sums.

:func:`~simulator.replay.openclaw_transforms.reference_outcome` runs every 2026.9.6 transform over the
call's whole history (image cleanup twice, the cache-TTL projection, the guard, the provider budget, the
transcript policy, the compaction estimate), and ``start_attempt`` reconciles the projections with the
whole history: quadratic over a session. :class:`FastTransforms2026_9` gives equal outcomes and states,
a call costing what changes at it (plus log n):

* the history only grows, its messages the same objects call after call: each message's facts (projection
  key, tool-result text budget, guard size: :mod:`openclaw_facts_2026_9`; ``cacheTtlMessageChars`` and soft
  trims once a pass needs them) are worked out once;
* the session's sticky rewrites (projections replayed, this call's soft trims, hard clears and provider
  budget cuts) are kept per position as stamped versions (:class:`~simulator.replay.openclaw_views.Versions`)
  with Fenwick sums of what each changes (estimate, text budget, guard size), so the cache-TTL ratio, the
  hard clear's eligible sum, the budget's aggregate and the compaction estimate are range sums;
* the projection state is a :class:`~simulator.runtimes.openclaw.v2026_9_6.cache_ttl.ProjectionLog`
  prefix (one per call, read only when asked), the context, ``replayed`` and ``changed`` lazy views;
* reconciling at an attempt's start keeps every key: in the states this path makes, every key's
  recorded source is its stored message's texts;
* a call no transform changes anything at but the two below (the cache still warm or cleared by the
  server, nothing over the guard's share or the per-result cap, the aggregate cutting nothing outside the
  trailing batch: most calls of a long session) is answered by :meth:`FastTransforms2026_9._quiet` from
  the lists and sums alone, its checks made once per attempt setup; any other call runs the pipeline;
  when only the record is wanted, :meth:`FastTransforms2026_9.quiet_state` answers such a call with its
  state while nothing was ever rewritten, and :meth:`FastTransforms2026_9.kept_call` one whose only
  changes are the two below (kept from earlier calls or made at it) with what they change
  (:class:`KeptChanges`), neither building the outcome's views;
* history image cleanup's first pass is applied as the turns come of age: its cutoff (completed turns counted
  as messages arrive) only moves forward, so a message it changes is sent cleaned from that call on (a
  stamped version, its sums moved once), every later stage works from the cleaned message, and a
  projection recorded from the stored texts no longer replays onto it (its source texts differ), as in
  the runtime; the second pass (after the guard) is checked, its change being rare;
* the transcript policy of a route that drops thinking strips every assistant but the latest: an assistant
  is stripped from the call a newer one arrives on (kept in a store of its own, since the cache-TTL pass's
  context keeps the thinking while its ratio and the compaction's estimate count it stripped).

It falls back to the reference for a call (``fallback_reasons`` counts why), and re-reads the state the
reference left at the next call (one pass over the session; an attempt's start after a fallback
reconciles with the reference too), when:

* ``media``: the second image cleanup would change a rewrite (a projection holding a media reference), or a
  cleaned message would be sent as stored again (a history shorter than the last call's);
* ``media-source``: a tool result is sent for the first time already cleaned (its recorded source would
  be the cleaned texts: a replay's first call over a long history);
* ``thinking``: a stripped assistant would be sent whole again (a route that keeps thinking after one that
  dropped it), or the latest assistant's content is not an array;
* ``history``: two tool results so far share a projection key, or one has none (a 2026.7.1 setup too);
* ``guard``: the guard would cut a tool result of this call (one over the single-result share);
* ``aggregate``: the provider budget's aggregate would cut a result (the results' sum over its budget with
  a result not yet sent outside the trailing batch);
* ``replay``: a projection recorded at this call would not replay onto its message later (an ordinary
  projection whose text blocks no longer line up);
* ``state-*``: the state handed in (the first call's, or one the reference made) has a source that is not
  its message's stored texts (a guard-cut or image-cleaned result recorded while cache-TTL was off), a key
  with no message, or a projection that does not replay;
* ``config``: a second attempt config in one replay (a replay has one).

Each is rare in a long session (the benchmark's sessions never fall back, with old images or stripped
thinking neither); of the session vectors' 982 calls, 297 fall back (250 for guard cuts of small
windows), down from 601 when old images and stripped thinking were left to the reference.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right, insort
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import msgspec
from mypy_extensions import mypyc_attr

from simulator.replay.model import slot_builder
from simulator.replay.openclaw_attempt_memos import LastTouches, SetupMemo
from simulator.replay.openclaw_facts_2026_9 import (
    CleanedWeights,
    SessionFacts,
    StoredFacts,
    Weights,
    weights_typed_or_of,
)
from simulator.replay.openclaw_stores import Fenwick, StrippedStore, Versions, left_from
from simulator.replay.openclaw_transforms import Outcome, reference_outcome
from simulator.replay.openclaw_views import ChangedView, ContextView, PositionsView, SliceView
from simulator.runtimes.openclaw.attempt import (
    AttemptConfig,
    AttemptSetup,
    AttemptState,
    CacheTtlMarker,
    CompactionPoint,
    begin_attempt,
)
from simulator.runtimes.openclaw.context_guard import guard_limits
from simulator.runtimes.openclaw.estimate import (
    OMITTED_ASSISTANT_REASONING_TEXT,
    StripFacts,
    estimate_message_chars,
    strip_change,
    strip_thinking,
)
from simulator.runtimes.openclaw.image_prune import cleanup_changes
from simulator.runtimes.openclaw.messages import (
    TYPED_KEPT_BLOCKS,
    TYPED_THINKING_BLOCKS,
    AgentMessage,
    AssistantMessage,
    ContentBlock,
    ThinkingContent,
    ToolResultMessage,
    text_block,
)
from simulator.runtimes.openclaw.route import ModelRoute, OpenClawVersion
from simulator.runtimes.openclaw.ttl_gate import TtlGateState
from simulator.runtimes.openclaw.v2026_9_6 import cache_ttl, compaction, provider_budget
from simulator.runtimes.openclaw.v2026_9_6.cache_ttl import (
    CacheTtlOutcome,
    Mode,
    Projection,
    ProjectionLog,
    ProjectionState,
    merge_projection,
    message_chars,
    projection_of,
    soft_prune,
    source_texts,
)
from simulator.runtimes.openclaw.v2026_9_6.context_guard import guard_message_chars
from simulator.runtimes.openclaw.v2026_9_6.tool_result_text import (
    MIN_KEEP_CHARS,
    truncate_tool_result_message,
)

_NONE: tuple[Sequence[int], Sequence[int]] = ((), ())
_fast_outcome = slot_builder(Outcome)
"""``Outcome(...)`` positionally, and the others below: one or more per call (see :func:`slot_builder`)."""
_cache_ttl_outcome = slot_builder(CacheTtlOutcome)
_attempt_state = slot_builder(AttemptState)
Clock = int | float
"""A time in milliseconds as the call plan gives it (a transcript's whole milliseconds an int): kept as it
came, as in Python, where a compiled ``float`` would turn an int into a float (and the state's clock with
it)."""
_gate_state = slot_builder(TtlGateState)


def _reaches(positions: list[int], lo: int, end: int) -> bool:
    """Whether an ascending list holds a position in ``[lo, end)``."""
    if not positions or positions[-1] < lo:
        return False  # the usual answer, without a search
    k = bisect_left(positions, lo)
    return k < len(positions) and positions[k] < end


def _plain_thinking_chars(blocks: Sequence[ContentBlock]) -> int:
    """What the thinking blocks weigh to ``cacheTtlMessageChars`` and to the estimate alike when each is a
    plain block of ASCII thinking and signature (each is their length then), else -1."""
    total = 0
    for block in blocks:
        if type(block) is not ThinkingContent or block.extra:
            return -1
        text, signature = block.thinking, block.thinking_signature
        if type(text) is not str or not text.isascii():
            return -1
        if signature is not None:
            if type(signature) is not str or not signature.isascii():
                return -1
            total += len(signature)
        total += len(text)
    return total


def strip_typed(
    message: AssistantMessage,
) -> tuple[AssistantMessage, tuple[ContentBlock, ...], tuple[ContentBlock, ...]] | None:
    """:func:`strip_thinking` of an assistant and what it took away and put in (:func:`strip_change`), read
    from the blocks' classes when every block holds only its own fields (so its JSON type is its class's),
    else ``None``. The strip of every older assistant of a session on a route that drops thinking: the
    reference functions make each block JSON to ask its type."""
    content = message.content
    if type(content) is not tuple:
        return None
    kept: list[ContentBlock] = []
    removed: list[ContentBlock] = []
    for block in content:
        kind = type(block)
        if kind in TYPED_KEPT_BLOCKS and not block.extra:  # type: ignore[union-attr]
            kept.append(block)
        elif kind in TYPED_THINKING_BLOCKS and not block.extra:  # type: ignore[union-attr]
            removed.append(block)
        else:
            return None  # an extra field may name another type: the reference functions answer
    if not removed:
        return message, (), ()
    notice: tuple[ContentBlock, ...] = () if kept else (text_block(OMITTED_ASSISTANT_REASONING_TEXT),)
    return AssistantMessage(tuple(kept) or notice, message.extra), tuple(removed), notice


def strip_sizes_typed(message: AssistantMessage) -> tuple[int, bool] | None:
    """What :func:`strip_typed` takes away from an assistant and whether it puts the omission notice in,
    read without making the stripped message: the size of its thinking (``_plain_thinking_chars``: plain
    ASCII thinking weighs its length to both sizes) and whether no block is kept. ``None`` when a block
    holds a field of its own or has no class, the thinking is not plain, or there is none (the general
    strip in :meth:`FastTransforms2026_9._strip_one` answers)."""
    content = message.content
    if type(content) is not tuple:
        return None
    gone = 0
    kept = thinking = False
    for block in content:
        kind = type(block)
        if kind in TYPED_KEPT_BLOCKS and not block.extra:  # type: ignore[union-attr]
            kept = True
        elif kind is ThinkingContent and not block.extra:  # type: ignore[union-attr]
            text, signature = block.thinking, block.thinking_signature  # type: ignore[union-attr]
            if type(text) is not str or not text.isascii():
                return None
            if signature is not None:
                if type(signature) is not str or not signature.isascii():
                    return None
                gone += len(signature)
            gone += len(text)
            thinking = True
        else:
            return None  # redacted thinking, an extra field, a block of no class: the general strip
    return (gone, not kept) if thinking else None


def _stripped(message: AgentMessage) -> AgentMessage:
    """The message :func:`strip_typed` sends for an assistant :func:`strip_sizes_typed` sized (made when a
    view first reads it)."""
    assert isinstance(message, AssistantMessage)
    typed = strip_typed(message)
    assert typed is not None  # every block of its own class, no extra field (strip_sizes_typed's test)
    return typed[0]


@lru_cache(maxsize=1)
def _notice_sizes() -> tuple[int, int]:
    """``cacheTtlMessageChars`` and the estimate of the omission notice an assistant left with no block of
    its own is sent with."""
    came = AssistantMessage((text_block(OMITTED_ASSISTANT_REASONING_TEXT),), ())
    return message_chars(came), estimate_message_chars(came)


class _Fallback(Exception):
    """This call is one the fast path leaves to the reference (raised before anything is changed)."""


def _message_text(message: AgentMessage) -> str:
    from simulator.replay.openclaw import message_text  # the record builder's own reading of a text

    return message_text(message)


@dataclass(slots=True)
class _Window:
    """Per guard window: stored results over the single-result share, and over the cap not yet rewritten."""

    max_single: int
    cap: int
    aggregate: int
    over_single: list[int] = field(default_factory=list)
    over_cap: list[int] = field(default_factory=list)
    fed: int = 0
    """How many of the session's tool results the lists cover."""
    covered: int = 0
    """The lists cover the tool results below this position."""


_NEVER = 1 << 62
"""A stamp no call reaches."""


@dataclass(frozen=True, slots=True)
class _Replayed:
    """Whether a position's projection was replayed at a call: recorded at an earlier one (``starts``), in
    the call's window, and not stopped by history image cleanup before it (``stops``)."""

    versions: Versions
    starts: dict[int, int]
    stops: dict[int, int]
    lo: int
    end: int
    seq: int

    def __call__(self, position: int) -> bool:
        return self.lo <= position < self.end and self.starts.get(
            position, _NEVER
        ) < self.seq < self.stops.get(position, _NEVER)


_replayed = slot_builder(_Replayed)


@dataclass(frozen=True, slots=True)
class _Sticky:
    """Of the replayed positions, those sent as the placeholder (``cleared``) or as anything else."""

    replayed: _Replayed
    seq: int
    placeholder: str
    cleared: bool

    def __call__(self, position: int) -> bool:
        if not self.replayed(position):
            return False
        message = self.replayed.versions.at(position, self.seq)
        return (message is not None and _message_text(message) == self.placeholder) == self.cleared


@dataclass(slots=True)
class _Plan:
    """One call's changes, worked out before anything is committed."""

    sources: list[int] = field(default_factory=list)
    stage1: dict[int, ToolResultMessage] = field(default_factory=dict)
    records1: list[tuple[int, Mode | None, ToolResultMessage]] = field(default_factory=list)
    soft: list[int] = field(default_factory=list)
    hard: list[int] = field(default_factory=list)
    stage2: dict[int, ToolResultMessage] = field(default_factory=dict)
    records2: list[tuple[int, Mode | None, ToolResultMessage]] = field(default_factory=list)
    merged: dict[int, AgentMessage] = field(default_factory=dict)
    reverts: set[int] = field(default_factory=set)
    """Of ``merged``, the cleaned positions whose projection does not replay: sent cleaned again."""
    ratio: float | None = None
    pruned: bool = False


_AHEAD = 512
"""How far past a call's history the per-result facts of the config and windows are grown at once."""
UNCHANGED = ChangedView(Versions(), 0, 0, 0, 0)
"""What a call that changed nothing hands out (every replay's: it holds nothing, now or later)."""
_QUIET = _Plan()
"""The plan of a call that changes nothing (never written to)."""


@dataclass(frozen=True, slots=True)
class KeptChanges:
    """What a call sends changed when its only changes are history image cleanup's and the transcript
    policy's (:meth:`FastTransforms2026_9.kept_call`): all its record and its on-demand view read."""

    images: Sequence[int]
    """The messages sent cleaned (the outcome's ``images``: every one cleaned so far, in the context)."""
    policy: Sequence[int]
    """The assistants sent without their thinking (the outcome's ``policy``)."""
    changed: ChangedView
    """Position → message as sent, for every message changed (the outcome's ``changed``)."""
    sent_delta: int
    """Σ over ``changed`` of (estimated chars as sent − as stored) (the outcome's ``sent_delta``)."""


_kept_changes = slot_builder(KeptChanges)
_Ready = tuple[tuple[Sequence[int], Sequence[int]], ProjectionState | None, ProjectionState]
"""What :meth:`FastTransforms2026_9._quiet_ready` gives: the messages cleaned and the assistants stripped,
the state after the pass (``None`` for a kept answer) and the state after the call."""


# Compiled (simulator/replay/compiled.py), still a class the tests subclass to check each answer.
@mypyc_attr(allow_interpreted_subclasses=True)
class FastTransforms2026_9:
    """The same outcomes and states as :class:`ReferenceTransforms` for 2026.9.6, per call in O(change)."""

    def __init__(
        self,
        natives: Sequence[AgentMessage],
        media_and_thinking: tuple[Sequence[int], Sequence[int]],
        chars: Sequence[int] | None = None,
        strips: Sequence[StripFacts | None] | None = None,
        kept: list[SessionFacts] | None = None,
    ) -> None:
        self._natives = natives
        self._n = StoredFacts(natives, media_and_thinking[0], chars, kept)
        self._thinking = media_and_thinking[1]
        """The assistants holding thinking the transcript policy strips, ascending."""
        self._strip_facts = strips
        """Per assistant of ``_thinking``, what preparing read of its strip (``None``: read here)."""
        self.fallbacks = 0
        """Calls answered by the reference (the tests count them)."""
        self.fallback_reasons: dict[str, int] = {}
        self.calls = 0
        self.quiet_calls = 0
        """Calls answered by :meth:`_quiet` (nothing changed; the tests count them)."""
        self._state: ProjectionState | None = None
        self._setups = SetupMemo()
        self._ready_setup: AttemptSetup | None = None
        """The setup the ``_ready_*`` facts below are of (:meth:`_ready_for`)."""
        self._ready_settings: cache_ttl.CacheTtlSettings | None = None
        self._ready_runs = False
        self._ready_ttl = 0.0
        self._ready_applies = False
        self._ready_tokens = 0
        self._ready_window: _Window | None = None
        """The guard window of ``_ready_tokens`` (the mirrors' own: dropped with them in :meth:`_reset`)."""
        self._ready_compaction = False
        self._touches = LastTouches()
        self._ready_drops = False
        self._last_cleaning = (-1, 0, 0, 0, 0)
        """``(lo, end, k0, k1, until)`` of the last :meth:`_cleaning` (facts of the session, not of the
        mirrors): the same ``(k0, k1)`` hold for every history end from ``end`` to ``until``."""
        self._last_images: tuple[int, int, Sequence[int]] = (0, 0, ())
        """``(k0, k1, view)`` of the last :meth:`_images` (its view handed out again while they hold)."""
        self._last_stripping = (-1, 0, False, 0, 0)
        """``(lo, end, drops, t0, t1)`` of the last :meth:`_stripping` (facts of the session too)."""
        self._assistant_hint = 0
        """Where :meth:`_stripping`'s bisection of the assistants found its answer last (:func:`left_from`;
        those of the thinking start from ``_last_stripping``'s)."""
        self._reset()

    # -- what the state says, mirrored ------------------------------------------------------------------

    def _reset(self) -> None:
        """Fresh mirrors (views made before keep the old ones: they are never cleared, only dropped)."""
        n = len(self._natives)
        self._log = ProjectionLog(ProjectionState())
        self._projections: dict[str, Projection] = {}
        self._sources: set[str] = set()
        self._frozen: set[str] = set()
        self._versions = Versions()
        self._current: dict[int, tuple[AgentMessage, Weights, int, bool]] = {}
        """Position → (its rewrite now, the rewrite's facts, its estimate or -1 when it equals the stored
        message, whether its text is the hard-clear placeholder), for every rewritten position."""
        self._pending: dict[int, AgentMessage] = {}
        """Position → what its projection replays as from the next call on."""
        self._pending_reverts: set[int] = set()
        """Of ``_pending``, the cleaned positions sent cleaned again (their projection does not replay)."""
        self._replay_from: dict[int, int] = {}
        """Position → the stamp its projection was recorded at (it replays at every later call)..."""
        self._replay_until: dict[int, int] = {}
        """... up to the call that cleaned its message (a projection made from the stored texts stops)."""
        self._cleaned: dict[int, AgentMessage] = {}
        """Position → its message as history image cleanup sends it, for every position cleaned so far."""
        self._unlayered: list[int] = []
        """Every position ever sent as something else than its cleaned message (a projection, a cut, a
        revert), ascending: a view tells the cleaned messages as one layer and reads only these one by one
        (:meth:`ChangedView.apart_from_cleaned`)."""
        self._unlayered_seen: set[int] = set()
        self._clean_k = 0
        """The cleanup has cleaned ``cleanable[:_clean_k]`` (those inside the context)."""
        self._strip_k = 0
        """The transcript policy has stripped ``thinking[:_strip_k]`` (those inside the context)."""
        self._strips = StrippedStore(self._natives, _stripped)
        """The stripped assistants, stamped at the stream (``changed`` reads them; the cache-TTL pass's
        context, which keeps their thinking, does not)."""
        self._sum_mc = Fenwick(n)
        self._sum_tb = Fenwick(n)
        self._sum_tbn = Fenwick(n)
        self._sum_est = Fenwick(n)
        self._sum_changed = Fenwick(n)
        self._sum_placeholder = Fenwick(n)
        self._sum_replayed = Fenwick(n)
        self._sum_eligible = Fenwick(n)
        self._windows: dict[int, _Window] = {}
        self._ready_window = None
        """Per guard window (the lists drop results once rewritten, so they belong to the mirrors)."""
        self._dirty: list[int] = []
        """Positions whose rewrite history image cleanup would change (the second cleanup), ascending."""
        self._big_guard: list[tuple[int, int]] = []
        self._big_tb: list[tuple[int, int]] = []
        self._unsourced: list[int] = []
        self._unfrozen: list[int] = []
        self._config: AttemptConfig | None = None
        self._settings: cache_ttl.CacheTtlSettings | None = None
        self._placeholder = ""
        self._prunable: set[int] = set()
        self._configured = 0
        """How many tool results ``_prunable`` and ``_not_hard`` cover (those below ``_config_end``)."""
        self._config_end = 0
        self._tool_prunable: dict[str, bool] = {}
        self._soft_todo: list[int] = []
        self._not_hard: list[int] = []
        self._pass_fed = 0
        self._ready: AttemptSetup | None = None
        """The setup whose calls passed :meth:`_checked`'s checks (up to history end ``_ready_end``)."""
        self._ready_end = -1
        self._state_events = 0
        """How many events of ``_log`` the state ``_state`` holds."""
        self._fed = 0
        """The mirrors hold the keys of ``natives[:_fed]``."""
        self._keyed_at = 0
        self._feed_due = -1
        """:meth:`_feed` has nothing to do for a history end up to this (-1: not known)."""
        """How many of the facts' keyed positions are below ``_fed``."""
        self._state = None

    # -- the protocol ------------------------------------------------------------------------------------

    def start(
        self,
        config: AttemptConfig,
        route: ModelRoute,
        markers: Sequence[CacheTtlMarker],
        state: AttemptState,
        version: OpenClawVersion,
        end: int,
    ) -> tuple[AttemptSetup, AttemptState]:
        """``start_attempt`` (the setup made once per route); a state this path made reconciles to itself
        (every source matches)."""

        setup = self._setups(config, route, version)
        if state.projections is self._state and self._state is not None:
            # begin_attempt's state, its projections reconciled to themselves (an attempt a call).
            touched = self._touches(markers, setup.route) if setup.pruning_active else None
            return setup, _attempt_state(_gate_state(touched), state.projections, state.compacted_through)

        def reconcile(projections: ProjectionState) -> ProjectionState:
            if projections is self._state and self._state is not None:
                return projections
            return cache_ttl.reconcile_projections(tuple(self._natives[:end]), projections)

        return begin_attempt(setup, markers, state, reconcile=reconcile)

    def call(
        self, setup: AttemptSetup, state: AttemptState, now: Clock, end: int
    ) -> tuple[Outcome, AttemptState]:
        self.calls += 1
        if end > self._fed:
            if end <= self._feed_due:
                self._fed = end  # nothing new to mirror (every other call of a tool-using session)
            else:
                self._feed(end)
        if setup is self._ready and end <= self._ready_end and state.projections is self._state:
            # The checks below passed for this setup, and the state is this path's own (most calls).
            quiet = self._quiet(setup, state, now, end)
            if quiet is not None:
                self.quiet_calls += 1
                return quiet
            return self._checked(setup, state, now, end, ready=True)
        return self._checked(setup, state, now, end, ready=False)

    def _checked(
        self, setup: AttemptSetup, state: AttemptState, now: Clock, end: int, *, ready: bool
    ) -> tuple[Outcome, AttemptState]:
        """The call through the pipeline, or the reference when the fast path leaves it to it; ``ready``:
        :meth:`_quiet` was asked already (the checks hold)."""
        try:
            if not ready:
                limit = self._limit(setup)
                if end > limit:
                    raise _Fallback("history")
                if state.projections is not self._state:
                    self._resync(state.projections, setup.config, end)
                self._configure(setup.config)
                self._ready, self._ready_end = setup, limit
                quiet = self._quiet(setup, state, now, end)
                if quiet is not None:
                    self.quiet_calls += 1
                    return quiet
            return self._call(setup, state, now, end)
        except _Fallback as fallback:
            self.fallbacks += 1
            reason = str(fallback)
            self.fallback_reasons[reason] = self.fallback_reasons.get(reason, 0) + 1
            self._state = None
            return reference_outcome(self._natives, setup, state, now, end)

    def _limit(self, setup: AttemptSetup) -> int:
        """The last history end this setup's calls may be answered for here: below the first tool result
        with a missing or repeated key (-1 for a 2026.7.1 setup)."""
        if setup.version == "2026.7.1":
            return -1
        self._n.feed(len(self._natives))  # the first bad key is known once the facts are
        return self._n.first_bad

    # -- facts ---------------------------------------------------------------------------------------------

    def _feed(self, end: int) -> None:
        """The session's facts (the first call works them out), and the messages new to this call in the
        mirrors (every key is sourced and frozen at the first call that sends it)."""
        if self._fed >= end:
            return
        if self._n.fed < end:
            self._n.feed(end)
        keyed, k = self._n.keyed, self._keyed_at
        if k < len(keyed) and keyed[k] < end:
            if k + 1 == len(keyed) or keyed[k + 1] >= end:
                # One new result (a call's history grows by a message or two): no slice to make.
                self._unsourced.append(keyed[k])
                self._unfrozen.append(keyed[k])
                k += 1
            else:
                stop = bisect_left(keyed, end, k)
                new = keyed[k:stop]
                self._unsourced += new
                self._unfrozen += new
                k = stop
            self._keyed_at = k
        self._fed = end
        if self._config is not None and end > self._config_end:
            self._config_to(end)
        # Up to which history end a call finds nothing new here: no new keyed result, facts and
        # config facts that cover it (:meth:`call` then only moves ``_fed``).
        last = len(self._natives)
        self._feed_due = min(
            keyed[k] if k < len(keyed) else last,
            self._config_end if self._config is not None else last,
            self._n.fed,
        )

    def _new_results(self, fed: int, end: int) -> tuple[list[int], int, int]:
        """The tool results from the ``fed``-th one on below ``end`` + :data:`_AHEAD`, how many results are
        below that bound, and the bound.

        Per-result facts of the config and the windows are grown ahead of the calls, a stretch at a time:
        a result past a call's history is never read by it (each reader bounds its search by the call's
        end) and has no projection yet (its key is its own), so its facts are those it will have."""
        bound = end + _AHEAD
        results = self._n.result_positions
        if fed >= len(results) or results[fed] >= bound:
            return [], fed, bound
        stop = bisect_left(results, bound, fed)
        return results[fed:stop], stop, bound

    def _window(self, tokens: int) -> _Window:
        found = self._windows.get(tokens)
        if found is None:
            cap = max(1, provider_budget.live_tool_result_max_chars(tokens))
            found = _Window(
                guard_limits(tokens)[0], cap, max(1, provider_budget.aggregate_max_chars(tokens, cap))
            )
            self._windows[tokens] = found
        elif found.covered >= self._fed:
            return found
        new, found.fed, found.covered = self._new_results(found.fed, self._fed)
        if new:
            guard_own, tb_own = self._n.guard_own, self._n.tb_own
            max_single, cap = found.max_single, found.cap
            found.over_single += [i for i in new if guard_own[i] > max_single]
            found.over_cap += [i for i in new if tb_own[i] > cap]
        return found

    def _configure(self, config: AttemptConfig) -> None:
        """Which stored results the config's tool lists let the cache-TTL pass prune (one config a replay)."""
        if self._config is config:
            return
        if self._config is not None:
            raise _Fallback("config")
        self._config = config
        settings = cache_ttl.resolve_cache_ttl_settings(config.context_pruning)
        self._settings = settings
        self._placeholder = settings.placeholder if settings is not None else ""
        self._config_to(self._fed)

    def _config_to(self, end: int) -> None:
        """The prunable results below ``end`` (only a tool result is ever pruned), and those not cleared."""
        new, self._configured, self._config_end = self._new_results(self._configured, end)
        self._feed_due = -1  # the config facts moved: worked out again at the next feed
        settings = self._settings
        if settings is None:
            return
        natives, keys, projections = self._natives, self._n.keys, self._projections
        for i in new:
            message = natives[i]
            assert isinstance(message, ToolResultMessage)
            name = message.tool_name if isinstance(message.tool_name, str) else ""
            found = self._tool_prunable.get(name)
            if found is None:
                # The settings' predicate, asked once per tool name (a session repeats a few tools).
                found = self._tool_prunable[name] = settings.is_tool_prunable(name)
            if not found:
                continue
            self._prunable.add(i)
            key = keys[i]
            projection = projections.get(key) if key is not None else None
            if projection is None or projection.mode != "hard":
                self._not_hard.append(i)

    def _pass_facts_to(self, end: int) -> None:
        """The hard clear's eligible sizes and the soft trim's candidates, grown only when a pass runs."""
        for i in range(self._pass_fed, end):
            if not self._eligible(i):
                continue
            self._sum_eligible.add(i, self._weight(i).mc)
            key = self._n.keys[i]
            projection = self._projections.get(key) if key is not None else None
            message = self._base(i)
            assert isinstance(message, ToolResultMessage)
            if (projection is None or projection.mode is None) and soft_prune(message) is not message:
                self._soft_todo.append(i)
        self._pass_fed = max(self._pass_fed, end)

    # -- resync from a state this path did not make ----------------------------------------------------

    def _resync(self, state: ProjectionState, config: AttemptConfig, end: int) -> None:
        """Mirror a state made elsewhere (the first call, or after a fallback), or fall back again."""
        projections, sources, frozen = state.values()
        self._reset()
        natives = self._natives
        for key, texts in sources:
            position = self._n.position.get(key)
            if position is None or position >= end or source_texts(natives[position]) != texts:
                raise _Fallback("state-source")
        self._log = ProjectionLog(state)
        self._projections = dict(projections)
        self._sources = {k for k, _ in sources}
        self._frozen = set(frozen)
        for key in self._projections:
            position = self._n.position.get(key)
            if position is None or position >= end or key not in self._sources:
                raise _Fallback("state-key")
        keys, keyed = self._n.keys, self._n.keyed
        self._keyed_at = bisect_left(keyed, end)
        self._fed = end
        self._unsourced = [i for i in keyed[: self._keyed_at] if keys[i] not in self._sources]
        self._unfrozen = [i for i in keyed[: self._keyed_at] if keys[i] not in self._frozen]
        self._configure(config)
        for key, projection in self._projections.items():
            position = self._n.position[key]
            native = natives[position]
            assert isinstance(native, ToolResultMessage)
            merged = merge_projection(native, projection, source_texts(native))
            if merged is native:
                raise _Fallback("state-merge")
            self._set_current(position, -1, merged)
            self._replays_from(position, -1)
        self._state, self._state_events = state, 0

    # -- rewrites --------------------------------------------------------------------------------------------

    def _set_current(
        self,
        position: int,
        seq: int,
        message: AgentMessage,
        *,
        base: bool = False,
        known: CleanedWeights | None = None,
    ) -> None:
        """Position ``position`` is sent as ``message`` from stamp ``seq`` on: versions and sums follow.

        ``base``: ``message`` is the stored one as history image cleanup sends it, not a projection (never
        the hard clear's placeholder; a message other than a tool result weighs nothing to the guard or the
        provider budget). ``known``: what that cleaned message weighs (worked out with the session's facts,
        once for every replay of the session)."""
        native = self._natives[position]
        same = known.same if known is not None else message is native or message == native
        self._versions.set(position, seq, None if same else message)
        if not (base and message is self._cleaned.get(position)) and position not in self._unlayered_seen:
            self._unlayered_seen.add(position)
            insort(self._unlayered, position)
        old = self._current.get(position)
        if old is not None and not base and (message is old[0] or message == old[0]):
            # The replay of what was sent (a new, equal message): every sum stays as it is.
            self._current[position] = (message, old[1], old[2], old[3])
            return
        own = self._n.own(position)
        if old is not None:
            before, estimate, placeholder = old[1], old[2], old[3]
            self._big_remove(position, before)
        else:
            before, estimate, placeholder = own, -1, False
        result = isinstance(native, ToolResultMessage)
        if same:
            after = own
        elif known is not None:
            after = known.weights
        elif result:
            after = weights_typed_or_of(message)
        else:
            after = Weights(message_chars(message), 0, 0)  # as the stored message's own
        if same:
            new_estimate = -1
        else:
            new_estimate = known.estimate if known is not None else estimate_message_chars(message)
        is_placeholder = not same and not base and _message_text(message) == self._placeholder
        self._sum_mc.add(position, after.mc - before.mc)
        if isinstance(native, ToolResultMessage):
            self._sum_tb.add(position, after.tb - before.tb)
            self._sum_tbn.add(position, (after.tb > 0) - (before.tb > 0))
        if new_estimate >= 0 or estimate >= 0:
            native_estimate = self._n.estimate(position)
            self._sum_est.add(
                position,
                (new_estimate - native_estimate if new_estimate >= 0 else 0)
                - (estimate - native_estimate if estimate >= 0 else 0),
            )
        self._sum_changed.add(position, (not same) - (estimate >= 0))
        self._sum_placeholder.add(position, is_placeholder - placeholder)
        if position < self._pass_fed and self._eligible(position):
            self._sum_eligible.add(position, after.mc - before.mc)
        self._current[position] = (message, after, new_estimate, is_placeholder)
        k = bisect_left(self._dirty, position)
        dirty = not same and (known.dirty if known is not None else cleanup_changes(message))
        if k < len(self._dirty) and self._dirty[k] == position:
            if not dirty:
                del self._dirty[k]
        elif dirty:
            self._dirty.insert(k, position)
        if result:
            insort(self._big_guard, (after.guard, position))
            insort(self._big_tb, (after.tb, position))

    def _big_remove(self, position: int, facts: Weights) -> None:
        for items, value in ((self._big_guard, facts.guard), (self._big_tb, facts.tb)):
            k = bisect_left(items, (value, position))
            if k < len(items) and items[k] == (value, position):
                del items[k]

    def _eligible(self, position: int) -> bool:
        if position not in self._prunable:
            return False
        k = bisect_left(self._not_hard, position)
        return k < len(self._not_hard) and self._not_hard[k] == position

    def _message(self, position: int) -> AgentMessage:
        current = self._current.get(position)
        return current[0] if current is not None else self._natives[position]

    def _weight(self, position: int) -> Weights:
        current = self._current.get(position)
        return current[1] if current is not None else self._n.own(position)

    def _base(self, position: int) -> AgentMessage:
        """The message the pipeline starts from: the stored one, cleaned once history image cleanup has."""
        found = self._cleaned.get(position)
        return found if found is not None else self._natives[position]

    def _replays_from(self, position: int, seq: int) -> None:
        """A projection was recorded at ``position`` (stamp ``seq``): it replays from the next call on."""
        if position not in self._replay_from:
            self._replay_from[position] = seq
            self._sum_replayed.add(position, 1)

    def _replaying(self, position: int, seq: int) -> bool:
        """Whether the call of stamp ``seq`` replays the projection at ``position``."""
        return self._replay_from.get(position, _NEVER) < seq < self._replay_until.get(position, _NEVER)

    def _replay_onto(self, position: int, projection: Projection) -> AgentMessage:
        """``mergeProjectedToolResultMessage`` onto the message the pipeline starts from, with the source
        recorded when the result was first sent (its stored texts: a cleaned message's differ, and then
        the projection does not replay; it is the message itself that comes back)."""
        native = self._natives[position]
        base = self._base(position)
        assert isinstance(native, ToolResultMessage) and isinstance(base, ToolResultMessage)
        return merge_projection(base, projection, source_texts(native))

    # -- history image cleanup ----------------------------------------------------------------------------

    def _cleaning(self, lo: int, end: int) -> tuple[int, int]:
        """``(k0, k1)``: ``cleanable[k0:k1]`` are the messages history image cleanup changes at a call over
        ``natives[lo:end]`` (those before the third-last completed turn's start)."""
        cleanable = self._n.cleanable
        last_lo, last_end, k0, k1, until = self._last_cleaning
        if lo == last_lo and last_end <= end <= until:
            # Asked again at the same call (its cleanup, then its quiet checks), or at a later one with no
            # user message since: no turn closed, so the cutoff is where it was.
            return k0, k1
        if lo == last_lo and end >= last_end and (k1 == len(cleanable) or cleanable[k1] >= end):
            # A longer history's cutoff is no earlier (turns only complete), and no later than its end:
            # the same messages are cleaned (every call after the last image came of age).
            self._last_cleaning = (lo, end, k0, k1, end)
            return k0, k1
        k0 = bisect_left(cleanable, lo) if cleanable else 0
        until = end
        if k0 == len(cleanable) or cleanable[k0] >= end:
            k1 = k0  # none in the context (the usual answer)
        else:
            k1 = bisect_left(cleanable, self._n.cutoff(lo, end), k0)
            until = self._n.next_user(end)
        self._last_cleaning = (lo, end, k0, k1, until)
        return k0, k1

    def _cleans_now(self, lo: int, end: int) -> bool:
        """Whether a call over ``natives[lo:end]`` cleans a message not cleaned before (or would send a
        cleaned one as stored: left to the reference)."""
        k0, k1 = self._cleaning(lo, end)
        done = self._clean_k
        return k1 > max(k0, done) or k0 < done > k1

    def _clean(self, lo: int, end: int, seq: int) -> tuple[int, int]:
        """History image cleanup's first pass at a call (stamp ``seq``): the messages that came of age are
        sent cleaned from now on (an image, once old, stays old: the cutoff only moves forward). Gives
        ``(k0, k1)`` of :meth:`_cleaning`."""
        k0, k1 = self._cleaning(lo, end)
        done = self._clean_k
        if k0 < done > k1:
            raise _Fallback("media")  # a cleaned message would be sent as stored again
        if k1 > done:
            for position in self._n.cleanable[max(k0, done) : k1]:
                self._clean_one(position, seq)
            self._clean_k = k1
        return k0, k1

    def _bases(self, drops: bool, lo: int, end: int, seq: int) -> tuple[Sequence[int], Sequence[int]]:
        """What every stage starts from at a call (stamp ``seq``), before the cache-TTL pass: the messages
        history image cleanup cleans (:meth:`_clean`) and, when the route drops thinking, the assistants
        the transcript policy strips (:meth:`_strip`). Gives the outcome's ``images`` and ``policy``."""
        images: Sequence[int] = ()
        if self._n.cleanable:
            last = self._last_cleaning
            if last[0] == lo and last[1] <= end <= last[4] and last[3] == self._clean_k:
                k0, k1 = last[2], last[3]  # no turn closed since, nothing left to clean (most calls)
            else:
                k0, k1 = self._clean(lo, end, seq)
            shown = self._last_images
            images = shown[2] if shown[0] == k0 and shown[1] == k1 else self._images(k0, k1)
        policy: Sequence[int] = ()
        if self._thinking:
            t0, t1 = self._strip(drops, lo, end, seq)
            if t1 > t0:
                policy = SliceView(self._thinking, t0, t1)
        return images, policy

    def _stripping(self, drops: bool, lo: int, end: int) -> tuple[int, int]:
        """``(t0, t1)``: ``thinking[t0:t1]`` are the assistants ``dropThinkingBlocks`` strips at a call over
        ``natives[lo:end]`` (every one but the latest assistant; none when the route keeps thinking);
        ``t1`` is -1 when the latest assistant's content is not an array (left to the reference)."""
        last = self._last_stripping
        if last[0] == lo and last[1] == end and last[2] == drops:
            return last[3], last[4]  # asked again at the same call (its strips, then its quiet checks)
        # Bisections from the last call's answers (the next call's history is a little longer; a t1 of -1
        # is no place to start from).
        thinking = self._thinking
        t0 = left_from(thinking, lo, last[3])
        if not drops or t0 == len(thinking) or thinking[t0] >= end:
            t1 = t0
        else:
            assistants = self._n.assistants
            a = self._assistant_hint = left_from(assistants, end, self._assistant_hint)
            latest = assistants[a - 1]  # thinking[t0] is one before end
            message = self._natives[latest]
            if not isinstance(message, AssistantMessage) or type(message.content) is not tuple:
                t1 = -1
            else:
                t1 = max(t0, left_from(thinking, latest, last[4] if last[4] >= 0 else t0))
        self._last_stripping = (lo, end, drops, t0, t1)
        return t0, t1

    def _strips_now(self, drops: bool, lo: int, end: int) -> bool:
        """Whether a call strips an assistant not stripped before (or would send a stripped one whole)."""
        t0, t1 = self._stripping(drops, lo, end)
        done = self._strip_k
        return t1 < 0 or t1 > max(t0, done) or t0 < done > t1

    def _strip(self, drops: bool, lo: int, end: int, seq: int) -> tuple[int, int]:
        """The transcript policy's strips at a call (stamp ``seq``): the assistant that was the latest is
        sent without its thinking from the call a newer one arrives on (the latest only moves forward).
        Gives ``(t0, t1)`` of :meth:`_stripping`."""
        t0, t1 = self._stripping(drops, lo, end)
        done = self._strip_k
        if t1 < 0 or t0 < done > t1:
            raise _Fallback("thinking")  # a stripped assistant would be sent whole again (another route)
        if t1 > done:
            thinking, facts = self._thinking, self._strip_facts
            for k in range(max(t0, done), t1):
                # at the stream: the call's final stamp
                self._strip_one(thinking[k], seq + 1, facts[k] if facts is not None else None)
            self._strip_k = t1
        return t0, t1

    def _strip_one(self, position: int, seq: int, read: StripFacts | None = None) -> None:
        """An assistant sent without its thinking from stamp ``seq`` on. Its estimate counts stripped in the
        cache-TTL pass's ratio and the compaction's (both estimate what is sent); no stage rewrites an
        assistant, so it has no rewrite of its own. ``read``: what preparing read of its strip."""
        native = self._natives[position]
        assert isinstance(native, AssistantMessage)
        # Plain (ASCII) thinking weighs its length to both sizes: what preparing read is
        # strip_sizes_typed's answer.
        sizes = (read[0], read[1]) if read is not None and read[2] else strip_sizes_typed(native)
        if sizes is not None:
            # Plain thinking in blocks of their own classes (every strip of a long session): the sizes
            # read from the blocks, the stripped message made only if a view reads it.
            self._strips.add(position, seq)
            taken, notice_in = sizes
            came_mc, came_est = _notice_sizes() if notice_in else (0, 0)
            self._sum_mc.add(position, came_mc - taken)
            self._sum_est.add(position, came_est - taken)
            self._sum_changed.add(position, 1)
            return
        typed = strip_typed(native)
        if typed is not None:
            stripped, removed, notice = typed
        else:
            found = strip_thinking(native)
            assert isinstance(found, AssistantMessage)
            stripped = found
            # Both sizes of an assistant are sums over its blocks: the change is what the strip took away
            # (its thinking) and put in (the omission notice), sized alone (tool call arguments are JSON).
            removed, notice = strip_change(native, stripped)
        self._strips.add(position, seq, stripped)
        plain = _plain_thinking_chars(removed)
        if plain >= 0:
            mc_gone = est_gone = plain
        else:
            gone = AssistantMessage(removed, ())
            mc_gone, est_gone = message_chars(gone), estimate_message_chars(gone)
        mc_came = est_came = 0  # no notice (the assistant kept a block of its own: most strips)
        if notice:
            came = AssistantMessage(notice, ())
            mc_came, est_came = message_chars(came), estimate_message_chars(came)
        self._sum_mc.add(position, mc_came - mc_gone)
        self._sum_est.add(position, est_came - est_gone)
        self._sum_changed.add(position, 1)

    def _sources_cleaned(self) -> bool:
        """Whether a result sent for the first time is sent cleaned (its source would be the cleaned
        texts: left to the reference)."""
        cleaned = self._cleaned
        if cleaned:
            for p in self._unsourced:  # none or one (a call sends a result or two for the first time)
                if p in cleaned:
                    return True
        return False

    def _clean_one(self, position: int, seq: int) -> None:
        """One message cleaned from stamp ``seq`` on: a projection recorded on it replays onto the cleaned
        message or, its source texts no longer matching, stops; the soft trim's candidates follow."""
        native = self._natives[position]
        base = self._cleaned[position] = self._n.cleaned[position]  # cleaned_message(native), made when fed
        known = self._n.cleaned_weights[position]
        if not isinstance(native, ToolResultMessage):
            self._set_current(position, seq, base, base=True, known=known)
            return
        key = self._n.keys[position]
        projection = self._projections.get(key) if key is not None else None
        if projection is not None and self._replaying(position, seq):
            merged = self._replay_onto(position, projection)
            if merged is not base:
                self._set_current(position, seq, merged)  # it still replays (string content)
                return
            self._replay_until[position] = seq
            self._sum_replayed.add(position, -1)
        self._set_current(position, seq, base, base=True, known=known)
        if (
            position < self._pass_fed
            and self._eligible(position)
            and (projection is None or projection.mode is None)
        ):
            # A soft-trim candidate is one the trim changes: asked again of the cleaned message.
            assert isinstance(base, ToolResultMessage)
            todo = self._soft_todo
            k = bisect_left(todo, position)
            listed = k < len(todo) and todo[k] == position
            wanted = soft_prune(base) is not base
            if listed and not wanted:
                del todo[k]
            elif wanted and not listed:
                todo.insert(k, position)

    # -- one call where nothing changes ------------------------------------------------------------------

    def _quiet(
        self, setup: AttemptSetup, state: AttemptState, now: Clock, end: int
    ) -> tuple[Outcome, AttemptState] | None:
        """:meth:`_call` for a call no transform changes anything at (most calls of a long session), or
        ``None`` before anything is changed when a stage might: the cache-TTL pass runs (the TTL expired),
        last call recorded projections, an image may be cleaned, a result is over the guard's share or the
        per-result cap (stored or rewritten), or the aggregate may cut a result outside the trailing batch.

        Each test is over-approximated from the mirrors' lists and sums, so the whole pipeline decides
        whenever one holds; what is left is :meth:`_call` with an empty plan. What the setup decides
        (:meth:`_ready_for`) is read once per attempt setup, not per call."""
        ready = self._quiet_ready(setup, state, now, end)
        return None if ready is None else self._quiet_outcome(setup, state, now, end, ready)

    def _quiet_ready(
        self, setup: AttemptSetup, state: AttemptState, now: Clock, end: int, *, kept: bool = False
    ) -> _Ready | None:
        """:meth:`_quiet`'s work before its outcome: this call's image cleanup and thinking strips (what a
        call sends from now on whatever else it does), its checks and its log. Gives the messages cleaned
        and the assistants stripped, and the states after the pass and after the call; ``None`` when a
        stage might change something (only the cleanup and the strips were applied then).

        ``kept`` (:meth:`kept_call`, the whole history sent): when the call sends cleanups or strips and
        replays nothing, it is answered without its outcome, so only the state after the call is logged
        (the state after the pass ``None``)."""
        if setup is not self._ready_setup:
            self._ready_for(setup)
        settings = self._ready_settings
        before = state.clock.last_cache_touch_at
        lo = (state.compacted_through if self._ready_applies else None) or 0
        if self._pending:
            return None  # last call's records replay first (the pipeline's own order)
        try:
            bases = self._bases(self._ready_drops, lo, end, 2 * self.calls)
        except _Fallback:
            return None  # the pipeline falls back (nothing was changed)
        if not self._nothing_changes(before, now, lo, end, based=True) or (
            self._cleaned and self._sources_cleaned()
        ):
            return None
        if kept and (bases[0] or bases[1]) and not self._sum_replayed.range(0, end):
            final = self._state
            if self._unsourced or self._unfrozen:
                final = self._quiet_log_final(end)  # the pass is on: its sources logged, as _quiet_log
            assert final is not None  # the state is this path's (checked)
            return bases, None, final
        results = self._n.results
        has_results = results[end] > results[lo]
        cache_state = final_state = self._state  # nothing new to log (about half the calls)
        if self._unsourced or self._unfrozen:
            cache_state, final_state = self._quiet_log(settings is not None or has_results, lo, end)
        assert cache_state is not None and final_state is not None  # the state is this path's (checked)
        return bases, cache_state, final_state

    def _quiet_outcome(
        self,
        setup: AttemptSetup,
        state: AttemptState,
        now: Clock,
        end: int,
        ready: _Ready,
    ) -> tuple[Outcome, AttemptState]:
        """:meth:`_quiet`'s outcome and state, from what :meth:`_quiet_ready` gave."""
        bases, cache_state, final_state = ready
        assert cache_state is not None  # logged for an outcome (not a kept answer)
        settings = self._ready_settings
        before = state.clock.last_cache_touch_at
        compacted: int | None = state.compacted_through
        through = compacted if self._ready_applies else None
        lo = through or 0
        point = None
        if self._ready_compaction and compacted is None:
            point, compacted = self._compaction(setup, compacted, end)
        head = self._head(setup) if through is not None else None
        if settings is None or self._current or self._strip_k:
            # Rewrites are sent or replayed, or thinking stripped (or no cache-TTL outcome): _outcome's views.
            fresh: set[int] = set()
            replays = (cache_state, self._sum_replayed.range(lo, end), fresh)
            call = (point, through, before)
            outcome = self._outcome(_QUIET, settings is not None, replays, ((), *bases), head, lo, end, call)
            clock = _gate_state(now) if settings is not None else state.clock
            return outcome, _attempt_state(clock, final_state, compacted)
        # Nothing was ever rewritten (every sum over the rewrites is 0): _outcome with no views to build;
        # nothing changed, nothing replayed.
        context = ContextView(self._natives, lo, end, head, self._versions, 2 * self.calls)
        ttl = _cache_ttl_outcome(context, cache_state, (), (), (), False, None)
        outcome = _fast_outcome(
            False, None, None, ttl, (), (), (), (), point, through, before, UNCHANGED, 0, _NONE
        )
        return outcome, _attempt_state(_gate_state(now), final_state, compacted)

    def kept_call(
        self, setup: AttemptSetup, state: AttemptState, now: Clock, end: int
    ) -> tuple[Outcome | KeptChanges, AttemptState] | None:
        """:meth:`call` for a call whose only changes are history image cleanup's and the transcript
        policy's (those kept from earlier calls, and those it makes itself): the messages cleaned, the
        assistants stripped, what is sent changed and the size that changes (:class:`KeptChanges`), without
        the outcome's views, when only the call's record is wanted. The cache-TTL pass is on and no
        compaction can fire or be sent; nothing changes at the call but the cleanup and the strips, and no
        projection replays. A call that passes the first checks but not the rest is answered as
        :meth:`call` answers it (its outcome).

        ``None``, with nothing counted or changed, when the first checks fail (the caller asks :meth:`call`):
        a setup or state not ready, the pass off, a compaction, last call's records pending."""
        if not self._ready_at(setup, state, end):
            return None
        if (
            self._ready_settings is None
            or self._ready_compaction
            or (state.compacted_through is not None and self._ready_applies)
            or self._pending
        ):
            return None
        self.calls += 1  # as call() counts it: the stamps below are this call's
        ready = self._quiet_ready(setup, state, now, end, kept=True)
        if ready is None:
            return self._checked(setup, state, now, end, ready=True)
        self.quiet_calls += 1
        (images, policy), cache_state, final_state = ready
        if cache_state is not None:
            return self._quiet_outcome(setup, state, now, end, ready)  # nothing kept, or replays: views
        after = _attempt_state(_gate_state(now), final_state, state.compacted_through)
        stripped = self._strips if self._strip_k else None
        changed = ChangedView(
            self._versions,
            2 * self.calls + 1,
            0,
            end,
            self._sum_changed.range(0, end),
            stripped,
            (self._unlayered, self._cleaned),
        )
        return _kept_changes(images, policy, changed, self._sum_est.range(0, end)), after

    def _nothing_changes(
        self, before: Clock | None, now: Clock, lo: int, end: int, *, based: bool = False
    ) -> bool:
        """:meth:`_quiet`'s tests (the ready setup's): no replay pending, the cache-TTL pass does not run, no
        image to clean, nothing over the guard's share, and the provider budget cuts nothing. ``based``:
        the call's cleanup and strips were applied (:meth:`_bases`), so none is left to make."""
        if self._pending or (before and self._ready_runs and now - before >= self._ready_ttl):
            return False
        window = self._ready_window
        if window is None or window.covered < end:
            window = self._ready_window = self._window(self._ready_tokens)
        cleanable, dirty, big = self._n.cleanable, self._dirty, self._big_guard
        if (
            (cleanable and not based and self._cleans_now(lo, end))
            or (self._thinking and not based and self._strips_now(self._ready_drops, lo, end))
            or (dirty and _reaches(dirty, lo, end))
            or (window.over_single and _reaches(window.over_single, lo, end))
            or (self._ready_settings is not None and big and big[-1][0] > window.max_single)
        ):
            return False
        results = self._n.results
        return results[end] <= results[lo] or self._budget_quiet(window, lo, end)

    def _ready_at(self, setup: AttemptSetup, state: AttemptState, end: int) -> bool:
        """The sources fed up to ``end``, and whether the ready setup and state are this call's (what
        :meth:`quiet_state` and :meth:`kept_call` first ask); the setup's facts read when it is new."""
        if end > self._fed:
            if end <= self._feed_due:
                self._fed = end
            else:
                self._feed(end)
        if setup is not self._ready or end > self._ready_end or state.projections is not self._state:
            return False
        if setup is not self._ready_setup:
            self._ready_for(setup)
        return True

    def quiet_state(
        self, setup: AttemptSetup, state: AttemptState, now: Clock, end: int
    ) -> AttemptState | None:
        """The state after a call :meth:`call` would answer from :meth:`_quiet` with a bare outcome, when
        only that call's record is wanted: the cache-TTL pass is on, nothing was ever rewritten, no summary
        is sent and no compaction can fire, and nothing changes at the call. Its outcome would hold nothing
        changed, nothing replayed and its last touch (``state.clock``): the record builder needs no more.

        ``None``, with nothing counted or logged, for any other call (the caller asks :meth:`call`). Saves
        the outcome's objects and the state after the pass's sources (a quiet call of a long session)."""
        if self._current or self._strip_k:
            return None  # asked first: every call after the first cleanup or strip (kept_call's then)
        if not self._ready_at(setup, state, end):
            return None
        compacted = state.compacted_through
        if (
            self._ready_settings is None
            or self._ready_compaction
            or (compacted is not None and self._ready_applies)
            or not self._nothing_changes(state.clock.last_cache_touch_at, now, 0, end)
        ):
            return None
        self.calls += 1
        self.quiet_calls += 1
        final_state = self._state
        if self._unsourced or self._unfrozen:
            final_state = self._quiet_log_final(end)
        assert final_state is not None  # the state is this path's (checked)
        return _attempt_state(_gate_state(now), final_state, compacted)

    def _quiet_log_final(self, end: int) -> ProjectionState:
        """:meth:`_quiet_log` with the pass on and the whole history sent, when only the state after the
        call is wanted: one state made, not two, for a call that sends one new result."""
        unsourced = self._unsourced
        if len(unsourced) != 1 or self._unfrozen != unsourced or unsourced[0] >= end:
            return self._quiet_log(True, 0, end)[1]
        return self._quiet_log_one_final(unsourced[0])

    def _quiet_log_one_final(self, p: int) -> ProjectionState:
        """:meth:`_quiet_log_one`, the state after the call alone."""
        return self._log_one(p, False)[1]

    def _ready_for(self, setup: AttemptSetup) -> None:
        """What :meth:`_quiet` reads of an attempt setup: its cache-TTL settings, the time since the last
        touch at which the pass runs (and whether it ever does), whether a compaction summary replaces the
        history, the guard window, and whether a compaction can fire."""
        settings = setup.cache_ttl
        self._ready_setup = setup
        self._ready_settings = settings
        self._ready_runs = settings is not None and not setup.server_tool_clearing and settings.ttl_ms > 0
        self._ready_ttl = settings.ttl_ms if settings is not None else 0.0
        self._ready_applies = setup.config.apply_provider_compaction
        self._ready_tokens = setup.guard_window_tokens
        self._ready_window = None
        self._ready_compaction = setup.compaction is not None
        self._ready_drops = setup.drop_thinking_blocks

    def _quiet_log(self, logs_sources: bool, lo: int, end: int) -> tuple[ProjectionState, ProjectionState]:
        """A quiet call's log: the sources of the keys sent for the first time (when a pass or the budget
        reads them), then their freezes; the state after each."""
        unsourced, unfrozen, events = self._unsourced, self._unfrozen, self._log.events
        if len(unsourced) == 1 and unfrozen == unsourced and logs_sources and lo <= unsourced[0] < end:
            return self._quiet_log_one(unsourced[0])
        if unsourced and logs_sources:
            if lo <= unsourced[0] and unsourced[-1] < end:
                self._commit_sources(unsourced)  # all of them (the usual case: the one new result)
            else:
                self._commit_sources([p for p in unsourced if lo <= p < end])
        # _logged, inline twice (the state is this path's: never None here).
        if len(events) != self._state_events:
            self._state_events = len(events)
            self._state = ProjectionState.logged(self._log, len(events))
        cache_state = self._state
        if self._unfrozen:
            self._freeze(lo, end)
        if len(events) != self._state_events:
            self._state_events = len(events)
            self._state = ProjectionState.logged(self._log, len(events))
        assert cache_state is not None and self._state is not None
        return cache_state, self._state

    def _logged(self) -> ProjectionState:
        """The projection state now: the last one made when nothing was logged since (most calls)."""
        length = len(self._log.events)
        if self._state is not None and self._state_events == length:
            return self._state
        self._state_events = length
        self._state = ProjectionState.logged(self._log, length)
        return self._state

    def _quiet_log_one(self, p: int) -> tuple[ProjectionState, ProjectionState]:
        """:meth:`_quiet_log` of a call that sends one new result, the only one not yet sourced or frozen
        (every other tool call)."""
        cache_state, final_state = self._log_one(p, True)
        assert cache_state is not None  # asked for
        return cache_state, final_state

    def _log_one(self, p: int, after_source: bool) -> tuple[ProjectionState | None, ProjectionState]:
        """:meth:`_commit_sources` and :meth:`_freeze` of one key, inline: the state after its source was
        logged (``None`` unless ``after_source``: only the pass's own outcome reads it) and the state after
        the call."""
        key, texts, events = self._n.keys[p], self._n.texts[p], self._log.events
        assert key is not None and texts is not None  # every keyed result's, read with the facts
        self._sources.add(key)
        events.append(("source", key, texts))
        self._unsourced = []
        cache_state = ProjectionState.logged(self._log, len(events)) if after_source else None
        final_state = cache_state
        if key not in self._frozen:
            self._frozen.add(key)
            events.append(("freeze", key, None))
            final_state = None
        self._unfrozen = []
        self._state_events = len(events)
        if final_state is None:
            final_state = ProjectionState.logged(self._log, len(events))
        self._state = final_state
        return cache_state, final_state

    def _budget_quiet(self, window: _Window, lo: int, end: int) -> bool:
        """Whether the provider budget surely cuts nothing: no result over the cap, and the aggregate within
        its budget or every result sent for the first time in the trailing batch (after the last
        assistant: :meth:`_protected`)."""
        big, over = self._big_tb, window.over_cap
        if (over and _reaches(over, lo, end)) or (big and big[-1][0] > window.cap):
            return False
        n = self._n
        count = n.tbn[end] - n.tbn[lo]
        total = n.tb[end] - n.tb[lo]
        if self._current:
            count += self._sum_tbn.range(lo, end)
            total += self._sum_tb.range(lo, end)
        if count < 2 or total <= window.aggregate or not self._unfrozen:
            return True
        assistants, unfrozen = n.assistants, self._unfrozen
        k = bisect_left(assistants, end)
        last = assistants[k - 1] if k else -1
        first = bisect_left(unfrozen, lo)  # ascending: keys join in order, and leave it keeping it
        if first == len(unfrozen) or unfrozen[first] > last:
            return True  # every result sent for the first time is in the trailing batch (most calls)
        # A result at or before the last assistant is outside the trailing batch: the aggregate may cut it.
        return all(not (lo <= p <= last and self._weight(p).tb > 0) for p in unfrozen)

    # -- one call ----------------------------------------------------------------------------------------

    def _call(
        self, setup: AttemptSetup, state: AttemptState, now: Clock, end: int
    ) -> tuple[Outcome, AttemptState]:
        first_seq = 2 * self.calls
        if self._pending:
            # What last call's records replay as from now on.
            pending, self._pending = self._pending, {}
            reverts, self._pending_reverts = self._pending_reverts, set()
            for position, merged in pending.items():
                self._set_current(position, first_seq, merged, base=position in reverts)
        through = state.compacted_through if setup.config.apply_provider_compaction else None
        lo = through or 0
        head = self._head(setup) if through is not None else None
        bases = self._bases(setup.drop_thinking_blocks, lo, end, first_seq)
        window = self._window(setup.guard_window_tokens)
        before = state.clock.last_cache_touch_at
        plan = _Plan()
        results = self._n.results
        has_results = results[end] > results[lo]
        active = setup.cache_ttl is not None
        if (active or has_results) and self._unsourced:
            plan.sources = [p for p in self._unsourced if lo <= p < end]
        if active:
            self._cache_pass(setup, plan, now, before, lo, end, head)
        self._check_images(plan, lo, end)
        self._check_guard(window, plan, active, lo, end)
        if has_results:
            self._budget(window, plan, lo, end)
        rewrites = bool(plan.stage1 or plan.stage2)
        if rewrites:
            self._merges(plan)
        budget = tuple(sorted(p for p, cut in plan.stage2.items() if cut != self._stage1(plan, p)))
        return self._finish(setup, state, now, plan, (budget, *bases), lo, end)

    @staticmethod
    def _head(setup: AttemptSetup) -> AgentMessage:
        """What a compacted history starts with: the stand-in summary."""
        return compaction.summary_message(setup.config.compaction_summary_tokens)

    def _finish(
        self,
        setup: AttemptSetup,
        state: AttemptState,
        now: Clock,
        plan: _Plan,
        indexes: tuple[tuple[int, ...], Sequence[int], Sequence[int]],
        lo: int,
        end: int,
    ) -> tuple[Outcome, AttemptState]:
        """Commit a call's plan (nothing before changed anything but last call's replays, the image cleanup
        and the thinking strips) and its outcome; ``indexes``: the provider budget's cuts, the cleaned
        messages and the stripped assistants."""
        first_seq, final_seq = 2 * self.calls, 2 * self.calls + 1
        replayed_count = self._sum_replayed.range(lo, end)  # before this call's rewrites are committed
        rewrites = plan.stage1 or plan.stage2
        fresh = (
            {p for p in (*plan.stage1, *plan.stage2) if not self._replaying(p, first_seq)}
            if rewrites
            else set()
        )
        cache_state = self._commit_stage1(plan, first_seq)
        final_state = self._commit_stage2(plan, final_seq, lo, end)
        self._pending, self._pending_reverts = plan.merged, plan.reverts
        self._state = final_state
        point, compacted = self._compaction(setup, state.compacted_through, end)
        through = state.compacted_through if setup.config.apply_provider_compaction else None
        head = self._head(setup) if through is not None else None
        active = setup.cache_ttl is not None
        before = state.clock.last_cache_touch_at
        outcome = self._outcome(
            plan,
            active,
            (cache_state, replayed_count, fresh),
            indexes,
            head,
            lo,
            end,
            (point, through, before),
        )
        clock = _gate_state(now) if active else state.clock
        return outcome, _attempt_state(clock, final_state, compacted)

    def _outcome(
        self,
        plan: _Plan,
        active: bool,
        replays: tuple[ProjectionState, int, set[int]],
        indexes: tuple[tuple[int, ...], Sequence[int], Sequence[int]],
        head: AgentMessage | None,
        lo: int,
        end: int,
        call: tuple[CompactionPoint | None, int | None, Clock | None],
    ) -> Outcome:
        """The call's outcome, as views over the stamped versions (built without visiting them).

        ``replays``: the state after the cache-TTL pass, how many projections were replayed and which
        positions are rewritten without a replay; ``indexes``: the provider budget's cuts, the cleaned
        messages and the stripped assistants; ``call``: the compaction point, where the history was
        compacted through, and the last touch before."""
        first_seq, final_seq = 2 * self.calls, 2 * self.calls + 1
        budget, images, policy = indexes
        versions = self._versions
        outcome_ttl: CacheTtlOutcome | None = None
        sticky: tuple[Sequence[int], Sequence[int]] | None = None
        cache_state, replayed_count, fresh = replays
        if active:
            shift = (head is not None) - lo
            replayed_view: Sequence[int] = ()
            sticky = _NONE  # nothing replayed (most calls of a session that prunes nothing): no views
            if replayed_count:
                replayed = _replayed(versions, self._replay_from, self._replay_until, lo, end, first_seq)
                replayed_view = PositionsView(versions.positions, replayed, shift, replayed_count)
                sticky = self._sticky(replayed, final_seq, replayed_count, lo, end, fresh)
            outcome_ttl = _cache_ttl_outcome(
                ContextView(self._natives, lo, end, head, versions, first_seq),
                cache_state,
                replayed_view,
                tuple([p + shift for p in plan.soft]) if plan.soft else (),
                tuple([p + shift for p in plan.hard]) if plan.hard else (),
                plan.pruned,
                plan.ratio,
            )
        else:
            # Without the pass every projection is the budget's (a message sent cleaned or stripped is none:
            # only tool results are projected).
            positions, cleaned, results = versions.positions, self._cleaned, self._n.result_positions
            budget = tuple(
                p
                for p in positions[bisect_left(positions, lo) : bisect_left(positions, end)]
                if (sent := versions.at(p, final_seq)) is not None
                and sent is not cleaned.get(p)
                and _reaches(results, p, p + 1)
            )
        stripped = self._strips if self._strip_k else None
        changed = ChangedView(
            versions,
            final_seq,
            lo,
            end,
            self._sum_changed.range(lo, end),
            stripped,
            (self._unlayered, self._cleaned) if versions is self._versions else None,
        )
        return _fast_outcome(
            False,
            None,
            None,
            outcome_ttl,
            (),
            images,
            policy,
            budget,
            *call,
            changed,
            self._sum_est.range(lo, end),
            sticky,
        )

    def _compaction(
        self, setup: AttemptSetup, compacted: int | None, end: int
    ) -> tuple[CompactionPoint | None, int | None]:
        """Provider-side compaction: the point when this call's estimated prompt reaches the threshold
        (first time only), and where the history is compacted through from the next call on."""
        if setup.compaction is None or compacted is not None:
            return None, compacted
        tokens = math.ceil((self._n.mc_to(end)[end] + self._sum_mc.prefix(end)) / 4)
        if tokens < setup.compaction.threshold:
            return None, compacted
        return CompactionPoint(setup.compaction, tokens), end

    def _stage1(self, plan: _Plan, position: int) -> AgentMessage:
        """The message after the cache-TTL pass (this call's trim or clear, else the rewrite, else stored)."""
        found = plan.stage1.get(position)
        return found if found is not None else self._message(position)

    def _sticky(
        self,
        replayed: _Replayed,
        final_seq: int,
        replayed_count: int,
        lo: int,
        end: int,
        fresh: set[int],
    ) -> tuple[Sequence[int], Sequence[int]]:
        """Of the replayed projections (some were): those sent trimmed again, and those sent cleared again."""
        positions = self._versions.positions
        new_cleared = sum(1 for p in fresh if self._current[p][3])
        cleared_count = self._sum_placeholder.range(lo, end) - new_cleared
        trimmed = _Sticky(replayed, final_seq, self._placeholder, cleared=False)
        cleared = _Sticky(replayed, final_seq, self._placeholder, cleared=True)
        return (
            PositionsView(positions, trimmed, 0, replayed_count - cleared_count),
            PositionsView(positions, cleared, 0, cleared_count),
        )

    def _cache_pass(
        self,
        setup: AttemptSetup,
        plan: _Plan,
        now: Clock,
        before: Clock | None,
        lo: int,
        end: int,
        head: AgentMessage | None,
    ) -> None:
        """``pruneExpiredCacheTtlToolResults`` after the replay, from the sums (the rules are its own)."""
        settings = setup.cache_ttl
        assert settings is not None
        expired = (
            not setup.server_tool_clearing
            and bool(before)
            and settings.ttl_ms > 0
            and before is not None
            and now - before >= settings.ttl_ms
        )
        if not expired:
            return
        assistants, users = self._n.assistants, self._n.users
        a_lo, a_hi = bisect_left(assistants, lo), bisect_left(assistants, end)
        u = bisect_left(users, lo)
        if a_hi - a_lo < cache_ttl.KEEP_LAST_ASSISTANTS or u >= len(users) or users[u] >= end:
            return
        cutoff, start = assistants[a_hi - cache_ttl.KEEP_LAST_ASSISTANTS], users[u]
        mc = self._n.mc_to(end)
        total = mc[end] - mc[lo] + self._sum_mc.range(lo, end)
        if head is not None:
            total += message_chars(head)
        char_window = setup.guard_window_tokens * 4
        plan.ratio = total / char_window
        if total / char_window < cache_ttl.SOFT_TRIM_RATIO:
            return
        self._pass_facts_to(end)
        gained = 0
        todo = self._soft_todo
        for p in todo[bisect_left(todo, start) : bisect_left(todo, cutoff)]:
            source = self._base(p)  # the pass trims what the first image cleanup handed it
            assert isinstance(source, ToolResultMessage)
            trimmed = soft_prune(source)
            change = message_chars(trimmed) - self._weight(p).mc
            total += change
            gained += change
            plan.stage1[p] = trimmed
            plan.records1.append((p, "soft", trimmed))
            plan.soft.append(p)
        if (
            total / char_window >= cache_ttl.HARD_CLEAR_RATIO
            and settings.hard_clear
            and self._sum_eligible.range(start, cutoff) + gained >= cache_ttl.MIN_PRUNABLE_TOOL_CHARS
        ):
            not_hard = self._not_hard
            k = bisect_left(not_hard, start)
            while k < len(not_hard) and not_hard[k] < cutoff:
                if total / char_window < cache_ttl.HARD_CLEAR_RATIO:
                    break
                p = not_hard[k]
                current = self._stage1(plan, p)
                assert isinstance(current, ToolResultMessage)
                cleared = msgspec.structs.replace(current, content=(text_block(settings.placeholder),))
                total += message_chars(cleared) - message_chars(current)
                plan.stage1[p] = cleared
                plan.records1.append((p, "hard", cleared))
                plan.hard.append(p)
                k += 1
        plan.pruned = bool(plan.soft or plan.hard)
        plan.ratio = total / char_window

    def _images(self, k0: int, k1: int) -> Sequence[int]:
        """The messages the cleanup changed at a call, ``cleanable[k0:k1]`` (the second pass changes none)."""
        if k1 <= k0:
            return ()
        last = self._last_images
        if last[0] == k0 and last[1] == k1:
            return last[2]  # the same messages as last call's (most calls): its view, never changed
        view = SliceView(self._n.cleanable, k0, k1)
        self._last_images = (k0, k1, view)
        return view

    def _check_images(self, plan: _Plan, lo: int, end: int) -> None:
        """History image cleanup's second pass (after the guard) changes nothing and a result first sent
        cleaned is not sourced here, or the call is left to the reference. The first pass is
        :meth:`_clean`'s: every message it changes is sent cleaned, and what a stage makes of one is made
        from the cleaned message."""
        cutoff = self._n.cutoff(lo, end)
        if cutoff <= lo:
            return
        dirty = self._dirty
        k = bisect_left(dirty, lo)
        if k < len(dirty) and dirty[k] < cutoff:
            raise _Fallback("media")  # a projection the cleanup would change
        for p, message in plan.stage1.items():
            if p < cutoff and cleanup_changes(message):
                raise _Fallback("media")
        cleaned = self._cleaned
        if cleaned and any(p in cleaned for p in plan.sources):
            raise _Fallback("media-source")  # its recorded source would be the cleaned texts

    def _check_guard(self, window: _Window, plan: _Plan, active: bool, lo: int, end: int) -> None:
        """The guard cuts nothing, or the call is left to the reference."""
        over = window.over_single
        if over:
            for p in over[bisect_left(over, lo) : bisect_left(over, end)]:
                if not active or (p not in plan.stage1 and p not in self._current):
                    raise _Fallback("guard")
        if not active:
            return
        big = self._big_guard
        if big and big[-1][0] > window.max_single:
            for _, p in big[bisect_right(big, (window.max_single, len(self._natives))) :]:
                if lo <= p < end and p not in plan.stage1:
                    raise _Fallback("guard")
        for message in plan.stage1.values():
            if guard_message_chars(message) > window.max_single:
                raise _Fallback("guard")

    def _protected(self, lo: int, end: int) -> set[int]:
        """The trailing tool batch (after the last assistant)."""
        out: set[int] = set()
        for p in range(end - 1, lo - 1, -1):
            message = self._natives[p]
            if isinstance(message, AssistantMessage):
                break
            if isinstance(message, ToolResultMessage):
                out.add(p)
        return out

    def _budget(self, window: _Window, plan: _Plan, lo: int, end: int) -> None:
        """The provider budget: per-result cuts from the facts; an aggregate cut is left to the reference."""
        cap = window.cap
        over = self._over_cap(window, plan, lo, end)
        protected: set[int] | None = None
        if over:
            protected = self._protected(lo, end)
            for p in sorted(over):
                sent = self._stage1(plan, p)
                assert isinstance(sent, ToolResultMessage)
                keep = max(provider_budget.RECOVERY_MIN_KEEP_CHARS, MIN_KEEP_CHARS) if p in protected else 0
                cut = truncate_tool_result_message(sent, cap, min_keep_chars=keep)
                if cut is not sent:
                    plan.stage2[p] = cut
        tb_delta = 0
        tbn_delta = 0
        after: dict[int, int] = {}
        if plan.stage1 or plan.stage2:
            for p in {*plan.stage1, *plan.stage2}:
                base = self._weight(p).tb
                final = self._stage2(plan, p)
                tb = provider_budget.text_budget(final)
                after[p] = tb
                tb_delta += tb - base
                tbn_delta += (tb > 0) - (base > 0)
        n = self._n
        count = n.tbn[end] - n.tbn[lo] + self._sum_tbn.range(lo, end) + tbn_delta
        total = n.tb[end] - n.tb[lo] + self._sum_tb.range(lo, end) + tb_delta
        if count < 2 or total <= window.aggregate:
            return
        unfrozen = [p for p in self._unfrozen if lo <= p < end]
        if not unfrozen:
            return  # no result is sent for the first time: none the aggregate could cut
        recorded = {p for p, _, _ in plan.records1}
        if protected is None:
            protected = self._protected(lo, end)
        for p in unfrozen:
            if p in protected or p in recorded:
                continue
            tb = after[p] if p in after else self._weight(p).tb
            if tb > 0:
                raise _Fallback("aggregate")

    def _over_cap(self, window: _Window, plan: _Plan, lo: int, end: int) -> set[int]:
        """The results of the context over the per-result cap, as the cache-TTL pass left them."""
        cap = window.cap
        over: set[int] = set()
        natives_over = window.over_cap
        rewritten = False
        for p in natives_over[bisect_left(natives_over, lo) : bisect_left(natives_over, end)]:
            if p in self._current:
                rewritten = True  # the budget sees the rewrite from now on (the sums cover it)
            elif p not in plan.stage1:
                over.add(p)
        if rewritten:
            # Each result is dropped once, so a session of long results is not walked at every call.
            window.over_cap = [p for p in natives_over if p not in self._current]
        big = self._big_tb
        for _, p in big[bisect_right(big, (cap, len(self._natives))) :]:
            if lo <= p < end and p not in plan.stage1:
                over.add(p)
        for p, message in plan.stage1.items():
            if provider_budget.text_budget(message) > cap:
                over.add(p)
        return over

    def _stage2(self, plan: _Plan, position: int) -> AgentMessage:
        found = plan.stage2.get(position)
        return found if found is not None else self._stage1(plan, position)

    def _merges(self, plan: _Plan) -> None:
        """The budget's records, and what every record replays as from the next call (or fall back)."""
        modes: dict[int, Mode | None] = {}
        for p, mode, _ in plan.records1:
            modes[p] = mode
        for p in sorted(plan.stage2):
            if p in modes:
                mode = modes[p]
            else:
                key = self._n.keys[p]
                existing = self._projections.get(key) if key is not None else None
                mode = existing.mode if existing is not None else None
            plan.records2.append((p, mode, plan.stage2[p]))
        last: dict[int, Projection] = {}
        for p, mode, message in (*plan.records1, *plan.records2):
            last[p] = projection_of(message, mode)
        for p, projection in last.items():
            merged = self._replay_onto(p, projection)
            if merged is self._base(p):
                if p not in self._cleaned:
                    raise _Fallback("replay")
                plan.reverts.add(p)  # made from a cleaned message, from texts the source is not
            plan.merged[p] = merged

    def _record(self, p: int, mode: Mode | None, message: ToolResultMessage) -> None:
        key = self._n.keys[p]
        assert key is not None
        projection = projection_of(message, mode)
        self._projections[key] = projection
        self._log.events.append(("project", key, projection))
        if key not in self._frozen:
            self._frozen.add(key)
            self._log.events.append(("freeze", key, None))

    def _commit_sources(self, positions: list[int]) -> None:
        """The source texts of the keys this call sends for the first time."""
        if not positions:
            return
        events, keys, texts, sources = self._log.events, self._n.keys, self._n.texts, self._sources
        for p in positions:
            key, found = keys[p], texts[p]
            assert key is not None and found is not None  # every keyed result's, read with the facts
            sources.add(key)
            events.append(("source", key, found))
        if positions is self._unsourced:
            self._unsourced = []  # every one was sourced just now
        else:
            self._unsourced = [p for p in self._unsourced if keys[p] not in sources]

    def _commit_stage1(self, plan: _Plan, seq: int) -> ProjectionState:
        """Sources, the pass's records and its rewrites; the state the cache-TTL outcome reports."""
        self._commit_sources(plan.sources)
        for p, mode, message in plan.records1:
            self._record(p, mode, message)
        for p, message in plan.stage1.items():
            self._set_current(p, seq, message)
            if p not in plan.reverts:
                self._replays_from(p, seq)
        for p, mode, _ in plan.records1:
            todo = self._soft_todo
            k = bisect_left(todo, p)
            if k < len(todo) and todo[k] == p:
                del todo[k]
            if mode == "hard":
                not_hard = self._not_hard
                k = bisect_left(not_hard, p)
                if k < len(not_hard) and not_hard[k] == p:
                    del not_hard[k]
                    if p < self._pass_fed:
                        self._sum_eligible.add(p, -self._weight(p).mc)
        return self._logged()

    def _commit_stage2(self, plan: _Plan, seq: int, lo: int, end: int) -> ProjectionState:
        """The budget's records and cuts, every key in the context frozen; the state after the call."""
        for p, mode, message in plan.records2:
            self._record(p, mode, message)
        for p, message in plan.stage2.items():
            self._set_current(p, seq, message)
            if p not in plan.reverts:
                self._replays_from(p, seq)
        if self._unfrozen:
            self._freeze(lo, end)
        return self._logged()

    def _freeze(self, lo: int, end: int) -> None:
        """Every key of the context frozen (those of results sent for the first time)."""
        events, keys, frozen = self._log.events, self._n.keys, self._frozen
        keep: list[int] = []
        for p in self._unfrozen:
            key = keys[p]
            assert key is not None
            if key in frozen:
                continue
            if lo <= p < end:
                frozen.add(key)
                events.append(("freeze", key, None))
            else:
                keep.append(p)
        self._unfrozen = keep
