"""The runtime-neutral transcript model every importer produces and every runtime converter reads.

One :class:`Message` per provider-visible message, in conversation order. Tool results are always
their own ``TOOL`` message (one per result), even where the source format packs several into one
user message (Anthropic, Claude Code); converters regroup them for runtimes that expect that shape.
Each message keeps the raw record it came from and where it came from (line, record index) so the
dashboard can point at the source and errors can name a place.

The per-message types are frozen ``msgspec`` structs rather than frozen dataclasses: a 100,000-message
session builds several hundred thousand of them, and a struct is built about 7× faster. They are left
out of the cyclic collector (``gc=False``): they hold only strings, numbers, tuples of such structs and
the decoded JSON record, so they can never be part of a reference cycle, and a collection no longer
walks them. Copy one with a change with ``msgspec.structs.replace`` (``dataclasses.replace`` does not apply).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

import msgspec

from simulator.jsonvalue import JSON


class Role(StrEnum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class TextPart(msgspec.Struct, frozen=True, gc=False):
    text: str
    kind: Literal["text"] = "text"


ImageSource = Literal["base64", "url", "marker", "file"]


class ImagePart(msgspec.Struct, frozen=True, gc=False):
    """An image as the source held it: inline base64 data, a URL, a ``[IMAGE:...]`` marker or a file id."""

    source: ImageSource
    data: str
    media_type: str | None = None
    kind: Literal["image"] = "image"


class ThinkingPart(msgspec.Struct, frozen=True, gc=False):
    text: str
    signature: str | None = None
    redacted: bool = False
    kind: Literal["thinking"] = "thinking"


Part = TextPart | ImagePart | ThinkingPart


class ToolCall(msgspec.Struct, frozen=True, gc=False):
    """A tool call issued by an assistant. ``arguments`` is the JSON text as the provider sent it."""

    id: str
    name: str
    arguments: str


class ToolResult(msgspec.Struct, frozen=True, gc=False):
    call_id: str
    name: str | None
    is_error: bool = False


class Usage(msgspec.Struct, frozen=True, gc=False):
    """Provider-reported token accounting attached to an assistant message (its request's input)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    total_tokens: int | None = None

    @property
    def prompt_tokens(self) -> int | None:
        """All input the provider counted for the request, cached or not."""
        if self.input_tokens is None:
            return None
        return self.input_tokens + (self.cache_read_tokens or 0) + (self.cache_write_tokens or 0)


class SourceRef(msgspec.Struct, frozen=True, gc=False):
    """Where a message came from: 1-based line for line formats, 0-based record index otherwise."""

    line: int | None = None
    record: int | None = None


MessageVariant = Literal[
    "compaction_summary", "branch_summary", "custom_message", "prompt_tool_results", "developer_instructions"
]
"""What a message stands for when it is not an ordinary conversational message.

``compaction_summary`` / ``branch_summary`` / ``custom_message``: OpenClaw (pi) entries that reach the model
as user text. ``prompt_tool_results``: a ZeroClaw prompt-mode ``[Tool results]`` user message, which carries
tool output and therefore does not start a turn. ``developer_instructions``: an OpenAI ``developer`` message
(Codex writes them between turns: permissions, collaboration mode); its role is ``SYSTEM`` because every
reproduced runtime receives instructions only as system text.
"""


class Message(msgspec.Struct, frozen=True, gc=False):
    role: Role
    parts: tuple[Part, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()
    tool_result: ToolResult | None = None
    id: str | None = None
    timestamp_ms: int | None = None
    usage: Usage | None = None
    model: str | None = None
    provider: str | None = None
    source: SourceRef = msgspec.field(default_factory=SourceRef)
    raw: JSON = None
    variant: MessageVariant | None = None
    stop_reason: str | None = None
    error: str | None = None
    """Set on an assistant message that records a failed provider call (pi ``stopReason: "error"``, Claude
    Code ``isApiErrorMessage``): the provider's error text, or the stop reason when the entry has none."""
    written_ms: int | None = None
    """When the file's entry holding the message was written (OpenClaw entries' own ISO ``timestamp``),
    when the format records it apart from the message's time. For an OpenClaw reply this is after the
    reply finished, while ``timestamp_ms`` is when its request started."""

    @property
    def text(self) -> str:
        """Concatenated text parts (what most estimators read as the message content)."""
        return "\n".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def images(self) -> tuple[ImagePart, ...]:
        return tuple(p for p in self.parts if isinstance(p, ImagePart))


class CacheTtlMarker(msgspec.Struct, frozen=True, gc=False):
    """OpenClaw's ``openclaw.cache-ttl`` custom entry: when a cache-touching call last happened.

    ``after_message`` is the number of transcript messages that precede the marker on the active
    branch, so a replay knows which call it belongs to.

    A struct like the messages: an OpenClaw session records one per attempt, and a frozen slotted
    dataclass unpickles through a Python ``__setstate__`` (nearly half of reading back a
    100,000-message session's stored form went to its 50,000 markers).
    """

    timestamp_ms: int
    provider: str | None
    model_id: str | None
    after_message: int


@dataclass(frozen=True, slots=True)
class SkippedLine:
    """A line of a JSON-lines file that was left out because it is not a JSON object (1-based line)."""

    line: int
    reason: str


@dataclass(frozen=True, slots=True)
class Transcript:
    format: str
    messages: tuple[Message, ...]
    session_id: str | None = None
    title: str | None = None
    model: str | None = None
    provider: str | None = None
    cache_ttl_markers: tuple[CacheTtlMarker, ...] = ()
    warnings: tuple[str, ...] = ()
    skipped_lines: tuple[SkippedLine, ...] = ()
    """Malformed lines of a JSON-lines file, left out the way pi's session loader skips them."""
