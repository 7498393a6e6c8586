"""How OpenClaw 2026.9.6 cuts tool-result text to a character budget.

Upstream, openclaw@2026.9.6 ``src/agents/embedded-agent-runner/tool-result-truncation.ts``:
``truncateToolResultText`` (head, or head + "middle content omitted" + tail when the tail looks important:
errors, a closing ``}``, a total/summary line), ``appendBoundedTruncationSuffix`` (shrinks the kept text
until text + notice fit), and ``truncateToolResultMessage`` (shares a message's budget between its text
blocks, keeping small blocks whole when that fits). Budgets are measured with
:func:`estimate_budget_chars`, usually at raw weight 2.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Final

import msgspec

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.context_guard import format_context_limit_truncation_notice
from simulator.runtimes.openclaw.jsstr import js_len
from simulator.runtimes.openclaw.messages import ContentBlock, RawBlock, TextContent, ToolResultMessage
from simulator.runtimes.openclaw.v2026_9_6.budget_chars import (
    estimate_budget_chars,
    slice_tail_to_budget,
    slice_to_budget,
    slice_utf16_safe,
)

MIN_KEEP_CHARS: Final = 2_000
MIDDLE_OMISSION_MARKER: Final = (
    "\n\n\u26a0\ufe0f [... middle content omitted \u2014 showing head and tail ...]\n\n"
)
_IMPORTANT: Final = re.compile(
    r"\b(error|exception|failed|fatal|traceback|panic|stack trace|errno|exit code)\b", re.ASCII
)
_CLOSING: Final = re.compile(r"\b(total|summary|result|complete|finished|done)\b", re.ASCII)

Suffix = Callable[[float], str]


context_limit_notice: Final[Suffix] = format_context_limit_truncation_notice


def _js_index(text: str, index: int) -> int:
    return js_len(text[:index]) if index >= 0 else -1


def has_important_tail(text: str) -> bool:
    """``hasImportantTail``: the last 2000 units name an error, end with ``}`` or close with a summary."""
    tail = slice_utf16_safe(text, -2_000).strip().lower()
    return bool(_IMPORTANT.search(tail) or tail.endswith("}") or _CLOSING.search(tail))


def effective_min_keep_chars(max_chars: float, min_keep: float, suffix: Suffix, weight: int) -> float:
    """``resolveEffectiveMinKeepChars``."""
    floor = estimate_budget_chars(suffix(1), weight)
    return max(0, min(min_keep, max(0, max_chars - floor)))


def append_bounded_suffix(
    kept: str, original_length: int, max_chars: float, suffix: Suffix, weight: int
) -> str:
    """``appendBoundedTruncationSuffix``: shrink ``kept`` until it plus the notice fit ``max_chars``."""
    while True:
        notice = suffix(max(1, original_length - js_len(kept)))
        notice_chars = estimate_budget_chars(notice, weight)
        if notice_chars >= max_chars:
            return slice_to_budget(suffix(max(1, original_length)), max_chars, weight)
        next_kept = slice_to_budget(kept, max_chars - notice_chars, weight)
        final = next_kept + notice
        if js_len(next_kept) == js_len(kept) and estimate_budget_chars(final, weight) <= max_chars:
            return final
        if not next_kept and not kept:
            return slice_to_budget(final, max_chars, weight)
        kept = next_kept


def truncate_tool_result_text(
    text: str,
    max_chars: float,
    *,
    suffix: Suffix = context_limit_notice,
    min_keep_chars: float = MIN_KEEP_CHARS,
    weight: int = 1,
) -> str:
    """``truncateToolResultText``."""
    min_keep = effective_min_keep_chars(max_chars, min_keep_chars, suffix, weight)
    length = js_len(text)
    if length <= max_chars and estimate_budget_chars(text, weight) <= max_chars:
        return text
    initial = slice_to_budget(text, max_chars, weight)
    default_suffix = suffix(max(1, length - js_len(initial)))
    budget = max(min_keep, max_chars - estimate_budget_chars(default_suffix, weight))
    if has_important_tail(text) and budget > min_keep * 2:
        tail_budget = min(math.floor(budget * 0.3), 4_000)
        head_budget = budget - tail_budget - estimate_budget_chars(MIDDLE_OMISSION_MARKER, weight)
        if head_budget > min_keep:
            head = slice_to_budget(text, head_budget, weight)
            newline = _js_index(head, head.rfind("\n"))
            if newline > js_len(head) * 0.8:
                head = slice_utf16_safe(head, 0, newline)
            tail = slice_tail_to_budget(text, tail_budget, weight)
            first = _js_index(tail, tail.find("\n"))
            if first != -1 and first < js_len(tail) * 0.2:
                tail = slice_utf16_safe(tail, first + 1)
            if js_len(head) + js_len(tail) < length:
                return append_bounded_suffix(
                    head + MIDDLE_OMISSION_MARKER + tail, length, max_chars, suffix, weight
                )
    kept = slice_to_budget(text, budget, weight)
    newline = _js_index(kept, kept.rfind("\n"))
    if newline > js_len(kept) * 0.8:
        kept = slice_utf16_safe(kept, 0, newline)
    return append_bounded_suffix(kept, length, max_chars, suffix, weight)


def text_of(block: ContentBlock) -> str | None:
    """The text of a tool-result text block (``isToolResultTextBlock``), else None."""
    if isinstance(block, TextContent):
        return block.text
    raw = block.to_json()
    if isinstance(raw, dict) and raw.get("type") in ("text", "toolResult"):
        text = raw.get("text")
        return text if isinstance(text, str) else None
    return None


def with_text(block: ContentBlock, text: str) -> ContentBlock:
    """``Object.assign({}, block, {text})`` (and ``content`` too when the block carries a string one)."""
    if isinstance(block, TextContent):
        extra = tuple((k, text if k == "content" and isinstance(v, str) else v) for k, v in block.extra)
        return msgspec.structs.replace(block, text=text, extra=extra)
    raw = block.to_json()
    if not isinstance(raw, dict):
        return block
    out: dict[str, JSON] = {**raw, "text": text}
    if isinstance(raw.get("content"), str):
        out["content"] = text
    return RawBlock(out)


def truncate_tool_result_message(
    message: ToolResultMessage,
    max_chars: float,
    *,
    suffix: Suffix = context_limit_notice,
    min_keep_chars: float = MIN_KEEP_CHARS,
    weight: int = 1,
) -> ToolResultMessage:
    """``truncateToolResultMessage``: share ``max_chars`` between the message's text blocks."""
    min_keep = effective_min_keep_chars(max_chars, min_keep_chars, suffix, weight)
    if not isinstance(message.content, tuple):
        return message
    blocks = message.content
    texts = [text_of(b) for b in blocks]
    chars = [estimate_budget_chars(t, weight) if t is not None else 0 for t in texts]
    total = sum(chars)
    if total <= max_chars:
        return message
    small = [
        c > 0 and t is not None and js_len(t) <= min_keep and estimate_budget_chars(t) <= min_keep
        for t, c in zip(texts, chars, strict=True)
    ]
    notices = [
        estimate_budget_chars(suffix(max(1, js_len(t))), weight) if c > 0 and t is not None else 0
        for t, c in zip(texts, chars, strict=True)
    ]
    small_chars = sum(c for c, s in zip(chars, small, strict=True) if s)
    large_notices = sum(n for n, s in zip(notices, small, strict=True) if not s)
    preserve_small = small_chars + large_notices <= max_chars
    preserved = small_chars if preserve_small else 0
    remaining = max(0, max_chars - preserved)
    reducible = total - preserved
    reducible_notices = large_notices if preserve_small else sum(notices)
    notice_scale = min(1, remaining / reducible_notices) if reducible_notices > 0 else 0
    distributable = max(0, remaining - reducible_notices)
    out: list[ContentBlock] = []
    for block, text, count, is_small, notice in zip(blocks, texts, chars, small, notices, strict=True):
        if text is None:
            out.append(block)
            continue
        keep_whole = preserve_small and is_small
        share = count / reducible if reducible > 0 else 0
        block_budget = count if keep_whole else math.floor(notice * notice_scale + distributable * share)
        block_min_keep = count if keep_whole else math.floor(min_keep * share)
        cut = truncate_tool_result_text(
            text, block_budget, suffix=suffix, min_keep_chars=block_min_keep, weight=weight
        )
        out.append(with_text(block, cut))
    return msgspec.structs.replace(message, content=tuple(out))
