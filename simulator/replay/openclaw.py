"""Replays a transcript through OpenClaw, call by call, sending what OpenClaw sends.

OpenClaw never forgets: the session keeps every message, and each model call of an attempt goes through the
attempt's transforms (:mod:`simulator.runtimes.openclaw.attempt`, in the runtime's order; 2026.7.1: the
cache-TTL pruning hook, the tool-result context guard, history image cleanup, the transcript policy;
2026.9.6: image cleanup, sticky cache-TTL projections, the guard, image cleanup again, the provider-bound
tool-result budget, the transcript policy, provider-side compaction). The replay drives them from the
transcript (:mod:`openclaw_session`):

* an attempt starts at each real user message: :func:`start_attempt` with the reply's route (provider and
  model as the transcript records them, else the profile's) and the ``openclaw.cache-ttl`` markers so far;
  a route the pruning is not installed for says "context pruning is not active for <provider>";
* each call runs :func:`attempt_step` (or its fast equivalent, :mod:`openclaw_transforms`) at the reply's
  request time; a call the fast transforms find nothing changes at (most calls of a long session: the
  gate closed or the cache warm, nothing over a budget, no image to clean) is answered without its
  outcome -- the state after it and its plain record (:func:`_quiet_record`) -- and
  ``tests/simulator/test_openclaw_quiet.py`` and ``test_openclaw_fast_2026_9.py`` check each such answer
  against the reference's outcome; so is a 2026.9.6 call whose only changes are old screenshots cleaned
  and old thinking stripped (every later call of a session that has them): :func:`_kept_record`;
* an attempt ends at the time its reply's entry was written: the transcript's own marker after it is read
  by the next attempt when it records one, else the marker OpenClaw would have appended
  (:func:`end_attempt`, stamped when the reply finished — not when the request started);
* 2026.9.6 provider-side compaction is marked at the call where the estimated prompt reaches its
  threshold; later calls send a summary of ``trimscope.compactionSummaryTokens`` instead of the messages
  before that point (Trimscope cannot know what a summary would say).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial

import msgspec

from simulator.replay.loop import ModelCall
from simulator.replay.made_on_read import MadeWhenRead
from simulator.replay.model import (
    BudgetExplanation,
    CallColumns,
    CallRecord,
    CallRecords,
    Fate,
    FateGroup,
    Rare,
    SimulationResult,
    call_record,
    rare_of,
    slot_builder,
)
from simulator.replay.openclaw_fast import FastPrune
from simulator.replay.openclaw_session import (
    OpenClawNatives,
    PlannedCall,
    SessionPlan,
    native_messages,
    plan_session,
)
from simulator.replay.openclaw_transforms import (
    FastTransforms,
    Outcome,
    QuietChanges,
    ReferenceTransforms,
    Transforms,
    reference_outcome,
)
from simulator.replay.openclaw_transforms_2026_9 import UNCHANGED, FastTransforms2026_9, KeptChanges
from simulator.replay.openclaw_views import ChangedView
from simulator.runtimes.openclaw.attempt import (
    AttemptSetup,
    AttemptState,
    CacheTtlMarker,
)
from simulator.runtimes.openclaw.estimate import estimate_message_chars
from simulator.runtimes.openclaw.image_prune import PRESERVE_RECENT_COMPLETED_TURNS
from simulator.runtimes.openclaw.messages import (
    AgentMessage,
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from simulator.runtimes.openclaw.route import OpenClawVersion
from simulator.runtimes.openclaw.settings import EffectivePruningSettings, OpenClawSettings
from simulator.runtimes.openclaw.ttl_gate import GateDecision, TtlGateOutcome
from simulator.specs.openclaw.budget import duration as _duration
from simulator.specs.openclaw.budget import explain_budget
from simulator.transcript import Transcript

CHARS_PER_TOKEN = 4
ESTIMATOR = "OpenClaw chars / 4 (CJK ×4, 8,000 chars per image)"
_COMPACTION_NAMES = {
    "openai-responses": "OpenAI Responses server compaction",
    "anthropic-compact-2026-01-12": "Anthropic compact-2026-01-12",
}


def _tokens(chars: float) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


@dataclass(frozen=True, slots=True)
class CallInput:
    """What recomputing one call needs: the attempt, the state before the call, its time and history."""

    setup: AttemptSetup
    state: AttemptState
    now: float
    end: int
    on_demand: OnDemand | None = field(default=None, compare=False, repr=False)
    """One for the whole replay (every call holds the same): recomputes a call without converting the
    transcript again."""
    changed: ChangedView | None = field(default=None, compare=False, repr=False)
    """2026.9.6: what the call sent changed, as the replay's fast transforms answered it: a view stamped
    with the call, which reads the same later (``openclaw_views``), kept so a call is not recomputed from
    its whole history. ``None`` when the call fell back to the reference (its changes are a dict that
    may hold much of the history: not kept per call)."""


class OnDemand:
    """Recomputes what a call of one replay sent, for any call in any order, at the cost of that call.

    The cost model asks for every call whose messages a rule changed: the reference (every transform over
    the call's whole history) made that the square of the session. 2026.7.1's fast transforms answer any
    call from facts kept per message, which only grow (for any prefix of the history), and from the
    state the replay kept for that call: the replay's own, whose facts already cover the session (a late
    call of a long session was most of its view, growing them again); 2026.9.6 reads the view its replay
    kept for the call (``CallInput.changed``), else runs the reference for the call.
    """

    __slots__ = ("_contents", "_fast", "_lock", "natives", "prepared")

    def __init__(
        self, natives: Sequence[AgentMessage], prepared: OpenClawNatives, fast: FastTransforms | None = None
    ) -> None:
        self.natives = natives
        self.prepared = prepared
        self._fast = fast
        self._lock = threading.Lock()
        self._contents: dict[int, tuple[AgentMessage, tuple[int, str]]] = {}

    def as_sent(self, message: AgentMessage) -> tuple[int, str]:
        """``(tokens, text)`` of a message as sent, by identity: a pruned message is the same object at
        every call that sends it so (the entry keeps it alive, so its id is not reused)."""
        hit = self._contents.get(id(message))
        if hit is None:
            hit = (message, (_tokens(estimate_message_chars(message)), message_text(message)))
            self._contents[id(message)] = hit
        return hit[1]

    def outcome(self, item: CallInput) -> Outcome:
        if item.setup.version != "2026.7.1":
            return reference_outcome(self.natives, item.setup, item.state, item.now, item.end)[0]
        # One call at a time: the facts grow as calls are asked for (and the replay's were handed over
        # when it ended: it no longer uses them).
        with self._lock:
            if self._fast is None:
                p = self.prepared
                self._fast = FastTransforms(
                    self.natives, p.chars, p.guard_chars, p.media_and_thinking, p.strips
                )
            return self._fast.call(item.setup, item.state, item.now, item.end)[0]


@dataclass(frozen=True, slots=True)
class _Session:
    """What does not change between calls; ``inputs`` grows with each call (for on-demand contents)."""

    plan: SessionPlan
    version: OpenClawVersion
    prefix: tuple[int, ...]
    budget: BudgetExplanation
    transforms: Transforms
    summary_chars: int
    transcript: Transcript
    on_demand: OnDemand
    inputs: list[CallInput | _Pending] = field(default_factory=list)
    sizes: dict[int, tuple[AgentMessage, int]] = field(default_factory=dict)
    """Estimates of messages as sent, by identity (a rewritten message is often sent again, unchanged)."""
    image_fates: list[tuple[Sequence[int], str, FateGroup]] = field(default_factory=list)
    """The last cleaned messages a record named, with its note and fate group (:func:`_changed_record`:
    a session with old screenshots sends the same ones call after call, in one view); none or one."""

    def size(self, message: AgentMessage) -> int:
        hit = self.sizes.get(id(message))
        if hit is None:
            # The entry keeps the message alive, so its id is not reused while cached.
            hit = (message, estimate_message_chars(message))
            self.sizes[id(message)] = hit
        return hit[1]


def replay_openclaw(
    transcript: Transcript,
    settings: OpenClawSettings,
    *,
    profile_name: str,
    reference: bool = False,
    prepared: OpenClawNatives | None = None,
) -> SimulationResult:
    """Replay ``transcript`` through OpenClaw at the profile's version.

    Args:
        transcript: The imported session.
        settings: A validated OpenClaw profile.
        profile_name: Shown in the result.
        reference: Run :func:`attempt_step` on every call's whole history (quadratic) instead of the fast
            transforms; both give the same records.
        prepared: :func:`prepare_openclaw` of this transcript, when the caller kept it.

    Returns:
        One record per model call (what OpenClaw sent, and why).
    """
    plan = plan_session(transcript, settings, prepared)
    version: OpenClawVersion = "2026.9.6" if settings.version == "2026.9.6" else "2026.7.1"
    prefix = plan.prepared.prefix
    transforms: Transforms
    if reference:
        transforms = ReferenceTransforms(plan.natives)
    elif version == "2026.9.6":
        p = plan.prepared
        transforms = FastTransforms2026_9(p.natives, p.media_and_thinking, p.chars, p.strips, p.kept_2026_9)
    else:
        p = plan.prepared
        transforms = FastTransforms(plan.natives, p.chars, p.guard_chars, p.media_and_thinking, p.strips)
    summary = plan.config.compaction_summary_tokens * CHARS_PER_TOKEN  # the stand-in summary, by design
    # The replay's own 2026.7.1 fast transforms answer its calls on demand once it has ended.
    on_demand = OnDemand(
        plan.natives, plan.prepared, transforms if isinstance(transforms, FastTransforms) else None
    )
    session = _Session(
        plan, version, prefix, explain_budget(settings), transforms, summary, transcript, on_demand
    )
    calls, resume = _run(session)
    return SimulationResult(
        runtime="openclaw",
        version=version,
        profile_name=profile_name,
        budget=session.budget,
        window=session.budget.window,
        calls=calls,
        origins=plan.origins,
        # ceil(chars / 4) on whole numbers, without a float per message.
        native_tokens=tuple(
            [(b - a + 3) // CHARS_PER_TOKEN for a, b in zip(prefix, prefix[1:], strict=False)]
        ),
        dropped_at=(0,) * len(plan.natives),
        drop_rules=("",) * len(plan.natives),
        content_changes=(),
        estimator=ESTIMATOR,
        warnings=plan.warnings,
        resume=resume,
    )


def _run(session: _Session) -> tuple[Sequence[CallRecord], Sequence[object]]:
    """Every model call in order (``loop.run_calls`` with OpenClaw's step inline, what carries from call to
    call held in locals: the attempt's setup and state, the session's markers so far, the next recorded
    marker an attempt may read, the call a provider-side compaction fired at): open the attempt when the
    call starts one, run the transforms, close it after its reply. Gives the records and the resume
    entries, made when read for the calls that only clean or strip (:data:`_Pending`,
    :func:`_made_when_read`)."""
    transforms, inputs, on_demand = session.transforms, session.inputs, session.on_demand
    quiet = _quiet_calls(session) if PLAIN_RECORDS else None
    setup: AttemptSetup | None = None
    attempt = AttemptState()
    markers: list[CacheTtlMarker] = []  # the one growing buffer (copying it per attempt was quadratic)
    recorded_at = 0
    compaction_call: int | None = None
    records: list[object] = []  # a record, or a call's pending entry (_Pending)
    for planned in session.plan.calls:
        call = planned.call
        if planned.starts_attempt or setup is None:
            setup, attempt, recorded_at = _start(session, planned, markers, attempt, recorded_at)
        if quiet is not None and (answered := quiet(planned, setup, attempt)) is not None:
            record, after = answered  # a call nothing changes at (most calls): its plain record, its state
        else:
            now, available = planned.now, call.available
            outcome, after = transforms.call(setup, attempt, now, available)
            changed = outcome.changed
            kept = changed if type(changed) is ChangedView else None  # a final class
            inputs.append(_call_input(setup, attempt, now, available, on_demand, kept))
            if outcome.compaction is not None:
                compaction_call = call.number
            record = _record(session, planned, call, setup, outcome, compaction_call)
        if planned.attempt_end is not None:
            _end_attempt(session, planned, setup, markers, recorded_at)
        attempt = after
        # Every runtime's failed call is recorded as failed, whatever its step made of the error (a pending
        # record is made so: _made_record).
        if call.error is None or not isinstance(record, CallRecord):
            records.append(record)
        else:
            records.append(msgspec.structs.replace(record, error=call.error))
    return _made_when_read(session, records)


_Pending = tuple[PlannedCall, AttemptSetup, AttemptState, KeptChanges | QuietChanges, tuple[str, ...] | None]
"""A call whose only changes are old images cleaned and old thinking stripped, answered without its
outcome (2026.9.6's ``kept_call``, 2026.7.1's ``quiet_gate``), with the state before it, what it sends
changed and (2026.7.1) its gate's notes: its record and its resume entry are made from this when first
read (:func:`_made_record`, :func:`_made_input`)."""

_Quiet = Callable[
    [PlannedCall, AttemptSetup, AttemptState], "tuple[CallRecord | _Pending, AttemptState] | None"
]


def _made_when_read(
    session: _Session, records: list[object]
) -> tuple[Sequence[CallRecord], Sequence[object]]:
    """The replay's records and resume entries: tuples when every call's record was made while replaying;
    else made when read (:class:`~simulator.replay.model.CallRecords`), with the columns a timeline reads
    of every call. The records are made from a copy of the session without its transforms and its planned
    calls, which no record reads (each the size of the session: a kept replay holds neither)."""
    if not any(type(item) is tuple for item in records):
        return tuple(records), tuple(session.inputs)  # type: ignore[arg-type]  # every one a record
    prefix = session.prefix
    numbers: list[int] = []
    indices: list[int] = []
    full: list[int] = []
    sent: list[int] = []
    trimmed: list[bool] = []
    rare: list[Rare] = []
    for item in records:
        if type(item) is tuple:
            planned, _, _, changes, _ = item
            call = planned.call
            held = prefix[call.available]
            numbers.append(call.number)
            indices.append(call.message_index)
            # _sent_whole's counts of _changed_record's record: ceil(chars / 4) on whole numbers.
            full.append(-(-held // CHARS_PER_TOKEN))
            sent.append(-(-(held - prefix[0] + changes.sent_delta) // CHARS_PER_TOKEN))
            # _changed_record's changed: a 2026.7.1 cleaned record's always (_cleaned_record)
            trimmed.append(bool(changes.changed) if type(changes) is KeptChanges else True)
            error = call.error
            if error is None:
                rare.append(_KEPT_IMAGES_RARE if changes.images else _KEPT_RARE)
            else:
                rare.append(("none", (), _IMAGE_MARKS if changes.images else (), error))
        else:
            assert isinstance(item, CallRecord)
            numbers.append(item.number)
            indices.append(item.message_index)
            full.append(item.tokens_full)
            sent.append(item.tokens_sent)
            trimmed.append(item.trimmed)
            rare.append(rare_of(item))
    # Nor its plan's calls: a record is made from its own pending entry, which holds its planned call.
    plan = replace(session.plan, calls=(), recorded=())
    slim = replace(session, plan=plan, transforms=_NO_TRANSFORMS, inputs=[], sizes={})
    columns = CallColumns(numbers, indices, full, sent, trimmed, rare)
    calls = CallRecords(records, partial(_made_record, slim), columns)
    return calls, MadeWhenRead(list(session.inputs), partial(_made_input, session.on_demand))


def _made_record(session: _Session, pending: tuple[object, ...]) -> CallRecord:
    """The record of a call left pending (:data:`_Pending`), as the replay would have made it then:
    :func:`_kept_record` or :func:`_cleaned_record`, failed when the transcript says so."""
    planned, setup, attempt, changes, notes = pending
    assert isinstance(planned, PlannedCall) and isinstance(setup, AttemptSetup)
    assert isinstance(attempt, AttemptState)
    if isinstance(changes, KeptChanges):
        record = _kept_record(session, planned, setup, attempt.clock.last_cache_touch_at, changes)
    else:
        assert isinstance(changes, QuietChanges) and isinstance(notes, tuple)
        record = _cleaned_record(session, planned, setup, notes, changes)
    error = planned.call.error
    return record if error is None else msgspec.structs.replace(record, error=error)


def _made_input(on_demand: OnDemand, pending: tuple[object, ...]) -> CallInput:
    """The resume entry of a call left pending, as the replay would have made it then (the view a call
    keeps is 2026.9.6's: a 2026.7.1 call is recomputed on demand)."""
    planned, setup, attempt, changes, _ = pending
    assert isinstance(planned, PlannedCall) and isinstance(setup, AttemptSetup)
    assert isinstance(attempt, AttemptState)
    changed = changes.changed if isinstance(changes, KeptChanges) else None
    return _call_input(setup, attempt, planned.now, planned.call.available, on_demand, changed)


_NO_TRANSFORMS = ReferenceTransforms(())
"""What the records' copy of a session holds for transforms: nothing (a record reads none)."""
_KEPT_RARE: Rare = ("none", (), (), None)
_KEPT_IMAGES_RARE: Rare = ("none", (), ("image-cleanup",), None)
"""A kept call's ``(overflow, retries, marks, error)``: its record's, shared (most calls)."""


_KeptCall = Callable[
    [AttemptSetup, AttemptState, float, int], "tuple[Outcome | KeptChanges, AttemptState] | None"
]


def _quiet_calls(session: _Session) -> _Quiet | None:
    """What answers a call nothing changes at without its outcome, for the fast transforms (the reference
    and the records' reference path, ``PLAIN_RECORDS`` off, answer every call through ``call``)."""
    transforms = session.transforms
    if isinstance(transforms, FastTransforms2026_9):
        return partial(_quiet_2026_9, transforms.quiet_state, transforms.kept_call, session)
    if isinstance(transforms, FastTransforms):
        return partial(_quiet_2026_7, transforms.quiet_gate, session)
    return None


def _quiet_2026_9(
    ask: Callable[[AttemptSetup, AttemptState, float, int], AttemptState | None],
    kept: _KeptCall,
    session: _Session,
    planned: PlannedCall,
    setup: AttemptSetup,
    attempt: AttemptState,
) -> tuple[CallRecord | _Pending, AttemptState] | None:
    """A 2026.9.6 call ``FastTransforms2026_9.quiet_state`` answers: its outcome would change and replay
    nothing, its last touch the attempt's; the record is :func:`_plain_record`'s of that outcome. Else one
    ``kept_call`` answers: what it sends changed is history image cleanup's and the transcript policy's
    alone (old screenshots cleaned, old thinking stripped: every later call of such a session), the record
    :func:`_kept_record`; or the outcome ``kept_call`` ran the call to, recorded as :func:`_run` does."""
    call, now = planned.call, planned.now
    after = ask(setup, attempt, now, call.available)
    if after is None:
        answer = kept(setup, attempt, now, call.available)
        if answer is None:
            return None
        changes, after = answer
        if type(changes) is KeptChanges:  # a final class
            # Its record and resume entry, made when read (most calls of a session with old screenshots
            # or thinking: a page reads one of them).
            pending = (planned, setup, attempt, changes, None)
            session.inputs.append(pending)
            return pending, after
        assert isinstance(changes, Outcome)
        changed = changes.changed
        view = changed if type(changed) is ChangedView else None
        session.inputs.append(_call_input(setup, attempt, now, call.available, session.on_demand, view))
        # kept_call answers no call of a setup that compacts: no compaction fired before it
        return _record(session, planned, call, setup, changes, None), after
    session.inputs.append(_call_input(setup, attempt, now, call.available, session.on_demand, UNCHANGED))
    settings = setup.cache_ttl
    assert settings is not None  # quiet_state answers only calls with the pass on (so active)
    decision, elapsed = _ttl_decision(settings.ttl_ms, attempt.clock.last_cache_touch_at, now)
    notes = _gate_notes(decision, elapsed, settings.ttl_ms)
    return _quiet_record(session, planned, setup, notes, False), after


def _quiet_2026_7(
    ask: Callable[
        [AttemptSetup, AttemptState, float, int], tuple[TtlGateOutcome, bool, QuietChanges | None] | None
    ],
    session: _Session,
    planned: PlannedCall,
    setup: AttemptSetup,
    attempt: AttemptState,
) -> tuple[CallRecord | _Pending, AttemptState] | None:
    """A 2026.7.1 call ``FastTransforms.quiet_gate`` answers: the gate closed, nothing guarded, the state as
    it was; the record is :func:`_plain_record`'s of that outcome when it changed nothing (or overflowed),
    else :func:`_full_record`'s of old images cleaned and thinking stripped (:func:`_cleaned_record`)."""
    call, now = planned.call, planned.now
    answer = ask(setup, attempt, now, call.available)
    if answer is None:
        return None
    gate, overflow, changes = answer
    pruning = setup.pruning
    assert pruning is not None  # quiet_gate answers only calls with pruning active
    notes = _gate_notes(gate.decision, gate.elapsed_ms, pruning.settings.ttl_ms)
    if changes is not None:
        # Its record and resume entry, made when read (most calls of a session with old screenshots or
        # thinking), as a kept 2026.9.6 call's.
        pending = (planned, setup, attempt, changes, notes)
        session.inputs.append(pending)
        return pending, attempt
    # The view a call keeps is 2026.9.6's: a 2026.7.1 call is recomputed on demand, quiet or not.
    session.inputs.append(_call_input(setup, attempt, now, call.available, session.on_demand, None))
    return _quiet_record(session, planned, setup, notes, overflow), attempt


def _start(
    session: _Session,
    planned: PlannedCall,
    markers: list[CacheTtlMarker],
    attempt: AttemptState,
    recorded_at: int,
) -> tuple[AttemptSetup, AttemptState, int]:
    """An attempt's start: the markers the transcript records before its call read, then ``start``."""
    plan, call = session.plan, planned.call
    recorded = plan.recorded
    while recorded_at < len(recorded) and recorded[recorded_at].before_message <= call.message_index:
        markers.append(recorded[recorded_at].marker)
        recorded_at += 1
    setup, attempt = session.transforms.start(
        plan.config, planned.route, markers, attempt, session.version, call.available
    )
    return setup, attempt, recorded_at


def _end_attempt(
    session: _Session,
    planned: PlannedCall,
    setup: AttemptSetup,
    markers: list[CacheTtlMarker],
    recorded_at: int,
) -> None:
    """The marker OpenClaw appends after an attempt's reply, unless the transcript records one between
    this attempt's reply and the next attempt (read by the next attempt)."""
    calls, recorded, number = session.plan.calls, session.plan.recorded, planned.call.number
    if number >= len(calls):
        recorded_after = True
    elif recorded_at >= len(recorded):
        recorded_after = False
    else:
        recorded_after = recorded[recorded_at].before_message <= calls[number].call.message_index
    if not recorded_after and setup.appends_marker:
        # end_attempt(setup, (), ended)'s marker, built positionally (half the calls end an attempt).
        route = setup.route
        markers.append(_marker(planned.attempt_end, route.provider, route.model_id))


def _record(
    session: _Session,
    planned: PlannedCall,
    call: ModelCall,
    setup: AttemptSetup,
    outcome: Outcome,
    compaction_call: int | None,
) -> CallRecord:
    """The call's record: _plain_record for a call no rule changed and nothing compacted (most calls),
    else _full_record (the reference: tests/simulator/test_openclaw_plain_records.py compares them)."""
    pruned, ttl, sticky = outcome.pruned, outcome.cache_ttl, outcome.sticky
    if (
        outcome.compacted_through is None
        and outcome.compaction is None
        and (pruned is None or not pruned.changed)
        and not (outcome.guard or outcome.images or outcome.budget or outcome.policy)
        # 2026.9.6's pass, when it changed nothing and replayed nothing (see _cache_ttl_groups)
        and (
            ttl is None
            or (sticky is not None and not (ttl.soft_trimmed or ttl.hard_cleared or sticky[0] or sticky[1]))
        )
        and setup.inactive_reason is None
        and PLAIN_RECORDS
    ):
        return _plain_record(session, planned, call, setup, outcome)
    return _full_record(session, planned, call, setup, outcome, compaction_call)


_call_input = slot_builder(CallInput)
"""``CallInput(...)`` positionally (one per call: see :func:`slot_builder`)."""
_marker = slot_builder(CacheTtlMarker)


# -- records --------------------------------------------------------------------------------------------


def _inactive_note(setup: AttemptSetup) -> str | None:
    if setup.inactive_reason == "provider_not_eligible":
        return f"context pruning is not active for {setup.route.provider}"
    if setup.inactive_reason == "settings_invalid":
        return "contextPruning settings did not resolve: the pruning extension is not installed"
    return None


def _ttl_decision(ttl: float, touched: float | None, now: float) -> tuple[GateDecision, float | None]:
    """2026.9.6's gate as its note tells it: the decision and the time since the last touch."""
    if not touched:
        return "no_marker", None
    elapsed = now - touched
    return ("ttl_disabled" if ttl <= 0 else "ttl_not_expired" if elapsed < ttl else "unchanged"), elapsed


def _gate_note(outcome: Outcome, setup: AttemptSetup, now: float, notes: list[str]) -> None:
    if setup.version == "2026.7.1":
        if outcome.gate is None or setup.pruning is None:
            return
        decision, elapsed, ttl = outcome.gate.decision, outcome.gate.elapsed_ms, setup.pruning.settings.ttl_ms
    else:
        if setup.cache_ttl is None:
            return
        ttl = setup.cache_ttl.ttl_ms
        decision, elapsed = _ttl_decision(ttl, outcome.last_touch_before, now)
    note = _gate_text(decision, elapsed, ttl)
    if note is not None:
        notes.append(note)


_NO_MARKER_NOTE = "no cache-TTL marker yet: OpenClaw does not prune"


@lru_cache(maxsize=4096)
def _gate_notes(decision: str, elapsed: float | None, ttl: float) -> tuple[str, ...]:
    """:func:`_gate_text` as a plain record's notes (remembered: a tuple per note, not one per call)."""
    note = _gate_text(decision, elapsed, ttl)
    return () if note is None else (note,)


@lru_cache(maxsize=4096)
def _gate_text(decision: str, elapsed: float | None, ttl: float) -> str | None:
    """The gate's note (remembered: a session's gaps repeat, and every call has one)."""
    if decision == "no_marker":
        return _NO_MARKER_NOTE
    if decision == "ttl_not_expired" and elapsed is not None:
        return f"cache still warm: {_duration(elapsed)} since the last touch < ttl {_duration(ttl)}"
    if decision == "ttl_disabled":
        return "ttl 0: pruning disabled"
    if elapsed is not None:
        return f"cache TTL expired ({_duration(elapsed)} since the last touch)"
    return None


def _skip_note(view: FastPrune, effective: EffectivePruningSettings, notes: list[str]) -> None:
    if view.skipped == "below_soft_trim_ratio" and view.ratio_before is not None:
        notes.append(
            f"ratio {view.ratio_before:.2f} < softTrimRatio {effective.soft_trim_ratio:g}: nothing to prune"
        )
    elif view.skipped == "too_few_assistants":
        notes.append(
            f"fewer than keepLastAssistants {effective.keep_last_assistants:g} assistant messages: "
            "nothing prunable"
        )


def _pruning_groups(view: FastPrune, effective: EffectivePruningSettings) -> list[FateGroup]:
    ratio = view.ratio_before or 0.0
    out: list[FateGroup] = []
    if view.soft_trimmed:
        rule = f"soft trim: ratio {ratio:.2f} ≥ softTrimRatio {effective.soft_trim_ratio:g}"
        out.append(FateGroup(Fate.SOFT_TRIMMED, rule, view.soft_trimmed))
    if view.images_replaced:
        rule = "images in tool results replaced during soft trim"
        out.append(FateGroup(Fate.IMAGE_REPLACED, rule, view.images_replaced))
    if view.hard_cleared:
        after_soft = view.ratio_after_soft_trim or 0.0
        rule = f"hard clear: ratio {after_soft:.2f} ≥ hardClearRatio {effective.hard_clear_ratio:g}"
        out.append(FateGroup(Fate.HARD_CLEARED, rule, view.hard_cleared))
    return out


def _cache_ttl_groups(outcome: Outcome, setup: AttemptSetup) -> list[FateGroup]:
    ttl = outcome.cache_ttl
    if ttl is None or setup.cache_ttl is None:
        return []
    sticky = outcome.sticky
    if sticky is not None and not (ttl.soft_trimmed or ttl.hard_cleared or sticky[0] or sticky[1]):
        return []  # the pass changed nothing and replayed nothing (most calls): no rule, no text
    through = outcome.compacted_through

    def native(indexes: Sequence[int]) -> tuple[int, ...]:
        if through is None:
            return tuple(indexes)
        return tuple(through + i - 1 for i in indexes if i > 0)

    ratio = f"ratio {ttl.ratio:.2f}" if ttl.ratio is not None else "over the threshold"
    out: list[FateGroup] = []
    trimmed_again: Sequence[int]
    cleared_again: Sequence[int]
    if outcome.sticky is not None:
        trimmed_again, cleared_again = outcome.sticky
    else:
        placeholder = setup.cache_ttl.placeholder
        replayed = native(ttl.replayed)
        cleared_again = tuple(i for i in replayed if _text(outcome.changed.get(i)) == placeholder)
        trimmed_again = tuple(i for i in replayed if i not in cleared_again)
    if ttl.soft_trimmed:
        out.append(
            FateGroup(
                Fate.SOFT_TRIMMED, f"soft trim: {ratio} ≥ 0.3 (fixed in 2026.9.6)", native(ttl.soft_trimmed)
            )
        )
    if trimmed_again:
        out.append(
            FateGroup(
                Fate.SOFT_TRIMMED,
                "soft-trimmed at an earlier call: sent the same way (sticky)",
                trimmed_again,
            )
        )
    if ttl.hard_cleared:
        out.append(
            FateGroup(
                Fate.HARD_CLEARED, f"hard clear: {ratio} ≥ 0.5 (fixed in 2026.9.6)", native(ttl.hard_cleared)
            )
        )
    if cleared_again:
        out.append(
            FateGroup(
                Fate.HARD_CLEARED, "cleared at an earlier call: sent the same way (sticky)", cleared_again
            )
        )
    return out


def _text(message: AgentMessage | None) -> str | None:
    if message is None:
        return None
    return message_text(message)


def message_text(message: AgentMessage) -> str:
    """A message's text as the page shows it (images as ``[image]``)."""
    if isinstance(message, UserMessage | ToolResultMessage | AssistantMessage):
        content = message.content
        if isinstance(content, str):
            return content
        if not isinstance(content, tuple):
            return ""
        parts = []
        for block in content:
            if isinstance(block, TextContent):
                parts.append(block.text)
            elif isinstance(block, ImageContent):
                parts.append("[image]")
        return "\n".join(parts)
    raw = message.to_json()
    summary = raw.get("summary") if isinstance(raw, dict) else None
    return summary if isinstance(summary, str) else ""


def _groups(outcome: Outcome, setup: AttemptSetup, session: _Session, call: ModelCall) -> list[FateGroup]:
    out: list[FateGroup] = []
    if outcome.compaction is not None:
        kind = outcome.compaction.plan.kind
        rule = (
            f"{_COMPACTION_NAMES.get(kind, kind)}: the estimated "
            f"prompt ({outcome.compaction.estimated_tokens:,} tokens) reaches its threshold "
            f"({outcome.compaction.plan.threshold:,}); later calls send a summary instead"
        )
        start = outcome.compacted_through or 0
        out.append(FateGroup(Fate.COMPACTED, rule, range(start, call.available)))
    if outcome.pruned is not None and outcome.pruned.changed and setup.pruning is not None:
        out += _pruning_groups(outcome.pruned, setup.pruning.settings)
    out += _cache_ttl_groups(outcome, setup)
    if outcome.guard:
        out.append(
            FateGroup(
                Fate.TRUNCATED,
                "tool-result context guard: a single result over its share of the window, truncated",
                outcome.guard,
            )
        )
    if outcome.images:
        out.append(FateGroup(Fate.IMAGE_REPLACED, _IMAGE_RULE, outcome.images))
    if outcome.budget:
        rule = "provider-bound tool-result budget (2026.9.6): cut or elided at the stream"
        out.append(FateGroup(Fate.TRUNCATED, rule, outcome.budget))
    if outcome.policy:
        out.append(FateGroup(Fate.THINKING_DROPPED, _policy_texts(setup.route.model_id)[1], outcome.policy))
    return out


_IMAGE_RULE = (
    "history image cleanup: images and media references in turns before the last "
    f"{PRESERVE_RECENT_COMPLETED_TURNS} completed turns replaced (already processed by the model)"
)
PLAIN_RECORDS = True
"""Whether :func:`_run` takes the plain record path (tests turn it off to compare it with the reference)."""
_OVERFLOW_NOTE = (
    "preemptive overflow: the context guard stopped the call "
    "(estimated context over 90% of the window; the call is not sent)"
)
_SERVER_CLEARING_NOTE = (
    "Anthropic server-side tool clearing is on (cache-ttl, API key, direct Anthropic): "
    "OpenClaw 2026.9.6 prunes no new tool rounds locally"
)


def _plain_record(
    session: _Session, planned: PlannedCall, call: ModelCall, setup: AttemptSetup, outcome: Outcome
) -> CallRecord:
    """:func:`_full_record` of a call with no fates, no compaction and no reason its pruning is inactive:
    its notes are the gate's, a pass's skip, the route's (and server-side clearing's) on an attempt's first
    call, and an overflow; the history is sent whole, less what the transforms changed."""
    notes: tuple[str, ...] = ()  # the gate's note, a tuple made once per note (most calls have no other)
    gate, pruning, pruned = outcome.gate, setup.pruning, outcome.pruned
    if setup.version != "2026.7.1":
        settings = setup.cache_ttl
        if settings is not None:  # _gate_note, 2026.9.6 (every call has one)
            decision, elapsed = _ttl_decision(settings.ttl_ms, outcome.last_touch_before, planned.now)
            notes = _gate_notes(decision, elapsed, settings.ttl_ms)
    elif gate is not None and pruning is not None:
        notes = _gate_notes(gate.decision, gate.elapsed_ms, pruning.settings.ttl_ms)
    overflow = outcome.overflow
    skips = pruned is not None and pruning is not None
    if planned.starts_attempt and not (skips or overflow):
        route = setup.route  # the route's notes alone (an attempt's first call, most often)
        notes = _start_notes(
            notes, route.provider, route.model_id, planned.route_source, setup.server_tool_clearing
        )
    elif skips or planned.starts_attempt or overflow:
        more = list(notes)
        if pruned is not None and pruning is not None:
            _skip_note(pruned, pruning.settings, more)
        if planned.starts_attempt:
            route = setup.route
            more.append(_route_note(route.provider, route.model_id, planned.route_source))
            if setup.server_tool_clearing:
                more.append(_SERVER_CLEARING_NOTE)
        if overflow:
            more.append(_OVERFLOW_NOTE)
        notes = tuple(more)
    prefix = session.prefix
    sent_chars = prefix[call.available]
    changed = outcome.changed
    if not overflow:
        sent_chars -= prefix[0]
        delta = outcome.sent_delta
        if delta is not None:
            sent_chars += delta
        else:
            size = session.size
            for index, message in changed.items():
                sent_chars += size(message) - (prefix[index + 1] - prefix[index])
    # The shared empty view has no __len__ to ask.
    return _sent_whole(
        session, call, sent_chars, False if changed is UNCHANGED else bool(changed), overflow, notes
    )


def _quiet_record(
    session: _Session, planned: PlannedCall, setup: AttemptSetup, notes: tuple[str, ...], overflow: bool
) -> CallRecord:
    """:func:`_plain_record` of a call whose outcome changed nothing and ran no pruning pass
    (:func:`_quiet_2026_9`, :func:`_quiet_2026_7`), its gate's notes ``notes``: the route's notes on an
    attempt's first call, the overflow's; the whole history sent, or counted when the call overflowed
    (tests/simulator/test_openclaw_plain_records.py compares it with the reference record)."""
    if planned.starts_attempt:
        route = setup.route
        notes = _start_notes(
            notes, route.provider, route.model_id, planned.route_source, setup.server_tool_clearing
        )
    if overflow:
        notes = _overflow_notes(notes)
    call = planned.call
    prefix = session.prefix
    sent_chars = prefix[call.available] if overflow else prefix[call.available] - prefix[0]
    return _sent_whole(session, call, sent_chars, False, overflow, notes)


def _cleaned_record(
    session: _Session,
    planned: PlannedCall,
    setup: AttemptSetup,
    notes: tuple[str, ...],
    changes: QuietChanges,
) -> CallRecord:
    """:func:`_full_record` of a call whose outcome changed only stored messages, old images cleaned and
    thinking stripped, and ran no pruning pass (:func:`_quiet_2026_7`), its gate's notes ``notes``
    (tests/simulator/test_openclaw_plain_records.py compares it with the reference record)."""
    return _changed_record(
        session, planned, setup, notes, changes.images, changes.policy, changes.sent_delta, True
    )


def _changed_record(
    session: _Session,
    planned: PlannedCall,
    setup: AttemptSetup,
    notes: tuple[str, ...],
    images: Sequence[int],
    policy: Sequence[int],
    sent_delta: int,
    changed: bool,
) -> CallRecord:
    """The record of a call whose only changes are old images cleaned (``images``) and thinking stripped
    (``policy``), with no pruning pass (:func:`_cleaned_record`, :func:`_kept_record`): ``notes`` the gate's,
    then the route's on an attempt's first call, the policy's and the cleanup's (:func:`_call_notes`'s
    order); its fates the cleaned messages and the stripped assistants; the history sent whole, changed by
    ``sent_delta`` characters."""
    route = setup.route
    if planned.starts_attempt:
        notes = _start_notes(
            notes, route.provider, route.model_id, planned.route_source, setup.server_tool_clearing
        )
    fated: tuple[FateGroup, ...] = ()
    marks: tuple[str, ...] = ()
    texts = _policy_texts(route.model_id) if policy else None
    if texts is not None and setup.drop_thinking_blocks:
        notes = (*notes, texts[0])
    if images:
        marks = _IMAGE_MARKS
        note, group = _image_fate(session, images)
        notes = (*notes, note)
        fated = (group,)
    if texts is not None:
        fated = (*fated, _fate_group(Fate.THINKING_DROPPED, texts[1], policy))
    call = planned.call
    prefix = session.prefix
    sent_chars = prefix[call.available] - prefix[0] + sent_delta
    return _sent_whole(session, call, sent_chars, changed, False, notes, fated, marks)


def _image_fate(session: _Session, images: Sequence[int]) -> tuple[str, FateGroup]:
    """History image cleanup's note and fate group of the messages ``images`` (the same ones as the last
    record's, in the same view, at most calls of a session with old screenshots: kept, not made again)."""
    kept = session.image_fates
    found = kept[0] if kept else None  # read once: records made when read may be made in two threads
    if found is None or found[0] is not images:
        # The entry keeps the view alive, so its identity is not reused while kept; groups are frozen.
        note = f"history image cleanup changed {len(images)} older messages"
        found = (images, note, _fate_group(Fate.IMAGE_REPLACED, _IMAGE_RULE, images))
        kept[:] = [found]
    return found[1], found[2]


def _sent_whole(
    session: _Session,
    call: ModelCall,
    sent_chars: int,
    changed: bool,
    overflow: bool,
    notes: tuple[str, ...],
    fated: tuple[FateGroup, ...] = (),
    marks: tuple[str, ...] = (),
) -> CallRecord:
    """The record of a call that sends its whole history (or counts it, when the call overflowed):
    ``sent_chars`` what it sends, ``changed`` whether a transform changed a message on the way, ``fated``
    and ``marks`` what the image cleanup and the transcript policy changed (:func:`_changed_record`)."""
    available = call.available
    usage = session.transcript.messages[call.message_index].usage
    return call_record(
        call.number,
        call.message_index,
        available,
        ((0, available),) if available else (),
        None,
        fated,
        session.budget.value,
        -(-session.prefix[available] // CHARS_PER_TOKEN),  # ceil(chars / 4) on whole numbers
        -(-sent_chars // CHARS_PER_TOKEN),
        changed,
        "",
        (),
        (),
        "failed" if overflow else "none",
        usage.prompt_tokens if usage is not None else None,
        notes,
        marks,
        0,
        None,
    )


def _kept_record(
    session: _Session, planned: PlannedCall, setup: AttemptSetup, before: float | None, kept: KeptChanges
) -> CallRecord:
    """:func:`_full_record` of a call ``FastTransforms2026_9.kept_call`` answered without its outcome: the
    pass on (so active) and quiet, nothing compacted, guarded, cut or replayed; its notes the gate's first
    (tests/simulator/test_openclaw_plain_records.py compares it with the reference record)."""
    settings = setup.cache_ttl
    assert settings is not None and setup.inactive_reason is None
    decision, elapsed = _ttl_decision(settings.ttl_ms, before, planned.now)
    notes = _gate_notes(decision, elapsed, settings.ttl_ms)
    return _changed_record(
        session, planned, setup, notes, kept.images, kept.policy, kept.sent_delta, bool(kept.changed)
    )


_IMAGE_MARKS = ("image-cleanup",)
_fate_group = slot_builder(FateGroup)
"""``FateGroup(...)`` positionally (one or two per call of a session with old screenshots or thinking)."""


@lru_cache(maxsize=256)
def _policy_texts(model_id: str) -> tuple[str, str]:
    """The transcript policy's note and its fate's rule for a model (remembered: a session's calls share
    their route)."""
    return (
        f"transcript policy drops thinking blocks for {model_id}",
        f"transcript policy dropThinkingBlocks ({model_id}): thinking left out",
    )


@lru_cache(maxsize=1024)
def _start_notes(
    notes: tuple[str, ...], provider: str, model_id: str, source: str, server_clearing: bool
) -> tuple[str, ...]:
    """A plain record's notes on an attempt's first call: the gate's, then the route's and server-side
    clearing's (remembered: a session's attempts mostly share their route and gate notes)."""
    more = (*notes, _route_note(provider, model_id, source))
    return (*more, _SERVER_CLEARING_NOTE) if server_clearing else more


@lru_cache(maxsize=1024)
def _overflow_notes(notes: tuple[str, ...]) -> tuple[str, ...]:
    """A plain record's notes, then the overflow's (remembered: a long session overflows call after call)."""
    return (*notes, _OVERFLOW_NOTE)


def _full_record(
    session: _Session,
    planned: PlannedCall,
    call: ModelCall,
    setup: AttemptSetup,
    outcome: Outcome,
    compaction_call: int | None,
) -> CallRecord:
    notes, marks = _call_notes(session, planned, setup, outcome)
    through = outcome.compacted_through
    if outcome.overflow:  # nothing sent changed: the whole history counts (most calls of a long session)
        full_chars = sent_chars = session.prefix[call.available]
    else:
        full_chars, sent_chars = _sent_chars(session, call, outcome)
    pruned = outcome.pruned
    if (
        outcome.compaction is None
        and outcome.cache_ttl is None
        and (pruned is None or not pruned.changed)
        and not (outcome.guard or outcome.images or outcome.budget or outcome.policy)
    ):
        fated: tuple[FateGroup, ...] = ()  # no rule changed anything (most calls): no groups to build
    else:
        fated = tuple(_groups(outcome, setup, session, call))
    sent = (
        ((through, call.available),)
        if through is not None
        else ((0, call.available),)
        if call.available
        else ()
    )
    drop_rule = ""
    if through is not None:
        drop_rule = (
            f"compacted by the provider at call {compaction_call}: sent as a "
            f"~{session.plan.config.compaction_summary_tokens:,}-token summary"
        )
        notes.append(drop_rule)
    usage = session.transcript.messages[call.message_index].usage
    return call_record(
        call.number,
        call.message_index,
        call.available,
        sent,
        None,
        fated,
        session.budget.value,
        -(-full_chars // CHARS_PER_TOKEN),  # ceil(chars / 4) on whole numbers
        -(-sent_chars // CHARS_PER_TOKEN),
        bool(outcome.changed) or through is not None,
        drop_rule,
        (),
        (),
        "failed" if outcome.overflow else "none",
        usage.prompt_tokens if usage is not None else None,
        tuple(notes),
        tuple(marks),
        0,
        None,
    )


def _call_notes(
    session: _Session, planned: PlannedCall, setup: AttemptSetup, outcome: Outcome
) -> tuple[list[str], list[str]]:
    """The call's notes (what the runtime did and why, in words) and marks (what the timeline flags)."""
    notes: list[str] = []
    marks: list[str] = []
    inactive = _inactive_note(setup) if setup.inactive_reason is not None else None
    if inactive is not None:
        notes.append(inactive)
        if setup.inactive_reason == "provider_not_eligible":
            marks.append("pruning-inactive")
    gate = outcome.gate
    if setup.version != "2026.7.1":
        _gate_note(outcome, setup, planned.now, notes)
    elif gate is not None and setup.pruning is not None:  # _gate_note, 2026.7.1 (every call has one)
        note = _gate_text(gate.decision, gate.elapsed_ms, setup.pruning.settings.ttl_ms)
        if note is not None:
            notes.append(note)
    if outcome.pruned is not None and not outcome.pruned.changed and setup.pruning is not None:
        _skip_note(outcome.pruned, setup.pruning.settings, notes)
    if planned.starts_attempt:
        notes.append(_route_note(setup.route.provider, setup.route.model_id, planned.route_source))
    if planned.starts_attempt and setup.server_tool_clearing:
        notes.append(_SERVER_CLEARING_NOTE)
    if setup.drop_thinking_blocks and outcome.policy:
        notes.append(_policy_texts(setup.route.model_id)[0])
    if outcome.images:
        marks.append("image-cleanup")
        notes.append(f"history image cleanup changed {len(outcome.images)} older messages")
    if outcome.overflow:
        notes.append(_OVERFLOW_NOTE)
    if outcome.compaction is not None:
        marks.append("compaction")
        notes.append(
            f"provider-side compaction fires here ({outcome.compaction.plan.threshold:,}-token threshold); "
            f"later calls send a ~{session.plan.config.compaction_summary_tokens:,}-token summary"
            + ("" if session.plan.config.apply_provider_compaction else " (marked only: modelCompaction off)")
        )
    return notes, marks


@lru_cache(maxsize=256)
def _route_note(provider: str, model_id: str, source: str) -> str:
    """The note on an attempt's first call (remembered: a session's attempts mostly share their route)."""
    return f"attempt route {provider}/{model_id or '?'} (from {source})"


def _sent_chars(session: _Session, call: ModelCall, outcome: Outcome) -> tuple[int, int]:
    """The estimated chars of the call's whole history, and of what it sends (all of it when it overflows)."""
    prefix = session.prefix
    through = outcome.compacted_through
    full_chars = prefix[call.available]
    if outcome.overflow:
        return full_chars, full_chars
    start = through or 0
    sent_chars = full_chars - prefix[start] + (session.summary_chars if through is not None else 0)
    if outcome.sent_delta is not None:
        sent_chars += outcome.sent_delta
    else:
        for index, message in outcome.changed.items():
            sent_chars += session.size(message) - (prefix[index + 1] - prefix[index])
    return full_chars, sent_chars


# -- one call on demand ------------------------------------------------------------------------------------


def sent_messages(
    transcript: Transcript,
    settings: OpenClawSettings,
    result: SimulationResult,
    number: int,
    natives: Sequence[AgentMessage] | None = None,
) -> Mapping[int, AgentMessage]:
    """Native index → the message as sent at call ``number``, for every message a transform changed.

    ``natives`` are the transcript's native messages when the caller already has them: the reference then
    runs for the call. Without them, the view the replay kept for the call answers, else its on-demand
    transforms (the reference on natives rebuilt for a result that kept neither).
    """
    item = result.resume[number - 1] if number - 1 < len(result.resume) else None
    if not isinstance(item, CallInput):
        return {}
    if natives is None and item.changed is not None:
        return item.changed
    if natives is None and item.on_demand is not None:
        return item.on_demand.outcome(item).changed
    if natives is None:
        natives = native_messages(transcript)
    outcome, _ = reference_outcome(natives, item.setup, item.state, item.now, item.end)
    return outcome.changed


def pruned_contents(
    transcript: Transcript, settings: OpenClawSettings, result: SimulationResult, call: CallRecord
) -> dict[int, tuple[int, str]]:
    """``(tokens, text)`` as sent at ``call`` of each native message a transform changed (tokens = chars / 4).

    Recomputed for one call on demand from what the replay kept for it.
    """
    changed = sent_messages(transcript, settings, result, call.number)
    item = result.resume[call.number - 1] if call.number - 1 < len(result.resume) else None
    if isinstance(item, CallInput) and item.on_demand is not None:
        as_sent = item.on_demand.as_sent
        return {i: as_sent(m) for i, m in changed.items()}
    return {i: (_tokens(estimate_message_chars(m)), message_text(m)) for i, m in changed.items()}
