"""OpenClaw native messages read and sized in one pass, for the message shapes a long session is made of.

Preparing a session reads every ``AgentMessage`` payload (``message_from_json``) and needs four facts of
each message: the pruner's estimate (``estimate_message_chars``), the guard's (``guard_message_chars``),
whether image cleanup may change it and whether it holds thinking (``media_and_thinking_of``). Asked one
by one, each of those builds the blocks' JSON again, and a tool call's arguments are written out twice,
which was most of the time it took to prepare a long session. Here the common shapes -- a user message of
text, an assistant reply of text, thinking and tool call blocks, a tool result of text blocks -- are
recognised at a glance (exact types, exact key sets) and everything is read off the payload once.
Anything else, a field of another type, an unknown or extra key in a block, another role, goes to the
reference functions for the whole message, so the answer is always theirs (tests compare the two on
generated shapes, the conformance messages and the samples).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from simulator.jsonvalue import JSON
from simulator.replay.openclaw_transforms import media_and_thinking_of
from simulator.runtimes.openclaw.context_guard import IMAGE_CHAR_ESTIMATE as GUARD_IMAGE_CHARS
from simulator.runtimes.openclaw.context_guard import TOOL_RESULT_ESTIMATE_TO_TEXT_RATIO, guard_message_chars
from simulator.runtimes.openclaw.estimate import (
    IMAGE_CHAR_ESTIMATE,
    StripFacts,
    estimate_message_chars,
    estimate_string_chars,
)
from simulator.runtimes.openclaw.image_prune import may_name_media
from simulator.runtimes.openclaw.jsstr import js_json_length, js_len
from simulator.runtimes.openclaw.messages import (
    AgentMessage,
    AssistantMessage,
    ContentBlock,
    Fields,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    message_from_json,
)

NativeFacts: TypeAlias = tuple[AgentMessage, int, int, bool, "bool | StripFacts"]
"""A native message, its pruner estimate, its guard estimate, whether image cleanup may change it, and
whether it holds thinking the thinking policy strips: ``False``, ``True`` (read by the reference
functions), or its :data:`StripFacts` (read here)."""

NATIVE_ROLES = ("user", "assistant", "toolResult")
"""The roles of the messages a session records as OpenClaw's own ``AgentMessage`` payloads."""
_TOOL_RESULT_LEAD = ("role", "toolCallId", "toolName", "content", "isError")
_TOOL_RESULT_KEYS = frozenset(_TOOL_RESULT_LEAD)


@dataclass(frozen=True, slots=True)
class NativeColumns:
    """The natives of a session and, for each, what :func:`reference_facts` gives, as columns."""

    natives: tuple[AgentMessage, ...]
    estimates: tuple[int, ...]
    guards: tuple[int, ...]
    media: tuple[int, ...]
    """The natives image cleanup may change, ascending."""
    thinking: tuple[int, ...]
    """The assistants holding thinking, ascending."""
    strips: tuple[StripFacts | None, ...]
    """Per assistant of ``thinking``: its :data:`StripFacts`, ``None`` for one the reference functions
    read (its strip is sized when a replay strips it)."""


def natives_with_facts(raws: Sequence[JSON], convert: Callable[[int], JSON] | None = None) -> NativeColumns:
    """Each payload's message (``message_from_json``) and its facts (:func:`reference_facts`).

    ``convert``: given ``k``, the payload to read instead of ``raws[k]`` when that is not an object of a
    native role (user, assistant, toolResult); ``None`` reads every payload as it is.
    """
    natives: list[AgentMessage] = []
    estimates: list[int] = []
    guards: list[int] = []
    media: list[int] = []
    thinking: list[int] = []
    strips: list[StripFacts | None] = []
    readers = _READERS
    for k, raw in enumerate(raws):
        facts = None
        if type(raw) is dict:
            role = raw.get("role")
            reader = readers.get(role) if type(role) is str else None
            facts = reader(raw) if reader is not None else None
        if facts is None:
            # A payload the readers left; one that is not a native message at all is converted first.
            if convert is not None and not (isinstance(raw, dict) and raw.get("role") in NATIVE_ROLES):
                raw = convert(k)
            facts = reference_facts(message_from_json(raw))
        natives.append(facts[0])
        estimates.append(facts[1])
        guards.append(facts[2])
        if facts[3]:
            media.append(k)
        held = facts[4]
        if held is not False:
            thinking.append(k)
            strips.append(None if held is True else held)
    return NativeColumns(
        tuple(natives), tuple(estimates), tuple(guards), tuple(media), tuple(thinking), tuple(strips)
    )


def reference_facts(message: AgentMessage) -> NativeFacts:
    """The facts of one message from the reference functions (any shape)."""
    media, thinking = media_and_thinking_of((message,))
    return (
        message,
        estimate_message_chars(message),
        guard_message_chars(message),
        bool(media),
        bool(thinking),
    )


def _user(raw: dict[str, JSON]) -> NativeFacts | None:
    content = raw.get("content")
    if type(content) is str:
        estimate, guard, media = _text_facts(content)
        return UserMessage(content, _extra(raw)), estimate, guard, media, False
    read = _text_blocks(content) if type(content) is list else None
    if read is None and type(content) is list:
        read = _with_images(content)  # an attached image
    if read is None:
        return None
    blocks, estimate, guard, media = read
    return UserMessage(blocks, _extra(raw)), estimate, guard, media, False


def _tool_result(raw: dict[str, JSON]) -> NativeFacts | None:
    content, name, call_id = raw.get("content"), raw.get("toolName"), raw.get("toolCallId")
    is_error = raw.get("isError")
    if type(name) is not str or type(call_id) is not str or type(is_error) is not bool:
        return None
    read = _text_blocks(content) if type(content) is list else None
    if read is None and type(content) is list:
        read = _with_images(content)  # a screenshot's result
    if read is None:
        return None
    blocks, estimate, chars, media = read
    # The guard counts a tool result's text twice over (``TOOL_RESULT_ESTIMATE_TO_TEXT_RATIO``).
    guard = max(chars, math.ceil(chars * TOOL_RESULT_ESTIMATE_TO_TEXT_RATIO))
    # The order pi writes: the rest of the items, taken from the iterator that passed the five (all five
    # are present: there are five items to pass).
    rest = iter(raw.items())
    if (
        next(rest)[0] == "role"
        and next(rest)[0] == "toolCallId"
        and next(rest)[0] == "toolName"
        and next(rest)[0] == "content"
        and next(rest)[0] == "isError"
    ):
        extra: Fields = tuple(rest)
    else:
        extra = tuple([(k, v) for k, v in raw.items() if k not in _TOOL_RESULT_KEYS])
    return ToolResultMessage(blocks, name, call_id, is_error, extra), estimate, guard, media, False


def _assistant(raw: dict[str, JSON]) -> NativeFacts | None:
    content = raw.get("content")
    if type(content) is not list:
        return None
    blocks: list[ContentBlock] = []
    estimate = guard = taken = 0
    thinking = False
    kept = False  # a text or tool call block: the stripped assistant keeps it (no notice)
    plain = True  # every thinking block ASCII
    # Subscripts, cheaper than ``get``: a block without one of the keys is left to the reference functions.
    try:
        for block in content:
            if type(block) is not dict:
                return None
            kind = block["type"]
            if kind == "text":
                text = block["text"]
                if type(text) is not str or len(block) != 2:
                    return None
                blocks.append(TextContent(text, None, ()))
                kept = True
                if text.isascii():
                    size = len(text)
                    estimate += size
                    guard += size
                else:
                    estimate += estimate_string_chars(text)
                    guard += js_len(text)
            elif kind == "toolCall":
                call_id, name, arguments = block["id"], block["name"], block["arguments"]
                if (
                    type(call_id) is not str
                    or type(name) is not str
                    or type(arguments) is not dict
                    or len(block) != 4
                ):
                    return None
                blocks.append(ToolCall(call_id, name, arguments, ()))
                kept = True
                size = js_json_length(arguments)  # pruner and guard alike: JSON.stringify(arguments).length
                estimate += size
                guard += size
            elif kind == "thinking":
                read = _thinking(block)
                if read is None:
                    return None
                blocks.append(read[0])
                estimate += read[1]
                guard += read[2]
                taken += read[1]
                if not read[3]:
                    plain = False
                thinking = True
            else:
                return None
    except KeyError:
        return None
    rest = iter(raw.items())  # _extra, inline: one per assistant of a session
    extra = tuple(rest) if next(rest)[0] == "role" and next(rest)[0] == "content" else _extra_of(raw)
    message = AssistantMessage(tuple(blocks), extra)
    return message, estimate, guard, False, (taken, not kept, plain) if thinking else False


def _thinking(block: dict[str, JSON]) -> tuple[ThinkingContent, int, int, bool] | None:
    """A thinking block of a string and at most a string signature: the block, its estimate (thinking and
    signature, weighted), its guard size (the thinking's length) and whether both strings are ASCII."""
    text, signature = block.get("thinking"), block.get("thinkingSignature")
    if type(text) is not str:
        return None
    # An ASCII text is one code unit a character, none of them weighted: its length is both sizes.
    length = len(text) if text.isascii() else -1
    if signature is None and len(block) == 2:
        if length >= 0:
            return ThinkingContent(text, None, None, ()), length, length, True
        return ThinkingContent(text, None, None, ()), estimate_string_chars(text), js_len(text), False
    if type(signature) is str and len(block) == 3:
        if length >= 0 and signature.isascii():
            return ThinkingContent(text, signature, None, ()), length + len(signature), length, True
        estimate = estimate_string_chars(text) + estimate_string_chars(signature)
        return ThinkingContent(text, signature, None, ()), estimate, js_len(text), False
    return None


def _text_blocks(content: list[JSON]) -> tuple[tuple[ContentBlock, ...], int, int, bool] | None:
    """Blocks that are all ``{"type": "text", "text": <string>}``: the blocks, their weighted and raw
    lengths, and whether any text names media (the image cleanup's own over-approximation,
    ``_may_hold_media``)."""
    if len(content) == 1:  # a tool result's usual content: _text_facts inline, no loop
        block = content[0]
        if type(block) is not dict or len(block) != 2 or block.get("type") != "text":
            return None
        text = block.get("text")
        if type(text) is not str:
            return None
        media = may_name_media(text)
        if text.isascii():
            return (TextContent(text, None, ()),), len(text), len(text), media
        return (TextContent(text, None, ()),), estimate_string_chars(text), js_len(text), media
    blocks: list[ContentBlock] = []
    estimate = chars = 0
    media = False
    for block in content:
        if type(block) is not dict or len(block) != 2 or block.get("type") != "text":
            return None
        text = block.get("text")
        if type(text) is not str:
            return None
        blocks.append(TextContent(text, None, ()))
        if not media:
            media = may_name_media(text)
        if text.isascii():
            estimate += len(text)
            chars += len(text)
        else:
            estimate += estimate_string_chars(text)
            chars += js_len(text)
    return tuple(blocks), estimate, chars, media


def _with_images(content: list[JSON]) -> tuple[tuple[ContentBlock, ...], int, int, bool] | None:
    """:func:`_text_blocks` of blocks that are each a text block or ``{"type": "image", "data": <string>,
    "mimeType": <string>}``: an image weighs the estimate's and the guard's fixed 8,000 characters, and
    image cleanup may change the message (``_may_hold_media``: it holds an image)."""
    blocks: list[ContentBlock] = []
    estimate = chars = 0
    for block in content:
        if type(block) is not dict:
            return None
        kind = block.get("type")
        if kind == "text" and len(block) == 2:
            text = block.get("text")
            if type(text) is not str:
                return None
            blocks.append(TextContent(text, None, ()))
            if text.isascii():
                estimate += len(text)
                chars += len(text)
            else:
                estimate += estimate_string_chars(text)
                chars += js_len(text)
        elif kind == "image" and len(block) == 3:
            data, mime_type = block.get("data"), block.get("mimeType")
            if type(data) is not str or type(mime_type) is not str:
                return None
            blocks.append(ImageContent(data, mime_type, ()))
            estimate += IMAGE_CHAR_ESTIMATE
            chars += GUARD_IMAGE_CHARS
        else:
            return None
    return tuple(blocks), estimate, chars, True


def _text_facts(text: str) -> tuple[int, int, bool]:
    """A user or tool result text's weighted length, raw length, and whether it names media (the image
    cleanup's own over-approximation, ``_may_hold_media``)."""
    named = may_name_media(text)
    if text.isascii():
        return len(text), len(text), named
    return estimate_string_chars(text), js_len(text), named


def _extra(raw: dict[str, JSON]) -> Fields:
    """A user or assistant message's fields after ``role`` and ``content``: a slice when those two lead
    the object (as pi writes it)."""
    rest = iter(raw.items())  # both present: at least two items to pass
    if next(rest)[0] == "role" and next(rest)[0] == "content":
        return tuple(rest)  # the items the iterator has not passed (no tuple of them all, then a slice)
    return _extra_of(raw)


def _extra_of(raw: dict[str, JSON]) -> Fields:
    """:func:`_extra` of an object whose items do not lead with ``role`` and ``content``."""
    return tuple([(k, v) for k, v in raw.items() if k != "role" and k != "content"])


_READERS: dict[str, Callable[[dict[str, JSON]], NativeFacts | None]] = {
    "user": _user,
    "assistant": _assistant,
    "toolResult": _tool_result,
}
