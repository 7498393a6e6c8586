"""Replays a transcript through ZeroClaw, call by call, carrying its trimmed history forward.

ZeroClaw forgets: once a turn is trimmed out of the agent's history it is gone for every later call.
The replay therefore holds one history, appends what the transcript adds before each model call,
and applies, in the order the turn loop does:

1. tool-result truncation (``max_tool_result_chars``) when a result enters the history;
2. the history cap - documented: ``trim_to_recent_turn_count`` (whole turns, default 50, breadcrumb
   and ``history message limit exceeded`` event); upstream: the raw path's message-level
   ``history::trim_history`` (logs only, no breadcrumb, no event);
3. ``preflight_iteration``: floor warning at the first iteration of a user turn, token-budget trim,
   breadcrumb, ``HistoryTrimmed``;
4. a simulated provider: when the provider window is known and the estimate of what is sent exceeds
   it, the provider rejects the request with an overflow error and ``recover_context_overflow`` trims
   to 2/3 of the estimate and retries (at most 3 rounds; the call fails when nothing more can go);
5. after the reply, when the transcript carries provider-reported input tokens for it,
   ``enforce_reported_budget``.

The simulated provider counts with ZeroClaw's own estimator; real tokenizer counts are shown beside it.

Each call is one :func:`step` over the shared loop (``replay/loop.py``); the state carries the held
history (``replay/zeroclaw_history.py``), the breadcrumb flag, the tool-loop iteration and how far
the transcript was read.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import accumulate, starmap
from operator import attrgetter

import msgspec

from simulator.convert import to_zeroclaw_chat, tool_calls_envelope, tool_result_envelope, zeroclaw_chat_rows
from simulator.replay.common import fmt
from simulator.replay.events import TrimEvent
from simulator.replay.loop import ModelCall, model_calls, run_calls
from simulator.replay.model import (
    CallRecord,
    Change,
    Fate,
    Overflow,
    RetryStep,
    SimulationResult,
    call_record,
    slot_builder,
)
from simulator.replay.zeroclaw_history import Boundary, CachedFacts, History, MessageFacts, RecountedFacts
from simulator.replay.zeroclaw_legacy import SweepWatch, legacy_cut
from simulator.runtimes.zeroclaw import (
    ChatMessage,
    HistoryTrimmed,
    RecoveryResult,
    enforce_reported_budget,
    preflight_iteration,
    recover_context_overflow,
    resolve_budget,
    trim_history,
    trim_to_recent_turn_count,
    truncate_tool_message,
    truncate_tool_result,
)
from simulator.runtimes.zeroclaw.breadcrumb import breadcrumb, insert_breadcrumb_flagged
from simulator.runtimes.zeroclaw.estimate import estimate_message_tokens, estimate_text_tokens
from simulator.runtimes.zeroclaw.loop import floor_warning
from simulator.runtimes.zeroclaw.messages import SYSTEM, USER
from simulator.runtimes.zeroclaw.recovery import is_context_window_exceeded
from simulator.runtimes.zeroclaw.settings import ZeroClawSettings
from simulator.runtimes.zeroclaw.texts import REASON_BUDGET, context_floor_remediation
from simulator.runtimes.zeroclaw.turns import is_turn_boundary, is_turn_boundary_pr9368, leading_system_count
from simulator.specs.zeroclaw.budget import explain_budget
from simulator.transcript import Message, Role, TextPart, Transcript

MAX_RECOVERY_ROUNDS = 3
OVERFLOW_ERROR = "input exceeds the context window of this model"
TOOL_RESULTS_PREFIX = "[Tool results]"
ESTIMATOR = "ZeroClaw ⌈UTF-8 bytes / 4⌉ + 4"


@dataclass(frozen=True, slots=True)
class _Session:
    """What does not change between calls."""

    transcript: Transcript
    settings: ZeroClawSettings
    natives: tuple[ChatMessage, ...]
    origins: tuple[tuple[int, ...], ...]
    tokens: tuple[int, ...]
    prefix: tuple[int, ...]
    documented: bool
    budget: int
    window: int | None
    """The provider window overflows are simulated against (``None``: never)."""
    cap: int
    fast: bool
    """Answer what the bookkeeping can answer without running the runtime's function (not the reference)."""
    boundaries: tuple[bool, ...] = ()
    """Per native: a ``user`` message that is not a ``[Tool results]`` carrier (it restarts the tool loop);
    empty when the preparation did not tell."""

    @property
    def session_id(self) -> str | None:
        return self.transcript.session_id


@dataclass(slots=True, eq=False)
class ZeroClawState:
    """What carries from one call to the next; ``history`` is the one growing buffer (owned by the state).

    Mutable, like the history it holds: the step owns the state (``replay/loop.py``) and updates this one
    in place rather than building a new one per model call.
    """

    history: History
    flag: bool = False
    """Whether the held history starts with the breadcrumb (``has_leading_breadcrumb``)."""
    iteration: int = 0
    """Tool-loop iteration within the current user turn."""
    next_native: int = 0
    sweep: SweepWatch = field(default_factory=SweepWatch)
    """What the legacy cap's orphan sweep would find in the held history (released version, fast replay)."""


@dataclass(slots=True)
class _CallLog:
    """What one call gathers as its steps run: events, notes, the rules that dropped messages.

    Tuples, grown by the few calls that add to them: most calls add nothing, and then nothing is
    built (a replay makes one log per model call)."""

    stamp: int | None
    events: tuple[TrimEvent, ...] = ()
    notes: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    trimmed: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class ZeroClawNatives:
    """A transcript as every ZeroClaw replay reads it, whatever the settings or version: made once."""

    natives: tuple[ChatMessage, ...]
    origins: tuple[tuple[int, ...], ...]
    tokens: tuple[int, ...]
    """ZeroClaw's estimate of each native message as stored (before any truncation)."""
    prefix: tuple[int, ...]
    calls: tuple[ModelCall, ...]
    systems: tuple[bool, ...] = ()
    """Whether each native is a ``system`` message."""
    boundaries: tuple[bool, ...] = ()
    """Whether each native opens a turn as master counts them (``is_turn_boundary``): a ``user`` message
    that is not a ``[Tool results]`` carrier; it restarts the tool loop too."""
    users: tuple[bool, ...] = ()
    """Whether each native is a ``user`` message (PR 9368's ``is_turn_boundary_pr9368``)."""


_chat_message = slot_builder(ChatMessage)
_call = ModelCall
"""``ChatMessage(...)`` (see :func:`slot_builder`) and ``ModelCall(...)`` (a struct) positionally: one per
message."""
_history_trimmed = slot_builder(HistoryTrimmed)
_trim_event = slot_builder(TrimEvent)
"""``HistoryTrimmed(...)`` and ``TrimEvent(...)`` positionally: one per trim, most calls of a long session."""
_ROLE_NAMES = {role: role.value for role in Role}


def prepare_zeroclaw(transcript: Transcript) -> ZeroClawNatives:
    """Convert ``transcript`` to ZeroClaw's ``ChatMessage`` list and size each message once.

    :func:`prepare_zeroclaw_reference` in one pass over the messages; when anything raises (a caller-built
    message), the reference is run instead, so the error raised is the one it raises.
    """
    try:
        return _one_pass(transcript.messages)
    except Exception:  # noqa: BLE001 - re-raised by the reference, which meets the same value
        return prepare_zeroclaw_reference(transcript)


def prepare_zeroclaw_reference(transcript: Transcript) -> ZeroClawNatives:
    """:func:`prepare_zeroclaw` from the converter's rows (``zeroclaw_chat_rows``), the estimator and
    ``model_calls``."""
    rows, origins = zeroclaw_chat_rows(transcript.messages)
    natives = tuple(starmap(ChatMessage, rows))
    tokens = tuple([estimate_text_tokens(content) for _, content in rows])
    users = [role == USER for role, _ in rows]
    boundaries = [is_turn_boundary(message) for message in natives]
    systems = [role == SYSTEM for role, _ in rows]
    calls = model_calls(transcript, origins)
    prefix = tuple(accumulate(tokens, initial=0))
    return ZeroClawNatives(
        natives, origins, tokens, prefix, calls, tuple(systems), tuple(boundaries), tuple(users)
    )


def _one_pass(messages: Sequence[Message]) -> ZeroClawNatives:
    """The reference's natives, estimates, turn facts and model calls, each native made as it is reached.

    A message of one text part -- most of them -- is converted here as ``zeroclaw_chat_rows`` converts it
    (its text, or the tool-call or tool-result envelope around it); any other is converted by that
    function alone. Natives are made in transcript order, one per message but a failed call's, so every
    assistant message is a call over the natives made before it.
    """
    natives: list[ChatMessage] = []
    origins: list[tuple[int, ...]] = []
    tokens: list[int] = []
    calls: list[ModelCall] = []
    users: list[bool] = []
    boundaries: list[bool] = []
    systems: list[bool] = []
    assistant, tool, text_part, names = Role.ASSISTANT, Role.TOOL, TextPart, _ROLE_NAMES
    for index, message in enumerate(messages):
        role = message.role
        if role is assistant:
            error = message.error
            calls.append(_call(len(calls) + 1, len(natives), index, error))
            if error is not None:
                continue  # a failed call: no native
        parts = message.parts
        if len(parts) == 1 and type(part := parts[0]) is text_part and type(text := part.text) is str:
            if role is assistant and message.tool_calls:
                content = tool_calls_envelope(text, message.tool_calls)
            elif role is tool and (result := message.tool_result) is not None and result.call_id:
                content = tool_result_envelope(result.call_id, text)
            else:
                content = text
            name = names[role]
        else:
            ((name, content),), _ = zeroclaw_chat_rows((message,))
        natives.append(_chat_message(name, content))
        origins.append((index,))
        # ``estimate_text_tokens``: an ASCII text's UTF-8 bytes are its characters.
        tokens.append((len(content) + 3) // 4 + 4 if content.isascii() else estimate_text_tokens(content))
        user = name == USER
        users.append(user)
        boundaries.append(user and not content.startswith(TOOL_RESULTS_PREFIX))  # ``is_turn_boundary``
        systems.append(name == SYSTEM)
    prefix = tuple(accumulate(tokens, initial=0))
    return ZeroClawNatives(
        tuple(natives),
        tuple(origins),
        tuple(tokens),
        prefix,
        tuple(calls),
        tuple(systems),
        tuple(boundaries),
        tuple(users),
    )


def replay_zeroclaw(
    transcript: Transcript,
    settings: ZeroClawSettings,
    *,
    profile_name: str,
    reference: bool = False,
    prepared: ZeroClawNatives | None = None,
) -> SimulationResult:
    """Replay ``transcript`` through ZeroClaw with ``settings``.

    Args:
        transcript: The imported session.
        settings: A validated ZeroClaw profile.
        profile_name: Shown in the result.
        reference: Recount every held message after each trim instead of reusing entry facts.
        prepared: :func:`prepare_zeroclaw` of this transcript, when the caller kept it.

    Returns:
        One record per model call plus where every message went.
    """
    facts = prepared if prepared is not None else prepare_zeroclaw(transcript)
    natives, tokens = facts.natives, facts.tokens
    session = _session(transcript, settings, natives, tokens, facts.prefix, facts.origins, not reference)
    if len(facts.boundaries) == len(natives):
        session = replace(session, boundaries=facts.boundaries)
    is_boundary: Boundary = is_turn_boundary_pr9368 if session.documented else is_turn_boundary
    held: MessageFacts = (
        RecountedFacts(len(natives), is_boundary)
        if reference
        else CachedFacts(len(natives), is_boundary, (natives, tokens), _flags(facts, session.documented))
    )
    calls = facts.calls
    records, state = run_calls(calls, partial(step, session), ZeroClawState(History(len(natives), held)))
    warnings = (
        () if calls else ("the transcript has no assistant message, so there is no model call to replay",)
    )
    return SimulationResult(
        runtime="zeroclaw",
        version=settings.version,
        profile_name=profile_name,
        budget=explain_budget(settings),
        window=session.window,
        calls=records,
        origins=session.origins,
        native_tokens=tokens,
        dropped_at=tuple(state.history.dropped_at),
        drop_rules=tuple(state.history.drop_rules),
        content_changes=tuple(state.history.changes),
        estimator=ESTIMATOR,
        warnings=warnings,
    )


def _flags(facts: ZeroClawNatives, documented: bool) -> tuple[Sequence[bool], Sequence[bool]] | None:
    """Whether each native opens a turn in this version, and whether it is a system message (``None``
    when the preparation did not tell)."""
    if len(facts.systems) != len(facts.natives):
        return None
    return (facts.users if documented else facts.boundaries), facts.systems


def _session(
    transcript: Transcript,
    settings: ZeroClawSettings,
    natives: tuple[ChatMessage, ...],
    tokens: tuple[int, ...],
    prefix: tuple[int, ...],
    origins: tuple[tuple[int, ...], ...],
    fast: bool,
) -> _Session:
    documented = settings.version == "documented"
    resolution = resolve_budget(settings)
    window = resolution.window if documented else (settings.context_window or None)
    if documented and resolution.window_source != "Configured":
        window = None  # no declared window: nothing to simulate the provider against
    return _Session(
        transcript,
        settings,
        natives,
        origins,
        tokens,
        prefix,
        documented,
        resolution.budget,
        window,
        settings.effective_max_history_messages(),
        fast,
    )


def step(session: _Session, state: ZeroClawState, call: ModelCall) -> tuple[CallRecord, ZeroClawState]:
    """One model call, in the turn loop's order: entry, history cap, token budget, provider, reply."""
    reply = session.transcript.messages[call.message_index]
    log = _CallLog(reply.timestamp_ms)
    history = state.history
    iteration = _enter(session, state, call)
    flag = state.flag
    # Each step is asked for only when it can act (most calls of a long session pass the cap and the window).
    if (history.turns - flag if session.documented else history.non_system) > session.cap:
        flag = _history_cap(session, state, call, log)
    flag = _token_budget(session, history, flag, iteration, call, log)
    retries: tuple[RetryStep, ...] = ()
    overflow: Overflow = "none"
    if session.window is not None and history.tokens > session.window:
        retries, overflow, flag = _provider_overflow(session, history, flag, call, log)
    usage = reply.usage
    reported = usage.prompt_tokens if usage is not None else None
    record = call_record(
        call.number,
        call.message_index,
        call.available,
        tuple(history.spans),  # sent
        history.crumb_at,  # breadcrumb_at
        (),  # fated
        session.budget,
        session.prefix[call.available],  # tokens_full
        history.tokens,  # tokens_sent
        log.trimmed,
        "; ".join(log.rules),  # drop_rule
        log.events,
        retries,
        overflow,
        reported,  # provider_input_tokens
        log.notes,
        (),  # marks
        0,  # tokens_outside
        None,  # error (the loop records a failed call's)
    )
    next_native = call.available
    if call.error is not None:
        record, flag = _failed_call(session, history, flag, call, record, log)
    elif reported is not None and session.budget > 0 and reported > session.budget:
        record, flag, next_native = _reported_budget(session, history, flag, call, record, reported, log)
    state.flag, state.iteration, state.next_native = flag, iteration + 1, next_native
    return record, state


def _enter(session: _Session, state: ZeroClawState, call: ModelCall) -> int:
    """The transcript's messages since the last call join the history (tool results truncated).

    Returns:
        The tool-loop iteration of this call (a new user turn restarts it).
    """
    iteration = state.iteration
    max_chars = session.settings.max_tool_result_chars
    natives, history = session.natives, state.history
    boundaries = session.boundaries
    if max_chars <= 0 and boundaries:
        # Nothing is truncated: the natives enter as they are, and a new user turn among them restarts
        # the tool loop.
        start, stop = state.next_native, call.available
        if True in boundaries[start:stop]:
            iteration = 0
        history.enter_natives(natives, start, stop)
        return iteration
    for i in range(state.next_native, call.available):
        native = natives[i]
        message = _truncate(native, max_chars) if max_chars > 0 else native
        if message is not native:
            after = estimate_message_tokens(message)
            rule = f"max_tool_result_chars {fmt(max_chars)}"
            history.changes.append(Change(i, Fate.TRUNCATED, rule, session.tokens[i], after, call.number))
        if message.role == USER and not message.content.startswith(TOOL_RESULTS_PREFIX):
            iteration = 0  # a new user turn restarts the tool loop
        history.enter(i, message)
    return iteration


def _adopt(
    history: History,
    log: _CallLog,
    trimmed: tuple[ChatMessage, ...],
    sources: list[int | None],
    call: ModelCall,
    rule: str,
) -> None:
    history.adopt(trimmed, sources, call.number, rule)
    log.rules += (rule,)
    log.trimmed = True


def _history_cap(session: _Session, state: ZeroClawState, call: ModelCall, log: _CallLog) -> bool:
    """The history cap; returns the breadcrumb flag after it."""
    cap, history, flag = session.cap, state.history, state.flag
    if not session.documented:
        if history.non_system > cap:
            _legacy_cap(session, state, call, log)
        return flag
    turns = history.turns - (1 if flag else 0)
    if turns <= cap:
        return flag
    rule = f"max_history_messages {fmt(cap)} turns: {fmt(turns)} turns held"
    if session.fast:
        try:
            told = history.recent_turns(cap, flag)
        except LookupError:
            pass  # a history the bookkeeping cannot answer for: the runtime's function does
        else:
            if told is None:
                return flag
            prefix, start, kept = told
            history.cut(prefix, start, None if flag else breadcrumb(), call.number, rule)
            log.rules += (rule,)
            log.trimmed = True
            event = HistoryTrimmed.message_cap(start - prefix, kept)
            log.events += (TrimEvent(event, "history_cap", session.session_id, log.stamp),)
            return True
    count = trim_to_recent_turn_count(history.held, cap, flag)
    if not count.trimmed:
        return flag
    sources = [history.src[k] for k in count.kept_indices]
    crumb = insert_breadcrumb_flagged(count.history, flag)
    if crumb.inserted:
        sources.insert(crumb.index, None)
    _adopt(history, log, crumb.history, sources, call, rule)
    event = HistoryTrimmed.message_cap(count.dropped_messages, count.kept_turns)
    log.events += (TrimEvent(event, "history_cap", session.session_id, log.stamp),)
    return True


def _legacy_cap(session: _Session, state: ZeroClawState, call: ModelCall, log: _CallLog) -> None:
    """The released raw path's ``history::trim_history``: a cut when that is all it does (fast replay)."""
    history, cap = state.history, session.cap
    rule = f"max_history_messages {fmt(cap)} messages (legacy raw path): {fmt(history.non_system)} held"
    cut = legacy_cut(history, cap, state.sweep) if session.fast else None
    if cut is not None:
        history.cut(*cut, None, call.number, rule)
        state.sweep.after_cut(history)
        log.rules += (rule,)
        log.trimmed = True
    else:
        legacy = trim_history(history.held, cap)
        if not legacy.dropped:
            return
        sources = _legacy_sources(legacy.history, legacy.kept_indices, history.held, history.src)
        _adopt(history, log, legacy.history, sources, call, rule)
    log.notes += ("legacy history cap: logs only, no breadcrumb, no event",)


def _token_budget(
    session: _Session, history: History, flag: bool, iteration: int, call: ModelCall, log: _CallLog
) -> bool:
    """``preflight_iteration``; returns the breadcrumb flag after it."""
    budget = session.budget
    if budget == 0 or history.tokens <= budget:
        # Nothing over budget: the preflight would change nothing; only its floor warning can fire
        # (``floor_warning``: the held systems' estimate against a positive budget, kept as a sum).
        warning = None
        if iteration == 0 and not session.fast:
            warning = floor_warning(history.held, budget)
        elif iteration == 0 and budget > 0 and (floor := history.system_tokens()) >= budget:
            warning = context_floor_remediation(floor, budget)
        if warning:
            log.notes += (warning,)
        return flag
    if session.fast and session.documented:
        try:
            return _token_budget_told(session, history, flag, iteration, call, log)
        except LookupError:
            pass  # a history the bookkeeping cannot answer for: the runtime's function does
    result = preflight_iteration(
        history.held,
        budget,
        iteration=iteration,
        version=session.settings.version,
        has_leading_breadcrumb=flag,
    )
    log.notes += tuple(result.warnings)
    if result.trim is not None and result.trim.trimmed:
        rule = f"token budget {fmt(budget)}: {fmt(result.trim.tokens_before)} est. held"
        _adopt(history, log, result.history, history.sources(result.source_indices), call, rule)
        if result.event is not None:
            log.events += (TrimEvent(result.event, "token_budget", session.session_id, log.stamp),)
    return result.has_leading_breadcrumb


def _token_budget_told(
    session: _Session, history: History, flag: bool, iteration: int, call: ModelCall, log: _CallLog
) -> bool:
    """``preflight_iteration`` (PR 9368) over a history over budget, told from the bookkeeping.

    Raises:
        LookupError: when the bookkeeping cannot answer (nothing is changed then).
    """
    budget = session.budget
    told = history.recent_turns_within(budget, flag)
    if iteration == 0 and budget > 0 and (floor := history.system_tokens()) >= budget:
        log.notes += (context_floor_remediation(floor, budget),)
    if told is None:
        return flag
    prefix, start, kept, _ = told
    rule = f"token budget {budget:,}: {history.tokens:,} est. held"  # ``fmt`` of each, inlined
    history.cut(prefix, start, None if flag else breadcrumb(), call.number, rule)
    log.rules += (rule,)
    log.trimmed = True
    # ``HistoryTrimmed.budget`` and ``TrimEvent(...)``, built positionally (one per trim).
    event = _history_trimmed(start - prefix, kept, REASON_BUDGET)
    log.events += (_trim_event(event, "token_budget", session.transcript.session_id, log.stamp),)
    return True


def _provider_overflow(
    session: _Session, history: History, flag: bool, call: ModelCall, log: _CallLog
) -> tuple[tuple[RetryStep, ...], Overflow, bool]:
    """The simulated provider and ``recover_context_overflow`` rounds: retries, outcome, breadcrumb flag."""
    window = session.window
    if window is None or history.tokens <= window:
        return (), "none", flag
    retries: list[RetryStep] = []
    for attempt in range(1, MAX_RECOVERY_ROUNDS + 1):
        before = history.tokens
        recovery = recover_context_overflow(
            history.held,
            OVERFLOW_ERROR,
            session.budget,
            version=session.settings.version,
            has_leading_breadcrumb=flag,
        )
        if not recovery.recovered:
            retries.append(RetryStep(attempt, recovery.recovery_budget or 0, before, before, 0, False))
            if recovery.log:
                log.notes += (recovery.log,)
            break
        rule = f"provider overflow: window {fmt(window)} < {fmt(before)} est.; recovery to 2/3"
        _adopt(history, log, recovery.history, _recovery_sources(recovery, history.src), call, rule)
        flag = True
        if recovery.event is not None:
            log.events += (TrimEvent(recovery.event, "overflow_recovery", session.session_id, log.stamp),)
        dropped = recovery.event.dropped_messages if recovery.event else 0
        retries.append(
            RetryStep(attempt, recovery.recovery_budget or 0, before, history.tokens, dropped, True)
        )
        if history.tokens <= window:
            return tuple(retries), "recovered", flag
    log.notes += (f"the provider rejected the request: {fmt(history.tokens)} est. > window {fmt(window)}",)
    return tuple(retries), "failed", flag


def _failed_call(
    session: _Session, history: History, flag: bool, call: ModelCall, record: CallRecord, log: _CallLog
) -> tuple[CallRecord, bool]:
    """The transcript's error turn: the request went out as recorded and the provider answered ``call.error``.

    ``recover_context_overflow`` looks at the error text itself: when ``is_context_window_exceeded``
    recognises it, the history is trimmed to 2/3 of its estimate for the retry (which is the
    transcript's next call), so the trim happens after this call's request; any other error
    ("fetch failed") leaves the history as it was.

    Returns:
        The call's record (with the recovery round, its event and notes) and the breadcrumb flag.
    """
    error = call.error or ""
    if not is_context_window_exceeded(error):
        note = f"the provider failed the call ({error}): not a context overflow, so no recovery"
        return msgspec.structs.replace(record, notes=record.notes + (note,)), flag
    before = history.tokens
    recovery = recover_context_overflow(
        history.held, error, session.budget, version=session.settings.version, has_leading_breadcrumb=flag
    )
    attempt = len(record.retries) + 1
    if not recovery.recovered:
        notes = record.notes + ((recovery.log,) if recovery.log else ()) + ("nothing left to trim: no retry",)
        retry = RetryStep(attempt, recovery.recovery_budget or 0, before, before, 0, False)
        return msgspec.structs.replace(
            record, notes=notes, retries=record.retries + (retry,), overflow="failed"
        ), flag
    rule = f"provider error {error!r} is a context overflow: recovery to 2/3 of {fmt(before)} est."
    history.adopt(recovery.history, _recovery_sources(recovery, history.src), call.number, rule)
    events = record.events
    if recovery.event is not None:
        events += (TrimEvent(recovery.event, "overflow_recovery", session.session_id, log.stamp),)
    dropped = recovery.event.dropped_messages if recovery.event else 0
    retry = RetryStep(attempt, recovery.recovery_budget or 0, before, history.tokens, dropped, True)
    note = f"after the error: {rule}; the retry is the next call"
    record = msgspec.structs.replace(
        record,
        notes=record.notes + (note,),
        events=events,
        retries=record.retries + (retry,),
        overflow="recovered",
        trimmed=True,
    )
    return record, True


def _reported_budget(
    session: _Session,
    history: History,
    flag: bool,
    call: ModelCall,
    record: CallRecord,
    reported: int,
    log: _CallLog,
) -> tuple[CallRecord, bool, int]:
    """After the reply: it joins the history, and the provider-reported count may trim it once more.

    Returns:
        The call's record (amended when it trimmed), the breadcrumb flag, the next native to enter.
    """
    reply_end = call.available
    while reply_end < len(session.natives) and session.origins[reply_end][:1] == (call.message_index,):
        history.enter(reply_end, session.natives[reply_end])
        reply_end += 1
    enforced = enforce_reported_budget(
        history.held, session.budget, reported, version=session.settings.version, has_leading_breadcrumb=flag
    )
    if enforced.trim is None or not enforced.trim.trimmed:
        return record, flag, reply_end
    rule = f"provider-reported {fmt(reported)} input tokens > budget {fmt(session.budget)}"
    _adopt(history, log, enforced.history, history.sources(enforced.source_indices), call, rule)
    events = record.events
    if enforced.event is not None:
        events += (TrimEvent(enforced.event, "reported_budget", session.session_id, log.stamp),)
    # The trim comes after this call's request: what it dropped is dropped from the next call on, so
    # this call's drop rule stays the one its request was sent with.
    record = msgspec.structs.replace(
        record,
        notes=record.notes + (f"after the reply: {rule}",),
        events=events,
        trimmed=True,
    )
    return record, enforced.has_leading_breadcrumb, reply_end


def _truncate(message: ChatMessage, max_chars: int) -> ChatMessage:
    if max_chars <= 0:
        return message
    if message.role == "tool":
        content = truncate_tool_message(message.content, max_chars)
    elif message.role == "user" and message.content.startswith(TOOL_RESULTS_PREFIX):
        content = truncate_tool_result(message.content, max_chars)
    else:
        return message
    return message if content == message.content else ChatMessage(message.role, content)


def _legacy_sources(
    history: tuple[ChatMessage, ...],
    kept_non_system: tuple[int, ...],
    held: list[ChatMessage],
    src: list[int | None],
) -> list[int | None]:
    """Sources after the legacy cap, whose ``kept_indices`` list only the non-system survivors.

    The legacy path also merges every system message into one leading message; it is credited to the
    first system message held.
    """
    sources: list[int | None] = [src[k] for k in kept_non_system]
    if len(history) > len(sources):
        first_system = next((i for i, m in enumerate(held) if m.role == "system"), None)
        sources.insert(0, src[first_system] if first_system is not None else None)
    return sources


def _recovery_sources(recovery: RecoveryResult, src: list[int | None]) -> list[int | None]:
    """Held-history sources after a recovery (its ``kept_indices`` leave out the breadcrumb it inserts)."""
    sources: list[int | None] = [src[k] for k in recovery.kept_indices]
    if len(recovery.history) > len(sources):
        sources.insert(leading_system_count(recovery.history), None)
    return sources


def truncated_contents(
    transcript: Transcript, settings: ZeroClawSettings, result: SimulationResult, call: CallRecord
) -> dict[int, tuple[int, str]]:
    """``(tokens, content)`` of the messages ``call`` sent that truncation changed when they entered.

    The changes ascend by native index (each is made as its message enters, and messages enter in order),
    so each sent range finds its own by bisection: a long truncating session is asked this at every call.
    """
    out: dict[int, tuple[int, str]] = {}
    changes = result.content_changes
    for start, end in call.sent:
        first = bisect_left(changes, start, key=_NATIVE_INDEX)
        for change in changes[first : bisect_left(changes, end, first, key=_NATIVE_INDEX)]:
            # Convert only the transcript messages this native came from, not the whole transcript.
            sources = [transcript.messages[i] for i in result.origins[change.native_index]]
            converted = to_zeroclaw_chat(sources).messages
            if len(converted) != 1:
                continue
            message = _truncate(ChatMessage.from_json(converted[0]), settings.max_tool_result_chars)
            out[change.native_index] = (change.tokens_after, message.content)
    return out


_NATIVE_INDEX = attrgetter("native_index")
