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
"""

from __future__ import annotations

from dataclasses import replace

from simulator.convert import to_zeroclaw_chat
from simulator.replay.common import call_starts, fmt, ranges
from simulator.replay.events import TrimEvent
from simulator.replay.model import (
    CallRecord,
    Change,
    Fate,
    RetryStep,
    SimulationResult,
)
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
from simulator.runtimes.zeroclaw.breadcrumb import insert_breadcrumb_flagged
from simulator.runtimes.zeroclaw.estimate import estimate_message_tokens
from simulator.runtimes.zeroclaw.loop import floor_warning
from simulator.runtimes.zeroclaw.settings import ZeroClawSettings
from simulator.runtimes.zeroclaw.turns import is_turn_boundary, is_turn_boundary_pr9368, leading_system_count
from simulator.specs.zeroclaw.budget import explain_budget
from simulator.transcript import Transcript

MAX_RECOVERY_ROUNDS = 3
OVERFLOW_ERROR = "input exceeds the context window of this model"
TOOL_RESULTS_PREFIX = "[Tool results]"
ESTIMATOR = "ZeroClaw ⌈UTF-8 bytes / 4⌉ + 4"


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


def replay_zeroclaw(
    transcript: Transcript, settings: ZeroClawSettings, *, profile_name: str
) -> SimulationResult:
    """Replay ``transcript`` through ZeroClaw with ``settings``.

    Args:
        transcript: The imported session.
        settings: A validated ZeroClaw profile.
        profile_name: Shown in the result.

    Returns:
        One record per model call plus where every message went.
    """
    converted = to_zeroclaw_chat(transcript.messages)
    natives = [ChatMessage.from_json(m) for m in converted.messages]
    origins = tuple(tuple(o) for o in converted.origins)
    tokens = [estimate_message_tokens(m) for m in natives]
    prefix = [0]
    for t in tokens:
        prefix.append(prefix[-1] + t)

    documented = settings.version == "documented"
    resolution = resolve_budget(settings)
    budget = resolution.budget
    window = resolution.window if documented else (settings.context_window or None)
    if documented and resolution.window_source != "Configured":
        window = None  # no declared window: nothing to simulate the provider against
    cap = settings.effective_max_history_messages()
    is_boundary = is_turn_boundary_pr9368 if documented else is_turn_boundary
    session_id = transcript.session_id

    truncated: list[Change] = []
    dropped_at = [0] * len(natives)
    drop_rules = [""] * len(natives)
    held: list[ChatMessage] = []
    src: list[int | None] = []
    held_tokens = 0
    flag = False
    calls: list[CallRecord] = []
    warnings: list[str] = []
    next_native = 0
    iteration = 0

    held_turns = 0
    held_non_system = 0
    rules: list[str] = []  # the rules that dropped messages at the current call
    # What is sent, kept as ranges as the history grows (recomputed only when a trim rewrites it).
    spans: list[tuple[int, int]] = []
    crumb_slot: list[int | None] = [None]

    entry_msg: list[ChatMessage | None] = [None] * len(natives)
    entry_tok = [0] * len(natives)
    entry_bound = [False] * len(natives)
    entry_sys = [False] * len(natives)

    def enter(index: int, message: ChatMessage) -> int:
        """Append a message to the held history; returns its size."""
        size = estimate_message_tokens(message)
        entry_msg[index], entry_tok[index] = message, size
        entry_bound[index], entry_sys[index] = is_boundary(message), message.role == "system"
        held.append(message)
        keep(index)
        return size

    def keep(index: int) -> None:
        src.append(index)
        if spans and spans[-1][1] == index:
            spans[-1] = (spans[-1][0], index + 1)
        else:
            spans.append((index, index + 1))

    def adopt(history: tuple[ChatMessage, ...], sources: list[int | None], call: int, rule: str) -> None:
        nonlocal held, src, held_tokens, held_turns, held_non_system
        rules.append(rule)
        kept = {s for s in sources if s is not None}
        for s in src:
            if s is not None and s not in kept and dropped_at[s] == 0:
                dropped_at[s] = call
                drop_rules[s] = rule
        held, src = list(history), sources
        spans[:], crumb_slot[0] = ranges(src)
        # One pass; messages unchanged since they entered reuse what was known about them then.
        tokens_sum = turns = non_system = 0
        for message, source in zip(held, src, strict=True):
            if source is not None and entry_msg[source] is message:
                tokens_sum += entry_tok[source]
                turns += entry_bound[source]
                non_system += not entry_sys[source]
            else:
                tokens_sum += estimate_message_tokens(message)
                turns += is_boundary(message)
                non_system += message.role != "system"
        held_tokens, held_turns, held_non_system = tokens_sum, turns, non_system

    starts = call_starts(transcript, origins)
    for number, (native_start, message_index) in enumerate(starts, start=1):
        events: list[TrimEvent] = []
        notes: list[str] = []
        rules.clear()
        trimmed = False
        stamp = transcript.messages[message_index].timestamp_ms
        for i in range(next_native, native_start):
            message = _truncate(natives[i], settings.max_tool_result_chars)
            if message is not natives[i]:
                after = estimate_message_tokens(message)
                truncated.append(
                    Change(
                        i,
                        Fate.TRUNCATED,
                        f"max_tool_result_chars {fmt(settings.max_tool_result_chars)}",
                        tokens[i],
                        after,
                        number,
                    )
                )
            if message.role == "user" and not message.content.startswith(TOOL_RESULTS_PREFIX):
                iteration = 0  # a new user turn restarts the tool loop
            held_tokens += enter(i, message)
            held_turns += entry_bound[i]
            held_non_system += not entry_sys[i]
        next_native = native_start
        tokens_full = prefix[native_start]

        # 2. history cap
        if documented:
            turns = held_turns - (1 if flag else 0)
            if turns > cap:
                count = trim_to_recent_turn_count(held, cap, flag)
                if count.trimmed:
                    sources = [src[k] for k in count.kept_indices]
                    crumb = insert_breadcrumb_flagged(count.history, flag)
                    if crumb.inserted:
                        sources.insert(crumb.index, None)
                    adopt(
                        crumb.history,
                        sources,
                        number,
                        f"max_history_messages {fmt(cap)} turns: {fmt(turns)} turns held",
                    )
                    flag = True
                    trimmed = True
                    events.append(
                        TrimEvent(
                            HistoryTrimmed.message_cap(count.dropped_messages, count.kept_turns),
                            "history_cap",
                            session_id,
                            stamp,
                        ),
                    )
        else:
            non_system = held_non_system
            if non_system > cap:
                legacy = trim_history(held, cap)
                if legacy.dropped:
                    adopt(
                        legacy.history,
                        _legacy_sources(legacy.history, legacy.kept_indices, held, src),
                        number,
                        f"max_history_messages {fmt(cap)} messages (legacy raw path): {fmt(non_system)} held",
                    )
                    trimmed = True
                    notes.append("legacy history cap: logs only, no breadcrumb, no event")

        # 3. token budget
        if budget == 0 or held_tokens <= budget:
            # Nothing over budget: the preflight would change nothing; only its floor warning can fire.
            warning = floor_warning(held, budget) if iteration == 0 else None
            if warning:
                notes.append(warning)
        else:
            step = preflight_iteration(
                held, budget, iteration=iteration, version=settings.version, has_leading_breadcrumb=flag
            )
            notes.extend(step.warnings)
            if step.trim is not None and step.trim.trimmed:
                adopt(
                    step.history,
                    [None if s is None else src[s] for s in step.source_indices],
                    number,
                    f"token budget {fmt(budget)}: {fmt(step.trim.tokens_before)} est. held",
                )
                trimmed = True
                if step.event is not None:
                    events.append(TrimEvent(step.event, "token_budget", session_id, stamp))
            flag = step.has_leading_breadcrumb

        # 4. simulated provider overflow
        retries: list[RetryStep] = []
        overflow = "none"
        if window is not None and held_tokens > window:
            overflow = "failed"
            for attempt in range(1, MAX_RECOVERY_ROUNDS + 1):
                before = held_tokens
                recovery = recover_context_overflow(
                    held, OVERFLOW_ERROR, budget, version=settings.version, has_leading_breadcrumb=flag
                )
                if not recovery.recovered:
                    retries.append(
                        RetryStep(attempt, recovery.recovery_budget or 0, before, before, 0, False)
                    )
                    if recovery.log:
                        notes.append(recovery.log)
                    break
                sources = _recovery_sources(recovery, src)
                adopt(
                    recovery.history,
                    sources,
                    number,
                    f"provider overflow: window {fmt(window)} < {fmt(before)} est.; recovery to 2/3",
                )
                flag = True
                trimmed = True
                if recovery.event is not None:
                    events.append(TrimEvent(recovery.event, "overflow_recovery", session_id, stamp))
                retries.append(
                    RetryStep(
                        attempt,
                        recovery.recovery_budget or 0,
                        before,
                        held_tokens,
                        recovery.event.dropped_messages if recovery.event else 0,
                        True,
                    )
                )
                if held_tokens <= window:
                    overflow = "recovered"
                    break
            if overflow == "failed":
                notes.append(
                    f"the provider rejected the request: {fmt(held_tokens)} est. > window {fmt(window)}"
                )

        sent, crumb_at = tuple(spans), crumb_slot[0]
        usage = transcript.messages[message_index].usage
        reported = usage.prompt_tokens if usage is not None else None
        calls.append(
            CallRecord(
                number=number,
                message_index=message_index,
                available=native_start,
                sent=sent,
                breadcrumb_at=crumb_at,
                fated=(),
                budget=budget,
                tokens_full=tokens_full,
                tokens_sent=held_tokens,
                trimmed=trimmed,
                drop_rule="; ".join(rules),
                events=tuple(events),
                retries=tuple(retries),
                overflow=overflow,  # type: ignore[arg-type]  # narrowed by the branches above
                provider_input_tokens=reported,
                notes=tuple(notes),
            )
        )
        iteration += 1
        # 5. the reply joins the history; a provider-reported count may trim it once more
        if reported is not None and budget > 0 and reported > budget:
            reply_end = native_start
            while reply_end < len(natives) and origins[reply_end][:1] == (message_index,):
                held_tokens += enter(reply_end, natives[reply_end])
                held_turns += entry_bound[reply_end]
                held_non_system += not entry_sys[reply_end]
                reply_end += 1
            next_native = reply_end
            enforced = enforce_reported_budget(
                held, budget, reported, version=settings.version, has_leading_breadcrumb=flag
            )
            if enforced.trim is not None and enforced.trim.trimmed:
                adopt(
                    enforced.history,
                    [None if s is None else src[s] for s in enforced.source_indices],
                    number,
                    f"provider-reported {fmt(reported)} input tokens > budget {fmt(budget)}",
                )
                flag = enforced.has_leading_breadcrumb
                notes_after = ("after the reply: trimmed to the provider-reported budget",)
                calls[-1] = _with(calls[-1], notes_after, enforced.event, session_id, stamp, "; ".join(rules))

    if not starts:
        warnings.append("the transcript has no assistant message, so there is no model call to replay")
    return SimulationResult(
        runtime="zeroclaw",
        version=settings.version,
        profile_name=profile_name,
        budget=explain_budget(settings),
        window=window,
        calls=tuple(calls),
        origins=origins,
        native_tokens=tuple(tokens),
        dropped_at=tuple(dropped_at),
        drop_rules=tuple(drop_rules),
        content_changes=tuple(truncated),
        estimator=ESTIMATOR,
        warnings=tuple(warnings),
    )


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


def _with(
    record: CallRecord,
    notes: tuple[str, ...],
    event: HistoryTrimmed | None,
    session_id: str | None,
    stamp: int | None,
    drop_rule: str,
) -> CallRecord:
    trim = (TrimEvent(event, "reported_budget", session_id, stamp),) if event is not None else ()
    events = record.events + trim
    return replace(record, notes=record.notes + notes, events=events, trimmed=True, drop_rule=drop_rule)


def truncated_contents(
    transcript: Transcript, settings: ZeroClawSettings, result: SimulationResult, call: CallRecord
) -> dict[int, tuple[int, str]]:
    """``(tokens, content)`` of the messages ``call`` sent that truncation changed when they entered."""
    out: dict[int, tuple[int, str]] = {}
    for change in result.content_changes:
        if not any(start <= change.native_index < end for start, end in call.sent):
            continue
        # Convert only the transcript messages this native came from, not the whole transcript.
        sources = [transcript.messages[i] for i in result.origins[change.native_index]]
        converted = to_zeroclaw_chat(sources).messages
        if len(converted) != 1:
            continue
        message = _truncate(ChatMessage.from_json(converted[0]), settings.max_tool_result_chars)
        out[change.native_index] = (change.tokens_after, message.content)
    return out
