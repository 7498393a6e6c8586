"""Replays a transcript through OpenClaw's cache-TTL session pruning, call by call.

OpenClaw never forgets: the session keeps every message, and before each model call the pruning hook
may hand the model a pruned *view* (old tool results soft-trimmed or cleared) for that call only. The
replay drives the hook's TTL clock from the transcript:

* a run starts at each real user message; the runtime built for it reads the newest
  ``openclaw.cache-ttl`` marker before that point (matching provider/model when both are known). A
  transcript without markers gets the ones OpenClaw would have written: one at the end of every run,
  stamped with that run's last reply;
* ``now`` for a call is the timestamp of the newest message before the reply;
* within a run only a pruning that changed the context moves the clock.

When the transcript has no timestamps at all, the clock cannot be replayed; every call is then
treated as past the TTL (a cold cache), which shows the most pruning the profile can do, and the
result says so.

The hook before each call is :class:`~simulator.replay.openclaw_gate.FastContextHook` or, with
``reference=True``, the mirrored hook and pruner themselves; both give the same records.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial

from simulator.convert import to_openclaw
from simulator.replay.loop import ModelCall, model_calls, run_calls
from simulator.replay.model import BudgetExplanation, CallRecord, Fate, FateGroup, SimulationResult
from simulator.replay.openclaw_fast import FastPrune
from simulator.replay.openclaw_gate import (
    ContextHook,
    FastContextHook,
    HookOutcome,
    ReferenceContextHook,
    pruning_runtime,
)
from simulator.runtimes.openclaw.estimate import estimate_message_chars
from simulator.runtimes.openclaw.messages import (
    TextContent,
    ToolResultMessage,
    messages_from_json,
    text_block,
)
from simulator.runtimes.openclaw.pruner import soft_trim_tool_result
from simulator.runtimes.openclaw.settings import EffectivePruningSettings, OpenClawSettings
from simulator.runtimes.openclaw.ttl_gate import TtlGateState
from simulator.specs.openclaw.budget import duration as _duration
from simulator.specs.openclaw.budget import explain_budget
from simulator.transcript import Message, Role, Transcript

CHARS_PER_TOKEN = 4
ESTIMATOR = "OpenClaw chars / 4 (CJK ×4, 8,000 chars per image)"


def _tokens(chars: float) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


@dataclass(frozen=True, slots=True)
class _Session:
    """What does not change between calls (the hook's incremental pruner grows as calls come)."""

    transcript: Transcript
    prefix: tuple[int, ...]
    """Prefix sums of the native messages' sizes in chars."""
    budget: BudgetExplanation
    effective: EffectivePruningSettings | None
    clocked: bool
    markers: tuple[tuple[int, int], ...]
    hook: ContextHook | None


@dataclass(frozen=True, slots=True)
class OpenClawState:
    """What carries from one call to the next: the TTL clock and how far the transcript was read."""

    gate: TtlGateState = TtlGateState()
    marker_at: int = 0
    """Next marker a new run may read."""
    latest_seen: int | None = None
    """Newest timestamp of the transcript messages read so far."""
    seen_upto: int = 0


def replay_openclaw(
    transcript: Transcript, settings: OpenClawSettings, *, profile_name: str, reference: bool = False
) -> SimulationResult:
    """Replay ``transcript`` through OpenClaw's pruning with ``settings``.

    Args:
        transcript: The imported session.
        settings: A validated OpenClaw ``contextPruning`` profile.
        profile_name: Shown in the result.
        reference: Run the runtime's own hook and pruner on every call (quadratic) instead of the
            incremental pruner behind the same gate.

    Returns:
        One record per model call (what the pruned view sent, and why).
    """
    converted = to_openclaw(transcript.messages)
    natives = messages_from_json(list(converted.messages))
    origins = tuple(tuple(o) for o in converted.origins)
    chars = [estimate_message_chars(m) for m in natives]
    prefix = [0]
    for c in chars:
        prefix.append(prefix[-1] + c)
    effective = settings.effective()
    clocked = any(m.timestamp_ms is not None for m in transcript.messages)
    hook: ContextHook | None = None
    if effective is not None:
        runtime = pruning_runtime(effective, settings.context_window_tokens())
        kind = ReferenceContextHook if reference else FastContextHook
        hook = kind(natives, runtime, settings.model_context_window)
    markers = tuple(_run_markers(transcript)) if clocked else ()
    session = _Session(transcript, tuple(prefix), explain_budget(settings), effective, clocked, markers, hook)
    calls, _ = run_calls(model_calls(transcript, origins), partial(step, session), OpenClawState())
    warnings: tuple[str, ...] = ()
    if not clocked and effective is not None:
        warnings = ("the transcript has no timestamps: every call is treated as past the cache TTL",)
    return SimulationResult(
        runtime="openclaw",
        version="2026.7.1",
        profile_name=profile_name,
        budget=session.budget,
        window=session.budget.window,
        calls=calls,
        origins=origins,
        native_tokens=tuple(_tokens(c) for c in chars),
        dropped_at=(0,) * len(natives),
        drop_rules=("",) * len(natives),
        content_changes=(),
        estimator=ESTIMATOR,
        warnings=warnings,
    )


def step(session: _Session, state: OpenClawState, call: ModelCall) -> tuple[CallRecord, OpenClawState]:
    """One model call: the TTL clock from the transcript, then the pruning hook's view for this call."""
    messages = session.transcript.messages
    state = _read_transcript(session, state, call)
    now = state.latest_seen if state.latest_seen is not None else messages[call.message_index].timestamp_ms
    full_chars = session.prefix[call.available]
    notes: list[str] = []
    outcome = HookOutcome(None, None, None)
    gate = state.gate
    if session.hook is not None and session.effective is not None:
        outcome, gate = session.hook.context(gate, now if session.clocked else None, call.available)
        _gate_note(outcome.decision, outcome.elapsed_ms, session.effective, notes)
    view = outcome.view
    changed = view is not None and view.changed
    if view is not None and not changed and session.effective is not None:
        _skip_note(view.skipped, view.ratio_before, session.effective, notes)
    usage = messages[call.message_index].usage
    record = CallRecord(
        number=call.number,
        message_index=call.message_index,
        available=call.available,
        sent=((0, call.available),) if call.available else (),
        breadcrumb_at=None,
        fated=_fate_groups(view, session.effective) if view is not None and changed else (),
        budget=session.budget.value,
        tokens_full=_tokens(full_chars),
        tokens_sent=_tokens(view.chars_after if view is not None and changed else full_chars),
        trimmed=changed,
        provider_input_tokens=usage.prompt_tokens if usage is not None else None,
        notes=tuple(notes),
    )
    return record, OpenClawState(gate, state.marker_at, state.latest_seen, state.seen_upto)


def _read_transcript(session: _Session, state: OpenClawState, call: ModelCall) -> OpenClawState:
    """The transcript up to the reply: the newest time seen and, when a run starts, its marker."""
    messages = session.transcript.messages
    latest = state.latest_seen
    for index in range(state.seen_upto, call.message_index):
        stamp = messages[index].timestamp_ms
        if stamp is not None:
            latest = stamp if latest is None else max(latest, stamp)
    run_start = call.number == 1 or any(
        _starts_run(messages[i]) for i in range(state.seen_upto, call.message_index)
    )
    gate, marker_at = state.gate, state.marker_at
    if run_start:
        # A new run's runtime reads the newest marker written before it.
        while marker_at < len(session.markers) and session.markers[marker_at][0] <= call.message_index:
            gate = TtlGateState(last_cache_touch_at=session.markers[marker_at][1])
            marker_at += 1
    return OpenClawState(gate, marker_at, latest, call.message_index)


def _same(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a.lower() == b.lower()


def _run_markers(transcript: Transcript) -> list[tuple[int, int]]:
    """``(after_message, timestamp_ms)`` of the cache-TTL markers the runs would read, oldest first."""
    messages = transcript.messages
    if transcript.cache_ttl_markers:
        return [
            (m.after_message, m.timestamp_ms)
            for m in transcript.cache_ttl_markers
            if m.timestamp_ms
            and _same(m.provider, transcript.provider)
            and _same(m.model_id, transcript.model)
        ]
    # None recorded: synthesise the marker written at the end of each run (before each real user message).
    out: list[tuple[int, int]] = []
    last_reply: int | None = None
    for index, message in enumerate(messages):
        if _starts_run(message) and last_reply is not None:
            out.append((index, last_reply))
            last_reply = None
        if message.role is Role.ASSISTANT and message.timestamp_ms is not None:
            last_reply = message.timestamp_ms
    return out


def _starts_run(message: Message) -> bool:
    return message.role is Role.USER and message.tool_result is None


def _gate_note(
    decision: str | None, elapsed_ms: float | None, effective: EffectivePruningSettings, notes: list[str]
) -> None:
    if decision == "no_marker":
        notes.append("no cache-TTL marker yet: OpenClaw does not prune")
    elif decision == "ttl_not_expired" and elapsed_ms is not None:
        notes.append(
            f"cache still warm: {_duration(elapsed_ms)} since the last touch "
            f"< ttl {_duration(effective.ttl_ms)}"
        )
    elif decision == "ttl_disabled":
        notes.append("ttl 0: pruning disabled")
    elif elapsed_ms is not None:
        notes.append(f"cache TTL expired ({_duration(elapsed_ms)} since the last touch)")


def _skip_note(
    skipped: str | None, ratio: float | None, effective: EffectivePruningSettings, notes: list[str]
) -> None:
    if skipped == "below_soft_trim_ratio" and ratio is not None:
        notes.append(f"ratio {ratio:.2f} < softTrimRatio {effective.soft_trim_ratio:g}: nothing to prune")
    elif skipped == "too_few_assistants":
        notes.append(
            f"fewer than keepLastAssistants {effective.keep_last_assistants:g} assistant messages: "
            "nothing prunable"
        )


def _fate_groups(view: FastPrune, effective: EffectivePruningSettings | None) -> tuple[FateGroup, ...]:
    if effective is None:
        return ()
    ratio = view.ratio_before or 0.0
    out: list[FateGroup] = []
    if view.soft_trimmed:
        rule = f"soft trim: ratio {ratio:.2f} ≥ softTrimRatio {effective.soft_trim_ratio:g}"
        out.append(FateGroup(Fate.SOFT_TRIMMED, rule, view.soft_trimmed))
    if view.images_replaced:
        out.append(
            FateGroup(
                Fate.IMAGE_REPLACED, "images in tool results replaced during soft trim", view.images_replaced
            )
        )
    if view.hard_cleared:
        after_soft = view.ratio_after_soft_trim or 0.0
        rule = f"hard clear: ratio {after_soft:.2f} ≥ hardClearRatio {effective.hard_clear_ratio:g}"
        out.append(FateGroup(Fate.HARD_CLEARED, rule, view.hard_cleared))
    return tuple(out)


def pruned_contents(
    transcript: Transcript, settings: OpenClawSettings, call: CallRecord, origins: Sequence[Sequence[int]]
) -> dict[int, tuple[int, str]]:
    """``(tokens, text)`` after pruning of each message ``call``'s rules changed (tokens = chars / 4).

    Recomputed for one call on demand: the record keeps only which messages were changed.
    """
    fated = {i: g.fate for g in call.fated for i in g.indices}
    effective = settings.effective()
    if not fated or effective is None:
        return {}
    out: dict[int, tuple[int, str]] = {}
    for index, fate in fated.items():
        # Convert only the transcript messages this native came from, not the whole transcript.
        converted = to_openclaw([transcript.messages[i] for i in origins[index]]).messages
        if len(converted) != 1:
            continue
        message = messages_from_json(list(converted))[0]
        if not isinstance(message, ToolResultMessage):
            continue
        if fate is Fate.HARD_CLEARED:
            text = effective.hard_clear.placeholder
            cleared = replace(message, content=(text_block(text),))
            out[index] = (_tokens(estimate_message_chars(cleared)), text)
            continue
        trimmed = soft_trim_tool_result(message, effective)
        if trimmed is not None:
            new = trimmed[0]
            blocks = new.content if isinstance(new.content, tuple) else ()
            text = "\n".join(b.text for b in blocks if isinstance(b, TextContent))
            out[index] = (_tokens(estimate_message_chars(new)), text)
    return out
