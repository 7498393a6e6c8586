"""OpenClaw's character-based context size estimate used by cache-TTL pruning.

Upstream (openclaw@2026.7.1): ``src/agents/cjk-chars.ts`` (``estimateStringChars``), the estimator in
``src/agents/agent-hooks/context-pruning/pruner.ts`` and ``dropThinkingBlocks`` in
``src/agents/embedded-agent-runner/thinking.ts``. Strings are measured in UTF-16 code units with
non-Latin (CJK, kana, Hangul, fullwidth) characters weighted as 4; an image counts 8000 chars; a
message of any role other than user/assistant/toolResult counts 256.

Deliberate divergences: where the JS would iterate a non-array ``content`` (a string iterates as
characters that are skipped) or crash on ``null``, this estimate counts 0 for that content.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final, TypeAlias

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.jsstr import js_json_stringify, js_len
from simulator.runtimes.openclaw.messages import (
    AgentMessage,
    AssistantMessage,
    Content,
    ContentBlock,
    TextContent,
    ToolResultMessage,
    UserMessage,
    block_json,
    text_block,
)

CHARS_PER_TOKEN_ESTIMATE: Final = 4
IMAGE_CHAR_ESTIMATE: Final = 8_000
OTHER_ROLE_CHAR_ESTIMATE: Final = 256
TOOL_CALL_UNSERIALIZABLE_CHARS: Final = 128
OMITTED_ASSISTANT_REASONING_TEXT: Final = "[assistant reasoning omitted]"
_THINKING_TYPES: Final = ("thinking", "redacted_thinking")

_NON_LATIN_RE: Final = re.compile(
    "[\u2e80-\u9fff\ua000-\ua4ff\uac00-\ud7af\uf900-\ufaff\uff01-\uff60\uffe0-\uffe6\U00020000-\U0002fa1f]"
)


def estimate_string_chars(text: str) -> int:
    """OpenClaw's CJK-aware length: UTF-16 length plus 3 per non-Latin character.

    An astral ideograph (U+20000..U+2FA1F) is first collapsed to one unit, so it also counts 4. The
    collapse applies to every pair whose high surrogate is D840..D87E (up to U+2FBFF) but only when
    the text holds at least one non-Latin character, exactly as upstream.

    Args:
        text: Any string.

    Returns:
        The weighted character count.
    """
    if text.isascii():  # a flag CPython keeps: no non-Latin character, one code unit each
        return len(text)
    non_latin = len(_NON_LATIN_RE.findall(text))
    length = js_len(text)
    if non_latin == 0:
        return length
    cjk_pairs = sum(1 for ch in text if 0x20000 <= ord(ch) <= 0x2FBFF)
    return length - cjk_pairs + non_latin * (CHARS_PER_TOKEN_ESTIMATE - 1)


def _content_blocks(content: Content | None) -> tuple[ContentBlock, ...]:
    return content if isinstance(content, tuple) else ()


def estimate_text_and_image_block(block: ContentBlock) -> int:
    """Size of one user/toolResult block: weighted text (or JSON of a malformed text block), image 8000."""
    if isinstance(block, TextContent):
        return estimate_string_chars(block.text)
    obj = block_json(block)
    if obj is None:
        return 0
    kind = obj.get("type")
    if kind == "text":
        text = obj.get("text")
        return estimate_string_chars(text if isinstance(text, str) else js_json_stringify(obj))
    if kind == "image":
        return IMAGE_CHAR_ESTIMATE
    return 0


def _weighted(value: JSON) -> int:
    return estimate_string_chars(value) if isinstance(value, str) else 0


def estimate_assistant_block(block: ContentBlock) -> int:
    """Size of one assistant block: text, thinking (+signature, +redacted data), toolCall arguments."""
    obj = block_json(block)
    return 0 if obj is None else _assistant_block_chars(obj)


def _assistant_block_chars(obj: dict[str, JSON]) -> int:
    """:func:`estimate_assistant_block` of a block's JSON object."""
    kind = obj.get("type")
    if kind == "text":
        return _weighted(obj.get("text"))
    if kind in ("thinking", "redacted_thinking"):
        chars = _weighted(obj.get("thinking"))
        if kind == "redacted_thinking":
            chars += _weighted(obj.get("data"))
        return chars + _weighted(obj.get("thinkingSignature"))
    if kind == "toolCall":
        arguments = obj.get("arguments")
        # Raw JSON length, deliberately not CJK-weighted (upstream quirk).
        return js_len(js_json_stringify({} if arguments is None else arguments))
    return 0


def estimate_message_chars(message: AgentMessage) -> int:
    """Estimated characters of one message, as OpenClaw's pruner counts them.

    Args:
        message: Any agent message.

    Returns:
        The estimate (an int).
    """
    if isinstance(message, UserMessage):
        if isinstance(message.content, str):
            return estimate_string_chars(message.content)
        return sum(estimate_text_and_image_block(b) for b in _content_blocks(message.content))
    if isinstance(message, AssistantMessage):
        return sum(estimate_assistant_block(b) for b in _content_blocks(message.content))
    if isinstance(message, ToolResultMessage):
        return sum(estimate_text_and_image_block(b) for b in _content_blocks(message.content))
    return OTHER_ROLE_CHAR_ESTIMATE


def estimate_context_chars(messages: Sequence[AgentMessage]) -> int:
    """Sum of :func:`estimate_message_chars` over every message (protected ones included)."""
    return sum(estimate_message_chars(m) for m in messages)


def _is_thinking(block: ContentBlock) -> bool:
    obj = block_json(block)
    return obj is not None and obj.get("type") in _THINKING_TYPES


def drop_thinking_blocks(messages: Sequence[AgentMessage]) -> tuple[AgentMessage, ...]:
    """``dropThinkingBlocks``: strip thinking from every assistant except the latest with array content.

    An assistant emptied by the strip gets one ``"[assistant reasoning omitted]"`` text block.

    Args:
        messages: The history.

    Returns:
        A new tuple (messages that did not change are the same objects).
    """
    latest = -1
    for i in range(len(messages) - 1, -1, -1):
        candidate = messages[i]
        if isinstance(candidate, AssistantMessage) and isinstance(candidate.content, tuple):
            latest = i
            break
    return tuple(message if i == latest else strip_thinking(message) for i, message in enumerate(messages))


def strip_change(
    message: AssistantMessage, stripped: AssistantMessage
) -> tuple[tuple[ContentBlock, ...], tuple[ContentBlock, ...]]:
    """What :func:`strip_thinking` took away from ``message`` and what it put in (the omission notice, when
    nothing else was left). An assistant's sizes are sums over its blocks, so its change in size is theirs:
    a replay sizes those few blocks rather than the whole message twice."""
    before = message.content if isinstance(message.content, tuple) else ()
    after = stripped.content if isinstance(stripped.content, tuple) else ()
    kept = {id(block) for block in after}  # the blocks the strip kept are the stored ones
    removed = tuple([b for b in before if id(b) not in kept])
    return removed, (after if len(removed) == len(before) else ())


def strip_size_change(message: AgentMessage) -> int:
    """``estimate_message_chars(strip_thinking(message)) - estimate_message_chars(message)``, read from the
    message's blocks once: an assistant's estimate is a sum over its blocks, so stripping changes it by the
    thinking blocks' sizes taken away and the omission notice's put in (when nothing else was left)."""
    if not isinstance(message, AssistantMessage) or not isinstance(message.content, tuple):
        return 0
    removed = kept = taken = 0
    for block in message.content:
        obj = block_json(block)
        if obj is not None and obj.get("type") in _THINKING_TYPES:
            removed += 1
            taken += _assistant_block_chars(obj)
        else:
            kept += 1
    if not removed:
        return 0  # strip_thinking keeps the message itself
    return (0 if kept else OMITTED_ASSISTANT_REASONING_CHARS) - taken


OMITTED_ASSISTANT_REASONING_CHARS: Final = estimate_string_chars(OMITTED_ASSISTANT_REASONING_TEXT)
"""The omission notice's size (a text block's: its weighted text)."""

StripFacts: TypeAlias = tuple[int, bool, bool]
"""What stripping an assistant's thinking changes, read once with its blocks (when a session is prepared):
the estimate of its thinking (each thinking block's text and signature, weighted), whether it keeps no
block of its own (so the omission notice is sent in its place), and whether all that thinking is ASCII (so
the estimate is its length too, as 2026.9.6's ``cacheTtlMessageChars`` counts it)."""


def strip_size_change_of(facts: StripFacts) -> int:
    """:func:`strip_size_change` of the assistant ``facts`` were read from: its thinking taken away, the
    omission notice put in when nothing else was left."""
    taken, notice, _ = facts
    return (OMITTED_ASSISTANT_REASONING_CHARS if notice else 0) - taken


def strip_thinking(message: AgentMessage) -> AgentMessage:
    """An assistant other than the latest as :func:`drop_thinking_blocks` sends it (the message itself
    when it has no thinking, or is not an assistant with array content)."""
    if not isinstance(message, AssistantMessage) or not isinstance(message.content, tuple):
        return message
    kept = tuple(b for b in message.content if not _is_thinking(b))
    if len(kept) == len(message.content):
        return message
    content: tuple[ContentBlock, ...] = kept or (text_block(OMITTED_ASSISTANT_REASONING_TEXT),)
    return AssistantMessage(content, message.extra)
