"""ZeroClaw's native message types and their serde JSON shapes.

Models ``zeroclaw_providers::ChatMessage`` (provider-facing history, role is a free string, native tool
calls encoded as JSON inside ``content``) and ``zeroclaw_api::model_provider::ConversationMessage``
(structured agent history, serde adjacently tagged ``{"type", "data"}``), as of master
15d28660 (2026-08-22).

Divergences: ``ToolCall.extra_content`` (a provider passthrough field that never affects trimming) is
not modelled; unknown JSON keys are ignored on input like serde does without ``deny_unknown_fields``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from simulator.jsonvalue import JSON, as_list, as_object, as_str, opt_str

SYSTEM = "system"
USER = "user"
ASSISTANT = "assistant"
TOOL = "tool"


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One provider-facing message: ``{"role", "content"}``."""

    role: str
    content: str

    @classmethod
    def from_json(cls, value: JSON) -> ChatMessage:
        """Parse the two-field serde shape.

        Args:
            value: A JSON object with string ``role`` and ``content``.

        Returns:
            The message.

        Raises:
            TypeError: When a field is missing or not a string.
        """
        obj = as_object(value, "ChatMessage")
        return cls(as_str(obj.get("role"), "role"), as_str(obj.get("content"), "content"))

    def to_json(self) -> JSON:
        """Serialise to ``{"role", "content"}``."""
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One native tool call requested by the assistant."""

    id: str
    name: str
    arguments: str

    @classmethod
    def from_json(cls, value: JSON) -> ToolCall:
        """Parse ``{"id", "name", "arguments"}`` (arguments is a JSON string, not an object)."""
        obj = as_object(value, "ToolCall")
        return cls(
            as_str(obj.get("id"), "id"),
            as_str(obj.get("name"), "name"),
            as_str(obj.get("arguments"), "arguments"),
        )

    def to_json(self) -> JSON:
        """Serialise to ``{"id", "name", "arguments"}``."""
        return {"id": self.id, "name": self.name, "arguments": self.arguments}


@dataclass(frozen=True, slots=True)
class ToolResultMessage:
    """One tool result inside a ``ToolResults`` conversation message."""

    tool_call_id: str
    content: str
    tool_name: str

    @classmethod
    def from_json(cls, value: JSON) -> ToolResultMessage:
        """Parse ``{"tool_call_id", "content", "tool_name"}``."""
        obj = as_object(value, "ToolResultMessage")
        return cls(
            as_str(obj.get("tool_call_id"), "tool_call_id"),
            as_str(obj.get("content"), "content"),
            as_str(obj.get("tool_name"), "tool_name"),
        )

    def to_json(self) -> JSON:
        """Serialise to ``{"tool_call_id", "content", "tool_name"}``."""
        return {"tool_call_id": self.tool_call_id, "content": self.content, "tool_name": self.tool_name}


@dataclass(frozen=True, slots=True)
class Chat:
    """``ConversationMessage::Chat``: a plain chat message inside structured history."""

    message: ChatMessage

    @property
    def role(self) -> str:
        return self.message.role

    @classmethod
    def from_json(cls, value: JSON) -> Chat:
        """Parse ``{"type": "Chat", "data": ChatMessage}``."""
        return cls(ChatMessage.from_json(_data_of(value, "Chat")))

    def to_json(self) -> JSON:
        """Serialise to ``{"type": "Chat", "data": {...}}``."""
        return {"type": "Chat", "data": self.message.to_json()}


@dataclass(frozen=True, slots=True)
class AssistantToolCalls:
    """``ConversationMessage::AssistantToolCalls``: assistant text plus native tool calls."""

    text: str | None
    tool_calls: tuple[ToolCall, ...]
    reasoning_content: str | None = None

    @classmethod
    def from_json(cls, value: JSON) -> AssistantToolCalls:
        """Parse ``{"type": "AssistantToolCalls", "data": {"text", "tool_calls", "reasoning_content"}}``."""
        data = as_object(_data_of(value, "AssistantToolCalls"), "data")
        calls = tuple(ToolCall.from_json(c) for c in as_list(data.get("tool_calls"), "tool_calls"))
        return cls(opt_str(data, "text"), calls, opt_str(data, "reasoning_content"))

    def to_json(self) -> JSON:
        """Serialise to the adjacently tagged serde shape."""
        return {
            "type": "AssistantToolCalls",
            "data": {
                "text": self.text,
                "tool_calls": [c.to_json() for c in self.tool_calls],
                "reasoning_content": self.reasoning_content,
            },
        }


@dataclass(frozen=True, slots=True)
class ToolResults:
    """``ConversationMessage::ToolResults``: the results of one round of tool calls."""

    results: tuple[ToolResultMessage, ...]

    @classmethod
    def from_json(cls, value: JSON) -> ToolResults:
        """Parse ``{"type": "ToolResults", "data": [ToolResultMessage, ...]}``."""
        items = as_list(_data_of(value, "ToolResults"), "data")
        return cls(tuple(ToolResultMessage.from_json(r) for r in items))

    def to_json(self) -> JSON:
        """Serialise to the adjacently tagged serde shape."""
        return {"type": "ToolResults", "data": [r.to_json() for r in self.results]}


ConversationMessage: TypeAlias = Chat | AssistantToolCalls | ToolResults


def conversation_message_from_json(value: JSON) -> ConversationMessage:
    """Parse any ``ConversationMessage`` variant by its ``type`` tag.

    Args:
        value: ``{"type": "Chat" | "AssistantToolCalls" | "ToolResults", "data": ...}``.

    Returns:
        The typed variant.

    Raises:
        TypeError: When the shape is wrong.
        ValueError: When the tag is unknown.
    """
    tag = as_str(as_object(value, "ConversationMessage").get("type"), "type")
    if tag == "Chat":
        return Chat.from_json(value)
    if tag == "AssistantToolCalls":
        return AssistantToolCalls.from_json(value)
    if tag == "ToolResults":
        return ToolResults.from_json(value)
    raise ValueError(f"unknown ConversationMessage type {tag!r}")


def chat_history_from_json(value: JSON) -> tuple[ChatMessage, ...]:
    """Parse a JSON list of ``ChatMessage`` objects."""
    return tuple(ChatMessage.from_json(m) for m in as_list(value, "history"))


def conversation_history_from_json(value: JSON) -> tuple[ConversationMessage, ...]:
    """Parse a JSON list of ``ConversationMessage`` objects."""
    return tuple(conversation_message_from_json(m) for m in as_list(value, "history"))


def is_conversation_system(message: ConversationMessage) -> bool:
    """Whether a structured message is a ``Chat`` with role ``system``."""
    return isinstance(message, Chat) and message.message.role == SYSTEM


def _data_of(value: JSON, tag: str) -> JSON:
    obj = as_object(value, tag)
    if obj.get("type") != tag:
        raise ValueError(f"expected ConversationMessage type {tag!r}, got {obj.get('type')!r}")
    return obj.get("data")
