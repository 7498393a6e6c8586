"""The tool-result context guard of OpenClaw 2026.9.6.

Upstream, openclaw@2026.9.6 ``src/agents/embedded-agent-runner/tool-result-context-guard.ts``
(``installToolResultContextGuard``, ``truncateToolResultToChars``) and its estimator
(``estimateMessageChars``, beside ``cache-ttl.ts`` in the dist). Against 2026.7.1:

* no preemptive overflow any more (the guard never throws "Context overflow ... during tool loop");
* a tool result's text is budgeted with the CJK weights at raw weight 2, an image counts 16,000, other
  blocks their JSON length twice;
* an oversized tool result keeps as many images as fit (16,000 each, with an "N images omitted from
  context" notice) and its text blocks are cut by ``truncateToolResultMessage`` (head, or head + tail when
  the tail looks important) instead of a single head cut.

The single-result limit is unchanged: ``max(1024, floor(window * 2 * 0.5))``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.context_guard import guard_limits
from simulator.runtimes.openclaw.context_guard import guard_message_chars as guard_message_chars_v1
from simulator.runtimes.openclaw.jsstr import js_json_stringify, js_len
from simulator.runtimes.openclaw.messages import (
    AgentMessage,
    ContentBlock,
    ToolResultMessage,
    block_json,
    text_block,
)
from simulator.runtimes.openclaw.v2026_9_6.budget_chars import estimate_budget_chars
from simulator.runtimes.openclaw.v2026_9_6.tool_result_text import (
    context_limit_notice,
    text_of,
    truncate_tool_result_message,
    truncate_tool_result_text,
)

IMAGE_CHAR_ESTIMATE: Final = 8_000
TOOL_IMAGE_CHARS: Final = IMAGE_CHAR_ESTIMATE * 2


def _is_image(block: ContentBlock) -> bool:
    obj = block_json(block)
    return obj is not None and obj.get("type") == "image"


def _is_plain_text(block: ContentBlock) -> bool:
    obj = block_json(block)
    return obj is not None and obj.get("type") == "text" and isinstance(obj.get("text"), str)


def tool_result_content_chars(blocks: Sequence[ContentBlock]) -> int:
    """``estimateToolResultContentChars``."""
    chars = 0
    for block in blocks:
        obj = block.to_json()
        if _is_plain_text(block) and isinstance(obj, dict):
            chars += estimate_budget_chars(str(obj["text"]), 2)
        elif _is_image(block):
            chars += TOOL_IMAGE_CHARS
        else:
            chars += js_len(obj) * 2 if isinstance(obj, str) else js_len(js_json_stringify(obj)) * 2
    return chars


def _blocks(message: ToolResultMessage) -> tuple[ContentBlock, ...]:
    if isinstance(message.content, str):
        return (text_block(message.content),)
    return message.content if isinstance(message.content, tuple) else ()


def _excluded(message: AgentMessage) -> bool:
    extra: tuple[tuple[str, JSON], ...] = getattr(message, "extra", ())
    return any(k == "excludeFromContext" and v is True for k, v in extra)


def guard_message_chars(message: AgentMessage) -> int:
    """``estimateMessageChars`` of the 2026.9.6 guard."""
    if _excluded(message):
        return 0
    if isinstance(message, ToolResultMessage):
        return tool_result_content_chars(_blocks(message))
    return guard_message_chars_v1(message)


def _replace_content(
    message: ToolResultMessage, content: str | tuple[ContentBlock, ...]
) -> ToolResultMessage:
    """``replaceToolResultContent``: a string becomes one text block unless the content was a string."""
    if isinstance(content, str) and not (isinstance(message.content, str) or message.content is None):
        content = (text_block(content),)
    extra = tuple((k, v) for k, v in message.extra if k != "details")
    return ToolResultMessage(content, message.tool_name, message.tool_call_id, message.is_error, extra)


def _omission_notice(image_count: int, retained: int) -> str:
    omitted = image_count - retained
    plural = "" if omitted == 1 else "s"
    none_fit = "; no images fit the context limit" if retained == 0 else ""
    return f"[{omitted} image{plural} omitted from context{none_fit}; rerun with fewer images]"


def _project(
    message: ToolResultMessage, retained: tuple[ContentBlock, ...], notice: str | None, max_chars: int
) -> ToolResultMessage:
    notice_blocks: tuple[ContentBlock, ...] = (text_block(notice),) if notice is not None else ()
    reserved = tool_result_content_chars(tuple(b for b in retained if not _is_plain_text(b)) + notice_blocks)
    cut = truncate_tool_result_message(
        _replace_content(message, retained), max(0, max_chars - reserved), weight=2
    )
    cut_blocks = cut.content if isinstance(cut.content, tuple) else ()
    return _replace_content(message, cut_blocks + notice_blocks)


def truncate_tool_result_to_chars(message: ToolResultMessage, max_chars: int) -> ToolResultMessage:
    """``truncateToolResultToChars`` (2026.9.6)."""
    if guard_message_chars(message) <= max_chars:
        return message
    if not isinstance(message.content, tuple):
        text = "\n".join(
            t for t in (text_of(b) for b in _blocks(message) if _is_plain_text(b)) if t is not None
        )
        return _replace_content(
            message, truncate_tool_result_text(text, max_chars, min_keep_chars=0, weight=2)
        )
    content = message.content
    image_count = sum(1 for b in content if _is_image(b))
    for retained_images in range(min(image_count, max_chars // TOOL_IMAGE_CHARS), -1, -1):
        seen = 0
        kept: list[ContentBlock] = []
        for block in content:
            if _is_image(block):
                seen += 1
                if seen > retained_images:
                    continue
            kept.append(block)
        retained = tuple(kept)
        notice = _omission_notice(image_count, retained_images) if retained_images < image_count else None
        projected = _project(message, retained, notice, max_chars)
        projected_blocks = projected.content if isinstance(projected.content, tuple) else ()
        emptied = any(
            _is_plain_text(block)
            and text_of(block)
            and (
                index >= len(projected_blocks)
                or not _is_plain_text(projected_blocks[index])
                or not text_of(projected_blocks[index])
            )
            for index, block in enumerate(retained)
        )
        if emptied:
            continue
        if guard_message_chars(projected) <= max_chars:
            return projected
    omitted = tool_result_content_chars(tuple(b for b in content if not _is_plain_text(b)))
    texts = tuple(b for b in content if _is_plain_text(b))
    notice = (
        _omission_notice(image_count, 0)
        if image_count > 0
        else context_limit_notice(max(1, math.floor(omitted / 2)))
    )
    return _project(message, texts, notice, max_chars)


@dataclass(frozen=True, slots=True)
class GuardOutcome:
    """What the 2026.9.6 guard did to one call's context (it never stops a call)."""

    messages: tuple[AgentMessage, ...]
    truncated_indexes: tuple[int, ...]
    max_single_tool_result_chars: int


def apply_tool_result_context_guard(
    messages: Sequence[AgentMessage], context_window_tokens: float
) -> GuardOutcome:
    """``enforceToolResultLimit`` over the context, as the guard's ``transformContext`` wrapper runs it."""
    max_single, _ = guard_limits(context_window_tokens)
    out = list(messages)
    truncated: list[int] = []
    for i, message in enumerate(messages):
        if isinstance(message, ToolResultMessage):
            rewritten = truncate_tool_result_to_chars(message, max_single)
            if rewritten is not message:
                out[i] = rewritten
                truncated.append(i)
    return GuardOutcome(tuple(out) if truncated else tuple(messages), tuple(truncated), max_single)
