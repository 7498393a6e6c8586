"""Anthropic-style ``{role, content}`` messages as the ai-profile ``history`` module sees them.

Upstream (``bkywksj/ai-profile`` 0.1.7, ``crates/ai-profile/src/history.rs``) is generic over a
``HistoryMessage`` trait that exposes only ``role() -> &str`` and ``content() -> &serde_json::Value``.
This module is the simulator's native implementation of that trait.

``content`` is a string, a list of blocks, or any other JSON value (null, number, object), because the
crate accepts any ``serde_json::Value``. Blocks keep their JSON verbatim: the crate never interprets
them beyond "does any element have a string ``type`` equal to K", and the token estimate serialises
them whole, so dropping unknown keys would change the estimate.

Deliberate divergences: none in behaviour. Keys other than ``role``/``content`` on a message are not
kept, since nothing upstream reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulator.jsonvalue import JSON, type_name

TOOL_USE = "tool_use"
TOOL_RESULT = "tool_result"


@dataclass(frozen=True, slots=True)
class Block:
    """One element of a list content, kept as the JSON it was read from."""

    data: JSON

    @property
    def kind(self) -> str | None:
        """The block's ``type`` when it is an object with a string ``type``, else ``None``."""
        if isinstance(self.data, dict):
            kind = self.data.get("type")
            if isinstance(kind, str):
                return kind
        return None

    @classmethod
    def text(cls, text: str) -> Block:
        """A ``{"type": "text", "text": ...}`` block."""
        return cls({"type": "text", "text": text})

    @classmethod
    def tool_use(cls, tool_id: str, name: str, tool_input: JSON) -> Block:
        """A ``tool_use`` block; the id is kept for display only, pairing never reads it."""
        return cls({"type": TOOL_USE, "id": tool_id, "name": name, "input": tool_input})

    @classmethod
    def tool_result(cls, tool_use_id: str, content: JSON) -> Block:
        """A ``tool_result`` block answering ``tool_use_id`` (again never read by pairing)."""
        return cls({"type": TOOL_RESULT, "tool_use_id": tool_use_id, "content": content})


@dataclass(frozen=True, slots=True)
class OtherContent:
    """Content that is neither a string nor a list (null, boolean, number or object)."""

    value: JSON

    def __post_init__(self) -> None:
        if isinstance(self.value, str | list):
            raise TypeError("OtherContent holds only null, booleans, numbers and objects")


Content = str | tuple[Block, ...] | OtherContent


@dataclass(frozen=True, slots=True)
class Message:
    """A chat message: ``role`` compared verbatim, ``content`` as described in the module docstring."""

    role: str
    content: Content

    @classmethod
    def from_json(cls, value: JSON) -> Message:
        """Read ``{"role": str, "content": any JSON}``.

        Args:
            value: The message object.

        Returns:
            The message, with list content split into blocks.

        Raises:
            TypeError: ``value`` is not an object, or ``role`` is not a string.
            ValueError: ``content`` is missing.
        """
        if not isinstance(value, dict):
            raise TypeError(f"message must be an object, got {type_name(value)}")
        role = value.get("role")
        if not isinstance(role, str):
            raise TypeError(f"message role must be a string, got {type_name(role)}")
        if "content" not in value:
            raise ValueError("message has no content")
        return cls(role, content_from_json(value["content"]))

    def to_json(self) -> dict[str, JSON]:
        """The ``{"role", "content"}`` object this message was read from."""
        return {"role": self.role, "content": self.content_json()}

    def content_json(self) -> JSON:
        """The content as the JSON value the crate would hold (what the estimate serialises)."""
        if isinstance(self.content, str):
            return self.content
        if isinstance(self.content, OtherContent):
            return self.content.value
        return [block.data for block in self.content]

    def has_block(self, kind: str) -> bool:
        """Whether content is a list with at least one element whose string ``type`` equals ``kind``."""
        if not isinstance(self.content, tuple):
            return False
        # ``Block.kind`` spelled out in the loop (a replay asks at every call): a non-string ``type``
        # never equals ``kind``, which is a string.
        for block in self.content:
            data = block.data
            if isinstance(data, dict) and data.get("type") == kind:
                return True
        return False

    @property
    def has_tool_use(self) -> bool:
        """Upstream ``has_tool_use``."""
        return self.has_block(TOOL_USE)

    @property
    def has_tool_result(self) -> bool:
        """Upstream ``has_tool_result``."""
        return self.has_block(TOOL_RESULT)


def content_from_json(value: JSON) -> Content:
    """Split a content JSON value into the :data:`Content` union."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return tuple(Block(item) for item in value)
    return OtherContent(value)


def messages_from_json(value: JSON) -> tuple[Message, ...]:
    """Read a JSON list of messages.

    Args:
        value: A list of ``{role, content}`` objects.

    Returns:
        The messages in order.

    Raises:
        TypeError: ``value`` is not a list or an item is malformed.
        ValueError: An item has no content.
    """
    if not isinstance(value, list):
        raise TypeError(f"messages must be a list, got {type_name(value)}")
    return tuple(Message.from_json(item) for item in value)


def messages_to_json(messages: tuple[Message, ...]) -> list[JSON]:
    """The JSON list form of ``messages``."""
    return [message.to_json() for message in messages]
