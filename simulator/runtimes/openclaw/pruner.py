"""``pruneContextMessages``: OpenClaw's cache-TTL soft-trim / hard-clear pass over tool results.

Upstream: openclaw@2026.7.1 ``src/agents/agent-hooks/context-pruning/pruner.ts`` (commit 2d2ddc43).
Only ``toolResult`` messages between the first user message and the ``keepLastAssistants`` cutoff
whose tool passes the allow/deny predicate are candidates. Once the estimated ratio reaches
``softTrimRatio`` every candidate is soft-trimmed (head + tail, images replaced by a marker); if the
ratio is still at or above ``hardClearRatio`` and the candidates hold at least
``minPrunableToolChars``, candidates are replaced by the placeholder oldest first until the ratio
drops below ``hardClearRatio``.

The result also explains itself: per-changed-message fates, the ratios that triggered them and why
each other message was left alone, so a UI can label every message with the rule that decided it.

Deliberate divergences: none in behaviour. ``contextWindow`` values that are not numbers are
treated as missing (JS would compute with ``NaN``); numeric settings that are fractional are used as
JS would use them (slices truncate the count).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.estimate import (
    CHARS_PER_TOKEN_ESTIMATE,
    drop_thinking_blocks,
    estimate_message_chars,
)
from simulator.runtimes.openclaw.jsstr import (
    js_concat,
    js_json_stringify,
    js_len,
    js_number_to_string,
    js_slice,
)
from simulator.runtimes.openclaw.messages import (
    AgentMessage,
    AssistantMessage,
    ContentBlock,
    ImageContent,
    TextContent,
    ToolResultMessage,
    UserMessage,
    block_json,
    text_block,
)
from simulator.runtimes.openclaw.settings import EffectivePruningSettings
from simulator.runtimes.openclaw.tools import make_tool_prunable_predicate

IMAGE_REMOVED_MARKER: Final = "[image removed during context pruning]"

ToolPrunable = Callable[[str | None], bool]

SkipReason = Literal["no_context_window", "too_few_assistants", "below_soft_trim_ratio"]
ProtectionReason = Literal[
    "keep_last_assistants",
    "before_first_user",
    "tool_not_prunable",
    "role_never_pruned",
]
StopReason = Literal[
    "below_hard_clear_ratio",
    "hard_clear_disabled",
    "below_min_prunable_tool_chars",
    "cleared_until_below_hard_clear_ratio",
    "cleared_every_candidate",
]


@dataclass(frozen=True, slots=True)
class SoftTrimmed:
    """A tool result rewritten by the soft-trim pass.

    ``trimmed`` is False when only images were swapped for the marker (text kept whole).
    """

    index: int
    chars_before: int
    chars_after: int
    raw_len: int
    images_replaced: int
    trimmed: bool


@dataclass(frozen=True, slots=True)
class HardCleared:
    """A tool result replaced by the hard-clear placeholder (``chars_before`` is after any soft trim)."""

    index: int
    chars_before: int
    chars_after: int
    ratio_before: float
    soft_trim: SoftTrimmed | None = None


MessageFate = SoftTrimmed | HardCleared


@dataclass(frozen=True, slots=True)
class Protection:
    """Why message ``index`` could not be pruned."""

    index: int
    reason: ProtectionReason


@dataclass(frozen=True, slots=True)
class PruneResult:
    """Outcome of :func:`prune_context_messages`.

    ``messages`` is the input tuple itself when nothing changed (``returned_same``), mirroring
    upstream returning the very same array. Ratios are ``total / char_window`` floats; ``None`` where
    the pass stopped before computing them.
    """

    messages: tuple[AgentMessage, ...]
    returned_same: bool
    changed_indexes: tuple[int, ...]
    fates: tuple[MessageFate, ...]
    protections: tuple[Protection, ...]
    candidate_indexes: tuple[int, ...]
    skipped: SkipReason | None
    stop: StopReason | None
    char_window: float
    chars_before: int
    chars_after: int
    ratio_before: float | None
    ratio_after_soft_trim: float | None
    ratio_after: float | None
    soft_trim_ratio: float
    hard_clear_ratio: float
    prunable_tool_chars: int | None
    cutoff_index: int | None
    first_user_index: int | None


def resolve_window_tokens(context_window: float | None, override: float | None) -> float | None:
    """Window used by the pruner: a finite positive override, else the model's ``contextWindow``.

    Returns:
        The window in tokens, or None when pruning cannot run (missing, zero or negative).
    """
    if override is not None and math.isfinite(override) and override > 0:
        return override
    if context_window is None or not math.isfinite(context_window) or context_window <= 0:
        return None
    return context_window


def find_assistant_cutoff_index(messages: Sequence[AgentMessage], keep_last_assistants: float) -> int | None:
    """Index of the K-th assistant from the end (inclusive start of the protected tail).

    Returns:
        ``len(messages)`` when K <= 0, None when there are fewer than K assistant messages.
    """
    if keep_last_assistants <= 0:
        return len(messages)
    remaining = keep_last_assistants
    for i in range(len(messages) - 1, -1, -1):
        if not isinstance(messages[i], AssistantMessage):
            continue
        remaining -= 1
        if remaining == 0:
            return i
    return None


def find_first_user_index(messages: Sequence[AgentMessage]) -> int | None:
    """Index of the first ``user`` message, or None."""
    for i, message in enumerate(messages):
        if isinstance(message, UserMessage):
            return i
    return None


def _blocks(message: ToolResultMessage) -> tuple[ContentBlock, ...]:
    return message.content if isinstance(message.content, tuple) else ()


def _is_image(block: ContentBlock) -> bool:
    kind = type(block)
    if (kind is ImageContent or kind is TextContent) and not block.extra:  # type: ignore[union-attr]
        # Its JSON type is its class's own (no other field may name one): a screenshot's data is not
        # written out to learn it is an image.
        return kind is ImageContent
    return _is_image_json(block)


def _is_image_json(block: ContentBlock) -> bool:
    """:func:`_is_image` from the block's JSON alone (the reference its typed reading is tested against)."""
    obj = block_json(block)
    return obj is not None and obj.get("type") == "image"


def _collect_parts(blocks: tuple[ContentBlock, ...], with_images: bool) -> list[str]:
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContent):
            parts.append(block.text)
            continue
        if type(block) is ImageContent and not block.extra:  # an image's JSON, read from its class
            if with_images:
                parts.append(IMAGE_REMOVED_MARKER)
            continue
        obj = block_json(block)
        if obj is None:
            continue
        if obj.get("type") == "text":
            text = obj.get("text")
            parts.append(text if isinstance(text, str) else js_json_stringify(obj))
        elif obj.get("type") == "image" and with_images:
            parts.append(IMAGE_REMOVED_MARKER)
    return parts


def _joined_length(parts: Sequence[str]) -> int:
    if not parts:
        return 0
    return sum(js_len(p) for p in parts) + len(parts) - 1


def _take_head(parts: Sequence[str], max_chars: int) -> str:
    if max_chars <= 0 or not parts:
        return ""
    remaining = max_chars
    out: list[str] = []
    for i, part in enumerate(parts):
        if remaining <= 0:
            break
        if i > 0:
            out.append("\n")
            remaining -= 1
            if remaining <= 0:
                break
        length = js_len(part)
        if length <= remaining:
            out.append(part)
            remaining -= length
        else:
            out.append(js_slice(part, 0, remaining))
            remaining = 0
    return js_concat(*out)


def _take_tail(parts: Sequence[str], max_chars: int) -> str:
    if max_chars <= 0 or not parts:
        return ""
    remaining = max_chars
    out: list[str] = []
    for i in range(len(parts) - 1, -1, -1):
        if remaining <= 0:
            break
        part = parts[i]
        length = js_len(part)
        if length <= remaining:
            out.append(part)
            remaining -= length
        else:
            out.append(js_slice(part, length - remaining))
            remaining = 0
            break
        if remaining > 0 and i > 0:
            out.append("\n")
            remaining -= 1
    out.reverse()
    return js_concat(*out)


def _js_int(value: float) -> int:
    # JS slice/compare with a fractional count behaves like truncation towards zero here.
    return math.trunc(value) if math.isfinite(value) else (2**53 if value > 0 else 0)


def soft_trim_tool_result(
    message: ToolResultMessage, settings: EffectivePruningSettings
) -> tuple[ToolResultMessage, int, int, bool] | None:
    """Soft-trim one tool result as OpenClaw 2026.7.1 does.

    Args:
        message: A candidate tool result.
        settings: Effective settings (``softTrim`` is used as given, only clamped at 0).

    Returns:
        None when unchanged, else ``(new message, raw_len, images_replaced, trimmed)``.
    """
    blocks = _blocks(message)
    images = sum(1 for b in blocks if _is_image(b))
    parts = _collect_parts(blocks, images > 0)
    raw_len = _joined_length(parts)
    head_chars = max(0, settings.soft_trim.head_chars)
    tail_chars = max(0, settings.soft_trim.tail_chars)
    if raw_len <= settings.soft_trim.max_chars or head_chars + tail_chars >= raw_len:
        if images == 0:
            return None
        joined = js_concat("\n".join(parts))
        return (
            ToolResultMessage(
                (text_block(joined),),
                message.tool_name,
                message.tool_call_id,
                message.is_error,
                message.extra,
            ),
            raw_len,
            images,
            False,
        )
    head = _take_head(parts, _js_int(head_chars))
    tail = _take_tail(parts, _js_int(tail_chars))
    note = (
        f"\n\n[Tool result trimmed: kept first {js_number_to_string(head_chars)} chars and last "
        f"{js_number_to_string(tail_chars)} chars of {raw_len} chars.]"
    )
    text = js_concat(head, "\n...\n", tail, note)
    trimmed = ToolResultMessage(
        (text_block(text),), message.tool_name, message.tool_call_id, message.is_error, message.extra
    )
    return trimmed, raw_len, images, True


class PruneMemo:
    """Results of the per-message work, kept across calls of one replay.

    A replay prunes the same message objects again at every call whose TTL has expired; the size
    estimate and the soft trim of a message depend only on the message (and the fixed settings), so
    they are computed once. Entries hold the message itself, so an ``id`` is never reused while cached.
    """

    def __init__(self, settings: EffectivePruningSettings) -> None:
        self.settings = settings
        self._chars: dict[int, tuple[AgentMessage, int]] = {}
        self._soft: dict[int, tuple[ToolResultMessage, tuple[ToolResultMessage, int, int, bool] | None]] = {}

    def chars(self, message: AgentMessage) -> int:
        hit = self._chars.get(id(message))
        if hit is None:
            hit = (message, estimate_message_chars(message))
            self._chars[id(message)] = hit
        return hit[1]

    def soft_trim(
        self, message: ToolResultMessage, settings: EffectivePruningSettings
    ) -> tuple[ToolResultMessage, int, int, bool] | None:
        if settings is not self.settings:
            return soft_trim_tool_result(message, settings)
        hit = self._soft.get(id(message))
        if hit is None:
            hit = (message, soft_trim_tool_result(message, settings))
            self._soft[id(message)] = hit
        return hit[1]


def cleared_tool_result(message: ToolResultMessage, placeholder: str) -> ToolResultMessage:
    """A hard-cleared tool result: the placeholder as its only text block (also built by the fast replay)."""
    return ToolResultMessage(
        (text_block(placeholder),), message.tool_name, message.tool_call_id, message.is_error, message.extra
    )


_cleared = cleared_tool_result


def _protections(
    messages: Sequence[AgentMessage], start: int, cutoff: int, is_tool_prunable: ToolPrunable
) -> tuple[Protection, ...]:
    out: list[Protection] = []
    for i, message in enumerate(messages):
        if i >= cutoff:
            out.append(Protection(i, "keep_last_assistants"))
        elif i < start:
            out.append(Protection(i, "before_first_user"))
        elif not isinstance(message, ToolResultMessage):
            out.append(Protection(i, "role_never_pruned"))
        elif not is_tool_prunable(message.tool_name):
            out.append(Protection(i, "tool_not_prunable"))
    return tuple(out)


def prune_context_messages(
    messages: Sequence[AgentMessage],
    settings: EffectivePruningSettings,
    *,
    context_window: float | None = None,
    context_window_tokens_override: float | None = None,
    is_tool_prunable: ToolPrunable | None = None,
    drop_thinking_blocks_for_estimate: bool = False,
    memo: PruneMemo | None = None,
    explain: bool = True,
) -> PruneResult:
    """Run OpenClaw's ``pruneContextMessages`` on a history.

    Args:
        messages: The history in order (never modified).
        settings: Effective settings, used exactly as given (no clamping).
        context_window: ``ctx.model.contextWindow`` in tokens (None = no model).
        context_window_tokens_override: Runtime window override (used when finite and > 0).
        is_tool_prunable: Predicate over tool names; default derives from ``settings.tools``.
        drop_thinking_blocks_for_estimate: Estimate the initial total without non-latest thinking.
        memo: Per-message results to reuse across calls (a replay); the output is the same.
        explain: Compute ``protections`` (an O(n) list a replay does not need at every call).

    Returns:
        A :class:`PruneResult`; ``messages`` is the input tuple itself when nothing changed.
    """
    original = tuple(messages)
    predicate = (
        is_tool_prunable if is_tool_prunable is not None else make_tool_prunable_predicate(settings.tools)
    )
    window = resolve_window_tokens(context_window, context_window_tokens_override)
    char_window = window * CHARS_PER_TOKEN_ESTIMATE if window is not None else 0
    estimate_source = drop_thinking_blocks(original) if drop_thinking_blocks_for_estimate else original
    size = memo.chars if memo is not None else estimate_message_chars
    trim_one = memo.soft_trim if memo is not None else soft_trim_tool_result
    total_before = sum(map(size, estimate_source))
    cutoff = find_assistant_cutoff_index(original, settings.keep_last_assistants)
    first_user = find_first_user_index(original)
    start = len(original) if first_user is None else first_user

    def unchanged(
        skipped: SkipReason | None, ratio: float | None, protections: tuple[Protection, ...]
    ) -> PruneResult:
        return PruneResult(
            messages=original,
            returned_same=True,
            changed_indexes=(),
            fates=(),
            protections=protections,
            candidate_indexes=(),
            skipped=skipped,
            stop=None,
            char_window=char_window,
            chars_before=total_before,
            chars_after=total_before,
            ratio_before=ratio,
            ratio_after_soft_trim=None,
            ratio_after=ratio,
            soft_trim_ratio=settings.soft_trim_ratio,
            hard_clear_ratio=settings.hard_clear_ratio,
            prunable_tool_chars=None,
            cutoff_index=cutoff,
            first_user_index=first_user,
        )

    if window is None or char_window <= 0:
        return unchanged("no_context_window", None, ())
    if cutoff is None:
        return unchanged("too_few_assistants", None, ())
    protections = _protections(original, start, cutoff, predicate) if explain else ()
    total = total_before
    ratio = total / char_window
    if ratio < settings.soft_trim_ratio:
        return unchanged("below_soft_trim_ratio", ratio, protections)
    ratio_before = ratio

    current: list[AgentMessage] = list(original)
    candidates: list[int] = []
    soft_fates: dict[int, SoftTrimmed] = {}
    for i in range(start, cutoff):
        message = original[i]
        if not isinstance(message, ToolResultMessage) or not predicate(message.tool_name):
            continue
        candidates.append(i)
        outcome = trim_one(message, settings)
        if outcome is None:
            continue
        updated, raw_len, images, trimmed = outcome
        before = size(message)
        after = size(updated)
        total += after - before
        current[i] = updated
        soft_fates[i] = SoftTrimmed(i, before, after, raw_len, images, trimmed)

    ratio = total / char_window
    ratio_after_soft = ratio
    prunable_chars: int | None = None
    cleared: dict[int, HardCleared] = {}
    stop: StopReason
    if ratio < settings.hard_clear_ratio:
        stop = "below_hard_clear_ratio"
    elif not settings.hard_clear.enabled:
        stop = "hard_clear_disabled"
    else:
        prunable_chars = sum(size(current[i]) for i in candidates)
        if prunable_chars < settings.min_prunable_tool_chars:
            stop = "below_min_prunable_tool_chars"
        else:
            stop = "cleared_every_candidate"
            placeholder_chars: int | None = None
            for i in candidates:
                if ratio < settings.hard_clear_ratio:
                    stop = "cleared_until_below_hard_clear_ratio"
                    break
                message = current[i]
                assert isinstance(message, ToolResultMessage)
                before = size(message)
                replacement = _cleared(message, settings.hard_clear.placeholder)
                if placeholder_chars is None:
                    # Every cleared result holds the same single text block.
                    placeholder_chars = estimate_message_chars(replacement)
                after = placeholder_chars
                cleared[i] = HardCleared(i, before, after, ratio, soft_fates.get(i))
                current[i] = replacement
                total += after - before
                ratio = total / char_window

    changed = tuple(sorted(set(soft_fates) | set(cleared)))
    fates: tuple[MessageFate, ...] = tuple(cleared[i] if i in cleared else soft_fates[i] for i in changed)
    return PruneResult(
        messages=tuple(current) if changed else original,
        returned_same=not changed,
        changed_indexes=changed,
        fates=fates,
        protections=protections,
        candidate_indexes=tuple(candidates),
        skipped=None,
        stop=stop,
        char_window=char_window,
        chars_before=total_before,
        chars_after=total,
        ratio_before=ratio_before,
        ratio_after_soft_trim=ratio_after_soft,
        ratio_after=ratio,
        soft_trim_ratio=settings.soft_trim_ratio,
        hard_clear_ratio=settings.hard_clear_ratio,
        prunable_tool_chars=prunable_chars,
        cutoff_index=cutoff,
        first_user_index=first_user,
    )


def prune_result_json(result: PruneResult) -> dict[str, JSON]:
    """The vector shape: ``{returnedSameArray, changedIndexes, messages}``."""
    return {
        "returnedSameArray": result.returned_same,
        "changedIndexes": list(result.changed_indexes),
        "messages": [m.to_json() for m in result.messages],
    }
