"""OpenClaw's native ``AgentMessage`` shape (pi-agent-core / pi-ai types) as frozen structs.

Models the messages OpenClaw 2026.7.1 hands to its context hooks: ``user``, ``assistant`` and
``toolResult`` roles with content blocks (text, image, thinking, redacted_thinking, toolCall), plus any
other role kept opaque. ``from_json``/``to_json`` round-trip the vector shapes: fields the model does
not know are kept in ``extra`` and written back, so an untouched message serialises to its input.

Deliberate divergences: a block whose known field has an unexpected JSON type (e.g. a text block whose
``text`` is an object) is kept verbatim as :class:`RawBlock` instead of being rejected, because
OpenClaw's estimator and pruner give such blocks defined behaviour; key order of well-formed blocks is
canonical (``type`` first), which only matters for ``JSON.stringify`` of malformed blocks, and those
keep their original order.

The types are frozen ``msgspec`` structs rather than frozen dataclasses, as ``simulator.transcript``'s
are: preparing a 100,000-message session builds a few hundred thousand of them, and a struct is built
in C (about 6× faster than setting a slotted dataclass's fields one by one). They are left out of the
cyclic collector (``gc=False``): they hold strings, booleans, tuples of such structs and decoded JSON
values, none of which can refer back to a message, so they are never part of a reference cycle. Copy
one with a change with ``msgspec.structs.replace`` (``dataclasses.replace`` does not apply).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

import msgspec

from simulator.jsonvalue import JSON

Fields: TypeAlias = tuple[tuple[str, JSON], ...]


def _extra(obj: Mapping[str, JSON], known: Sequence[str]) -> Fields:
    for key in obj:
        if key not in known:
            return tuple([(k, v) for k, v in obj.items() if k not in known])
    return ()  # every key known (most blocks): no pairs built


def _opt_str(obj: Mapping[str, JSON], key: str) -> tuple[bool, str | None]:
    """Return (well_formed, value): missing is well formed, a non-string is not."""
    if key not in obj:
        return True, None
    value = obj[key]
    return (True, value) if isinstance(value, str) else (False, None)


def _put(out: dict[str, JSON], key: str, value: JSON | None) -> None:
    if value is not None:
        out[key] = value


class TextContent(msgspec.Struct, frozen=True, gc=False):
    """``{"type":"text","text":...}`` with a string ``text``."""

    text: str
    text_signature: str | None = None
    extra: Fields = ()

    @property
    def block_type(self) -> str:
        return "text"

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"type": "text", "text": self.text}
        _put(out, "textSignature", self.text_signature)
        out.update(self.extra)
        return out


class ImageContent(msgspec.Struct, frozen=True, gc=False):
    """``{"type":"image","data":<base64>,"mimeType":...}``."""

    data: str | None = None
    mime_type: str | None = None
    extra: Fields = ()

    @property
    def block_type(self) -> str:
        return "image"

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"type": "image"}
        _put(out, "data", self.data)
        _put(out, "mimeType", self.mime_type)
        out.update(self.extra)
        return out


class ThinkingContent(msgspec.Struct, frozen=True, gc=False):
    """``{"type":"thinking","thinking":...}`` with optional signature and ``redacted`` flag."""

    thinking: str | None = None
    thinking_signature: str | None = None
    redacted: bool | None = None
    extra: Fields = ()

    @property
    def block_type(self) -> str:
        return "thinking"

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"type": "thinking"}
        _put(out, "thinking", self.thinking)
        _put(out, "thinkingSignature", self.thinking_signature)
        _put(out, "redacted", self.redacted)
        out.update(self.extra)
        return out


class RedactedThinkingContent(msgspec.Struct, frozen=True, gc=False):
    """``{"type":"redacted_thinking","data":...}`` (opaque provider reasoning)."""

    data: str | None = None
    thinking_signature: str | None = None
    extra: Fields = ()

    @property
    def block_type(self) -> str:
        return "redacted_thinking"

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"type": "redacted_thinking"}
        _put(out, "data", self.data)
        _put(out, "thinkingSignature", self.thinking_signature)
        out.update(self.extra)
        return out


class ToolCall(msgspec.Struct, frozen=True, gc=False):
    """``{"type":"toolCall","id","name","arguments":{...}}``; ``arguments`` is kept as raw JSON."""

    id: str | None = None
    name: str | None = None
    arguments: dict[str, JSON] | None = None
    extra: Fields = ()

    @property
    def block_type(self) -> str:
        return "toolCall"

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"type": "toolCall"}
        _put(out, "id", self.id)
        _put(out, "name", self.name)
        _put(out, "arguments", self.arguments)
        out.update(self.extra)
        return out


class RawBlock(msgspec.Struct, frozen=True, gc=False):
    """Any other block (unknown type, malformed known type, null, non-object), kept verbatim."""

    raw: JSON

    @property
    def block_type(self) -> str | None:
        if isinstance(self.raw, dict):
            kind = self.raw.get("type")
            return kind if isinstance(kind, str) else None
        return None

    def to_json(self) -> JSON:
        return self.raw


ContentBlock: TypeAlias = (
    TextContent | ImageContent | ThinkingContent | RedactedThinkingContent | ToolCall | RawBlock
)


class RawContent(msgspec.Struct, frozen=True, gc=False):
    """A ``content`` value that is neither a string nor a list (e.g. ``null``), kept verbatim."""

    raw: JSON


Content: TypeAlias = str | tuple[ContentBlock, ...] | RawContent


def block_from_json(raw: JSON) -> ContentBlock:
    """Parse one content block.

    Args:
        raw: The block as JSON.

    Returns:
        A typed block when its type is known and its known fields have the expected types, else a
        :class:`RawBlock` holding the input unchanged.
    """
    if not isinstance(raw, dict):
        return RawBlock(raw)
    kind = raw.get("type")
    if kind == "text":
        sig_ok, sig = _opt_str(raw, "textSignature")
        text = raw.get("text")
        if isinstance(text, str) and sig_ok:
            return TextContent(text, sig, _extra(raw, ("type", "text", "textSignature")))
    elif kind == "image":
        data_ok, data = _opt_str(raw, "data")
        mime_ok, mime = _opt_str(raw, "mimeType")
        if data_ok and mime_ok:
            return ImageContent(data, mime, _extra(raw, ("type", "data", "mimeType")))
    elif kind == "thinking":
        th_ok, thinking = _opt_str(raw, "thinking")
        sig_ok, sig = _opt_str(raw, "thinkingSignature")
        redacted = raw.get("redacted")
        red_ok = redacted is None and "redacted" not in raw or isinstance(redacted, bool)
        if th_ok and sig_ok and red_ok:
            flag = redacted if isinstance(redacted, bool) else None
            return ThinkingContent(
                thinking, sig, flag, _extra(raw, ("type", "thinking", "thinkingSignature", "redacted"))
            )
    elif kind == "redacted_thinking":
        data_ok, data = _opt_str(raw, "data")
        sig_ok, sig = _opt_str(raw, "thinkingSignature")
        if data_ok and sig_ok:
            return RedactedThinkingContent(data, sig, _extra(raw, ("type", "data", "thinkingSignature")))
    elif kind == "toolCall":
        id_ok, call_id = _opt_str(raw, "id")
        name_ok, name = _opt_str(raw, "name")
        args = raw.get("arguments")
        args_ok = "arguments" not in raw or isinstance(args, dict)
        if id_ok and name_ok and args_ok:
            return ToolCall(
                call_id,
                name,
                args if isinstance(args, dict) else None,
                _extra(raw, ("type", "id", "name", "arguments")),
            )
    return RawBlock(raw)


def content_from_json(raw: JSON) -> Content:
    """Parse a message ``content`` value (string, list of blocks, or anything else kept raw)."""
    if isinstance(raw, str):
        return raw
    if isinstance(raw, list):
        return tuple(block_from_json(b) for b in raw)
    return RawContent(raw)


def content_to_json(content: Content) -> JSON:
    """Serialise a ``content`` value back to JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, RawContent):
        return content.raw
    return [b.to_json() for b in content]


TYPED_KEPT_BLOCKS = (TextContent, ImageContent, ToolCall)
"""Blocks whose JSON type is their class's own when they hold no other field (exactly these classes, no
``extra``): never thinking."""
TYPED_THINKING_BLOCKS = (ThinkingContent, RedactedThinkingContent)
"""Blocks whose JSON type is a thinking type when they hold no other field."""


def block_json(block: ContentBlock) -> dict[str, JSON] | None:
    """The block as a JSON object, or None when it is not an object (null, number, string...)."""
    out = block.to_json()
    return out if isinstance(out, dict) else None


class UserMessage(msgspec.Struct, frozen=True, gc=False):
    """``{"role":"user","content": str | blocks, "timestamp"}``."""

    content: Content | None
    extra: Fields = ()

    @property
    def role(self) -> str:
        return "user"

    def to_json(self) -> dict[str, JSON]:
        return _message_json("user", self.content, (), self.extra)


class AssistantMessage(msgspec.Struct, frozen=True, gc=False):
    """``{"role":"assistant","content":[...], api, provider, model, usage, stopReason, ...}``."""

    content: Content | None
    extra: Fields = ()

    @property
    def role(self) -> str:
        return "assistant"

    def to_json(self) -> dict[str, JSON]:
        return _message_json("assistant", self.content, (), self.extra)


class ToolResultMessage(msgspec.Struct, frozen=True, gc=False):
    """``{"role":"toolResult","toolCallId","toolName","content":[...],"isError",...}``."""

    content: Content | None
    tool_name: str | None = None
    tool_call_id: str | None = None
    is_error: bool | None = None
    extra: Fields = ()

    @property
    def role(self) -> str:
        return "toolResult"

    def to_json(self) -> dict[str, JSON]:
        typed: list[tuple[str, JSON]] = []
        if self.tool_call_id is not None:
            typed.append(("toolCallId", self.tool_call_id))
        if self.tool_name is not None:
            typed.append(("toolName", self.tool_name))
        if self.is_error is not None:
            typed.append(("isError", self.is_error))
        return _message_json("toolResult", self.content, tuple(typed), self.extra)


class OtherMessage(msgspec.Struct, frozen=True, gc=False):
    """Any other role (custom, compaction/branch summaries, bash executions...) or a non-object."""

    raw: JSON

    @property
    def role(self) -> str | None:
        if isinstance(self.raw, dict):
            role = self.raw.get("role")
            return role if isinstance(role, str) else None
        return None

    def to_json(self) -> JSON:
        return self.raw


AgentMessage: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage | OtherMessage


def _message_json(role: str, content: Content | None, typed: Fields, extra: Fields) -> dict[str, JSON]:
    out: dict[str, JSON] = {"role": role}
    if content is not None:
        out["content"] = content_to_json(content)
    out.update(typed)
    out.update(extra)
    return out


def message_from_json(raw: JSON) -> AgentMessage:
    """Parse one ``AgentMessage``.

    Args:
        raw: The message as JSON.

    Returns:
        The typed message; unknown roles and non-objects become :class:`OtherMessage`.
    """
    if not isinstance(raw, dict):
        return OtherMessage(raw)
    role = raw.get("role")
    content = content_from_json(raw["content"]) if "content" in raw else None
    if role == "user":
        return UserMessage(content, _extra(raw, ("role", "content")))
    if role == "assistant":
        return AssistantMessage(content, _extra(raw, ("role", "content")))
    if role == "toolResult":
        name_ok, name = _opt_str(raw, "toolName")
        id_ok, call_id = _opt_str(raw, "toolCallId")
        is_error = raw.get("isError")
        known = ["role", "content"]
        if name_ok:
            known.append("toolName")
        if id_ok:
            known.append("toolCallId")
        if isinstance(is_error, bool):
            known.append("isError")
        return ToolResultMessage(
            content,
            name,
            call_id,
            is_error if isinstance(is_error, bool) else None,
            _extra(raw, known),
        )
    return OtherMessage(raw)


def messages_from_json(raw: JSON) -> tuple[AgentMessage, ...]:
    """Parse a JSON list of messages.

    Raises:
        TypeError: when ``raw`` is not a list.
    """
    if not isinstance(raw, list):
        raise TypeError("messages must be a list")
    return tuple(message_from_json(m) for m in raw)


def messages_to_json(messages: Sequence[AgentMessage]) -> list[JSON]:
    """Serialise messages back to their JSON list."""
    return [m.to_json() for m in messages]


MESSAGE_KINDS = (ToolResultMessage, UserMessage, AssistantMessage)
"""The kinds of message a replay tells apart (any other is none of them)."""


def message_kinds(messages: Sequence[AgentMessage]) -> list[type | None]:
    """Each message's kind (a tool result, a user's or an assistant's message, else None) as
    ``isinstance`` tells it, asked once per class rather than once per message and kind (a subclass is
    its base's kind)."""
    by_class: dict[type, type | None] = {}
    for cls in set(map(type, messages)):
        by_class[cls] = next((kind for kind in MESSAGE_KINDS if issubclass(cls, kind)), None)
    return [by_class[type(m)] for m in messages]


def text_block(text: str) -> TextContent:
    """``{type: "text", text}`` as OpenClaw's ``asText`` builds it."""
    return TextContent(text)
