"""The tool-result context guard every embedded attempt installs around ``transformContext``.

Upstream: openclaw@2026.7.1 ``src/agents/embedded-agent-runner/tool-result-context-guard.ts``
(``installToolResultContextGuard``) with its estimator ``midturn-precheck.ts`` (``estimateMessageChars``)
and ``formatContextLimitTruncationNotice`` (``tool-result-truncation.ts``); unchanged in 2026.9.6 apart
from file names. It runs after the context-pruning hook and before the history image cleanup. Per call:

1. ``maxSingleToolResultChars = max(1024, floor(window * 2 * 0.5))``: every tool result whose estimate
   (raw UTF-16 chars, image 8000, doubled) is larger is rewritten to one text block cut to
   ``floor(max / 2)`` chars plus a "[... N more characters truncated; ...]" notice (``details`` dropped).
   Protected messages are not exempt.
2. If the whole context's estimate is still over ``max(1024, floor(window * 4 * 0.9))`` the attempt throws
   "Context overflow: estimated context size exceeds safe threshold during tool loop." (preemptive overflow).

The estimator here is not the pruner's: strings are raw ``.length`` (no CJK weighting), a tool result
counts double, redacted thinking counts as its JSON, other roles have their own rule.

Deliberate divergences: ``bashExecution`` messages are counted as 256 (their text rendering is not
modelled); the mid-turn precheck (only with a context engine's ``midTurnPrecheck``) is not modelled.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.jsstr import js_json_stringify, js_len, js_slice
from simulator.runtimes.openclaw.messages import (
    AgentMessage,
    AssistantMessage,
    ContentBlock,
    TextContent,
    ToolResultMessage,
    UserMessage,
    block_json,
    text_block,
)

SINGLE_TOOL_RESULT_CONTEXT_SHARE: Final = 0.5
PREEMPTIVE_OVERFLOW_RATIO: Final = 0.9
TOOL_RESULT_ESTIMATE_TO_TEXT_RATIO: Final = 2
IMAGE_CHAR_ESTIMATE: Final = 8_000
PREEMPTIVE_CONTEXT_OVERFLOW_MESSAGE: Final = (
    "Context overflow: estimated context size exceeds safe threshold during tool loop."
)
COMPACTION_SUMMARY_PREFIX: Final = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX: Final = "\n</summary>"
BRANCH_SUMMARY_PREFIX: Final = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
BRANCH_SUMMARY_SUFFIX: Final = "</summary>"


def format_context_limit_truncation_notice(truncated_chars: float) -> str:
    """``formatContextLimitTruncationNotice``."""
    count = max(1, math.floor(truncated_chars))
    return f"[... {count} more characters truncated; rerun with narrower args if needed]"


def _unknown_chars(value: JSON) -> int:
    if isinstance(value, str):
        return js_len(value)
    return js_len(js_json_stringify(value))


def _blocks_chars(blocks: Sequence[ContentBlock]) -> int:
    chars = 0
    for block in blocks:
        if isinstance(block, TextContent):
            chars += js_len(block.text)
            continue
        obj = block.to_json()
        if isinstance(obj, dict) and obj.get("type") == "text" and isinstance(obj.get("text"), str):
            chars += js_len(str(obj["text"]))
        elif isinstance(obj, dict) and obj.get("type") == "image":
            chars += IMAGE_CHAR_ESTIMATE
        else:
            chars += _unknown_chars(obj)
    return chars


def _tool_result_blocks(message: ToolResultMessage) -> tuple[ContentBlock, ...]:
    if isinstance(message.content, str):
        return (text_block(message.content),)
    return message.content if isinstance(message.content, tuple) else ()


def _assistant_chars(message: AssistantMessage) -> int:
    if not isinstance(message.content, tuple):
        return 0
    chars = 0
    for block in message.content:
        obj = block_json(block)
        if obj is None:
            continue
        kind = obj.get("type")
        if kind == "text" and isinstance(obj.get("text"), str):
            chars += js_len(str(obj["text"]))
        elif kind == "thinking" and isinstance(obj.get("thinking"), str):
            chars += js_len(str(obj["thinking"]))
        elif kind == "toolCall":
            arguments = obj.get("arguments")
            chars += js_len(js_json_stringify({} if arguments is None else arguments))
        else:
            chars += _unknown_chars(obj)
    return chars


def _other_chars(raw: JSON) -> int:
    if not isinstance(raw, dict):
        return 0
    role = raw.get("role")
    summary = raw.get("summary")
    text = summary if isinstance(summary, str) else ""
    if role == "branchSummary":
        return js_len(BRANCH_SUMMARY_PREFIX + text + BRANCH_SUMMARY_SUFFIX)
    if role == "compactionSummary":
        return js_len(COMPACTION_SUMMARY_PREFIX + text + COMPACTION_SUMMARY_SUFFIX)
    if role == "custom":
        content = raw.get("content")
        if isinstance(content, str):
            return js_len(content)
        if isinstance(content, list):
            return sum(
                _unknown_chars(b) if not _is_text_or_image(b) else _text_or_image_chars(b) for b in content
            )
        return 0
    return 256


def _is_text_or_image(block: JSON) -> bool:
    return isinstance(block, dict) and (
        (block.get("type") == "text" and isinstance(block.get("text"), str)) or block.get("type") == "image"
    )


def _text_or_image_chars(block: JSON) -> int:
    if isinstance(block, dict) and block.get("type") == "image":
        return IMAGE_CHAR_ESTIMATE
    return js_len(str(block["text"])) if isinstance(block, dict) else 0


def guard_message_chars(message: AgentMessage) -> int:
    """``estimateMessageChars`` of the guard (midturn-precheck.ts)."""
    if isinstance(message, UserMessage):
        if isinstance(message.content, str):
            return js_len(message.content)
        return _blocks_chars(message.content) if isinstance(message.content, tuple) else 0
    if isinstance(message, AssistantMessage):
        return _assistant_chars(message)
    if isinstance(message, ToolResultMessage):
        chars = _blocks_chars(_tool_result_blocks(message))
        return max(chars, math.ceil(chars * TOOL_RESULT_ESTIMATE_TO_TEXT_RATIO))
    return _other_chars(message.raw)


def _tool_result_text(message: ToolResultMessage) -> str:
    return "\n".join(b.text for b in _tool_result_blocks(message) if isinstance(b, TextContent))


def _truncate_text_to_budget(text: str, max_chars: int) -> str:
    length = js_len(text)
    if length <= max_chars:
        return text
    if max_chars <= 0:
        return format_context_limit_truncation_notice(length)
    body_budget = max_chars
    for _ in range(4):
        suffix = format_context_limit_truncation_notice(max(1, length - body_budget))
        body_budget = max(0, max_chars - len(suffix))
    cut = body_budget
    newline = _js_last_index_of_newline(text, cut)
    if newline > body_budget * 0.7:
        cut = newline
    return js_slice(text, 0, cut) + format_context_limit_truncation_notice(length - cut)


def _js_last_index_of_newline(text: str, from_index: int) -> int:
    # String.prototype.lastIndexOf("\n", fromIndex) in UTF-16 units; "\n" is one unit either way.
    head = js_slice(text, 0, from_index + 1)
    return js_len(head[: head.rfind("\n")]) if "\n" in head else -1


def _replace_text(message: ToolResultMessage, text: str) -> ToolResultMessage:
    content: str | tuple[ContentBlock, ...] = (
        text if isinstance(message.content, str) or message.content is None else (text_block(text),)
    )
    # replaceToolResultText drops ``details`` and keeps every other field.
    extra = tuple((k, v) for k, v in message.extra if k != "details")
    return ToolResultMessage(content, message.tool_name, message.tool_call_id, message.is_error, extra)


def truncate_tool_result_to_chars(message: ToolResultMessage, max_chars: int) -> ToolResultMessage:
    """``truncateToolResultToChars``: the guard's rewrite of one oversized tool result."""
    estimated = guard_message_chars(message)
    if estimated <= max_chars:
        return message
    raw = _tool_result_text(message)
    if not raw:
        over = max(1, math.floor(max(estimated - max_chars, 1) / TOOL_RESULT_ESTIMATE_TO_TEXT_RATIO))
        return _replace_text(message, format_context_limit_truncation_notice(over))
    budget = max(0, math.floor(max_chars / TOOL_RESULT_ESTIMATE_TO_TEXT_RATIO))
    if budget <= 0:
        return _replace_text(message, format_context_limit_truncation_notice(js_len(raw)))
    if js_len(raw) <= budget:
        return _replace_text(message, raw)
    return _replace_text(message, _truncate_text_to_budget(raw, budget))


@dataclass(frozen=True, slots=True)
class GuardOutcome:
    """What the guard did to one call's context.

    ``messages`` is None when it threw the preemptive overflow error (the call is not sent).
    """

    messages: tuple[AgentMessage, ...] | None
    truncated_indexes: tuple[int, ...]
    max_single_tool_result_chars: int
    max_context_chars: int
    context_chars: int
    overflow: bool


def guard_limits(context_window_tokens: float) -> tuple[int, int]:
    """(maxSingleToolResultChars, maxContextChars) for a window in tokens."""
    tokens = max(1, math.floor(context_window_tokens))
    max_context = max(1024, math.floor(tokens * 4 * PREEMPTIVE_OVERFLOW_RATIO))
    max_single = max(1024, math.floor(tokens * 2 * SINGLE_TOOL_RESULT_CONTEXT_SHARE))
    return max_single, max_context


def apply_tool_result_context_guard(
    messages: Sequence[AgentMessage], context_window_tokens: float
) -> GuardOutcome:
    """One pass of the guard's ``transformContext`` wrapper.

    Args:
        messages: The context after the pruning hook.
        context_window_tokens: ``contextTokenBudgetForGuard`` (the attempt's context budget, else the
            model's window, else its max tokens, else 200000).

    Returns:
        The guarded context (the same tuple when nothing was over the single-result share) or the
        overflow outcome.
    """
    max_single, max_context = guard_limits(context_window_tokens)
    out = list(messages)
    truncated: list[int] = []
    for i, message in enumerate(messages):
        if not isinstance(message, ToolResultMessage):
            continue
        rewritten = truncate_tool_result_to_chars(message, max_single)
        if rewritten is not message:
            out[i] = rewritten
            truncated.append(i)
    guarded = tuple(out) if truncated else tuple(messages)
    total = sum(guard_message_chars(m) for m in guarded)
    if total > max_context:
        return GuardOutcome(None, tuple(truncated), max_single, max_context, total, True)
    return GuardOutcome(guarded, tuple(truncated), max_single, max_context, total, False)
