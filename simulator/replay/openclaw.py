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
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from simulator.convert import to_openclaw
from simulator.replay.common import call_starts
from simulator.replay.model import CallRecord, Fate, FateGroup, SimulationResult
from simulator.replay.openclaw_fast import FastPrune, IncrementalPruner
from simulator.runtimes.openclaw.estimate import estimate_message_chars
from simulator.runtimes.openclaw.messages import (
    TextContent,
    ToolResultMessage,
    messages_from_json,
    text_block,
)
from simulator.runtimes.openclaw.pruner import (
    HardCleared,
    PruneMemo,
    PruneResult,
    SoftTrimmed,
    prune_context_messages,
    soft_trim_tool_result,
)
from simulator.runtimes.openclaw.settings import EffectivePruningSettings, OpenClawSettings
from simulator.runtimes.openclaw.ttl_gate import ContextCall, PruningRuntime, TtlGateState, on_context
from simulator.specs.openclaw.budget import explain_budget
from simulator.transcript import Message, Role, Transcript

CHARS_PER_TOKEN = 4
ESTIMATOR = "OpenClaw chars / 4 (CJK ×4, 8,000 chars per image)"


def _tokens(chars: float) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


def _duration(ms: float) -> str:
    seconds = int(ms // 1000)
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m {seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


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


def _as_view(result: PruneResult) -> FastPrune:
    """The reference pruner's result in the incremental pruner's terms, so both share one rendering."""
    soft = tuple(f.index for f in result.fates if isinstance(f, SoftTrimmed) and f.trimmed)
    images = tuple(f.index for f in result.fates if isinstance(f, SoftTrimmed) and not f.trimmed)
    hard = tuple(f.index for f in result.fates if isinstance(f, HardCleared))
    return FastPrune(
        not result.returned_same,
        result.chars_before,
        result.chars_after,
        result.ratio_before,
        result.ratio_after_soft_trim,
        soft,
        images,
        hard,
        result.skipped,
    )


def _gate_note(
    decision: str, elapsed_ms: float | None, effective: EffectivePruningSettings, notes: list[str]
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


def _fast_step(
    pruner: IncrementalPruner,
    end: int,
    effective: EffectivePruningSettings,
    state: TtlGateState,
    now: float | None,
    notes: list[str],
) -> FastPrune | None:
    """The TTL hook's decision (as ``ttl_gate.on_context``) with the incremental pruner behind it."""
    if now is not None and effective.mode == "cache-ttl":
        touched = state.last_cache_touch_at
        elapsed = now - touched if touched else None
        decision = (
            "no_marker"
            if elapsed is None
            else "ttl_disabled"
            if effective.ttl_ms <= 0
            else "ttl_not_expired"
            if elapsed < effective.ttl_ms
            else "prune"
        )
        _gate_note(decision, elapsed, effective, notes)
        if decision != "prune":
            return None
    return pruner.prune(end)


def _fate_groups(view: FastPrune, effective: EffectivePruningSettings) -> tuple[FateGroup, ...]:
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


def replay_openclaw(
    transcript: Transcript, settings: OpenClawSettings, *, profile_name: str, fast: bool = True
) -> SimulationResult:
    """Replay ``transcript`` through OpenClaw's pruning with ``settings``.

    Args:
        transcript: The imported session.
        settings: A validated OpenClaw ``contextPruning`` profile.
        profile_name: Shown in the result.
        fast: Answer each pruning pass incrementally (``openclaw_fast``); ``False`` runs the
            runtime's own pruner and TTL hook at every call (quadratic, kept as the reference).

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

    explanation = explain_budget(settings)
    effective = settings.effective()
    warnings: list[str] = []
    messages = transcript.messages
    clocked = any(m.timestamp_ms is not None for m in messages)
    if not clocked and effective is not None:
        warnings.append("the transcript has no timestamps: every call is treated as past the cache TTL")
    markers = _run_markers(transcript) if clocked else []
    runtime = (
        PruningRuntime(
            settings=effective,
            context_window_tokens=settings.context_window_tokens(),
            memo=PruneMemo(effective),
            explain=False,
        )
        if effective is not None
        else None
    )
    incremental = (
        IncrementalPruner(
            effective,
            context_window=settings.model_context_window,
            context_window_tokens_override=settings.context_window_tokens(),
        )
        if fast and effective is not None
        else None
    )
    fed = 0
    state = TtlGateState()
    calls: list[CallRecord] = []
    marker_at = 0
    latest_seen: int | None = None
    seen_upto = 0
    for number, (available, message_index) in enumerate(call_starts(transcript, origins), start=1):
        for index in range(seen_upto, message_index):
            stamp = messages[index].timestamp_ms
            if stamp is not None:
                latest_seen = stamp if latest_seen is None else max(latest_seen, stamp)
        run_start = any(_starts_run(messages[i]) for i in range(seen_upto, message_index)) or number == 1
        seen_upto = message_index
        now = latest_seen if latest_seen is not None else messages[message_index].timestamp_ms
        full_chars = prefix[available]
        notes: list[str] = []
        fated: tuple[FateGroup, ...] = ()
        sent_chars = full_chars
        trimmed = False
        if incremental is not None:
            while fed < available:
                incremental.append(natives[fed])
                fed += 1
        if runtime is not None and effective is not None:
            if run_start:
                # A new run's runtime reads the newest marker written before it.
                while marker_at < len(markers) and markers[marker_at][0] <= message_index:
                    state = TtlGateState(last_cache_touch_at=markers[marker_at][1])
                    marker_at += 1
            if incremental is not None:
                view = _fast_step(incremental, available, effective, state, now if clocked else None, notes)
                if view is not None and view.changed and clocked and now is not None:
                    state = TtlGateState(last_cache_touch_at=now)
                result = None
                if view is not None and view.changed:
                    fated = _fate_groups(view, effective)
                    sent_chars = view.chars_after
                    trimmed = True
                elif view is not None:
                    _skip_note(view.skipped, view.ratio_before, effective, notes)
            elif clocked and now is not None:
                outcome, state = on_context(
                    runtime,
                    state,
                    ContextCall(
                        now=now,
                        messages=natives[:available],
                        model_context_window=settings.model_context_window,
                    ),
                )
                result = outcome.prune
                _gate_note(outcome.decision, outcome.elapsed_ms, effective, notes)
            else:
                result = prune_context_messages(
                    natives[:available],
                    effective,
                    context_window=settings.model_context_window,
                    context_window_tokens_override=runtime.context_window_tokens,
                    memo=runtime.memo,
                    explain=False,
                )
            if result is not None and not result.returned_same:
                fated = _fate_groups(_as_view(result), effective)
                sent_chars = result.chars_after
                trimmed = True
            elif result is not None:
                _skip_note(result.skipped, result.ratio_before, effective, notes)
        usage = messages[message_index].usage
        calls.append(
            CallRecord(
                number=number,
                message_index=message_index,
                available=available,
                sent=((0, available),) if available else (),
                breadcrumb_at=None,
                fated=fated,
                budget=explanation.value,
                tokens_full=_tokens(full_chars),
                tokens_sent=_tokens(sent_chars),
                trimmed=trimmed,
                provider_input_tokens=usage.prompt_tokens if usage is not None else None,
                notes=tuple(notes),
            )
        )
    return SimulationResult(
        runtime="openclaw",
        version="2026.7.1",
        profile_name=profile_name,
        budget=explanation,
        window=explanation.window,
        calls=tuple(calls),
        origins=origins,
        native_tokens=tuple(_tokens(c) for c in chars),
        dropped_at=(0,) * len(natives),
        drop_rules=("",) * len(natives),
        content_changes=(),
        estimator=ESTIMATOR,
        warnings=tuple(warnings),
    )


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
