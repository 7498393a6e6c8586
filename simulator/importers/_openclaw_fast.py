"""The common shapes of an OpenClaw session file, read without the general path's checks and place names.

A session file is tens of thousands of entries of a handful of shapes; the general reader
(:mod:`simulator.importers.openclaw`) narrows every field through helpers that build the place an error
would name. The functions here read only what they recognise at a glance (exact types, known keys) and
return ``None`` as soon as anything is unusual -- a missing or mistyped field, an unknown block or role, a
timestamp in another form -- so the general reader takes that entry (or file) from the start and raises
or warns exactly as before. They never raise for the input's sake and never decide anything differently:
whatever they return is what the general reader returns for the same entry (tests compare the two on
fixtures, samples, synthetic sessions and odd lines).
"""

from __future__ import annotations

from typing import cast

import msgspec

from simulator.importers._common import compact_json_tree, iso_ms
from simulator.jsonvalue import JSON
from simulator.transcript import (
    ImagePart,
    Message,
    Part,
    Role,
    SourceRef,
    TextPart,
    ThinkingPart,
    ToolCall,
    ToolResult,
    Usage,
)


class Entry(msgspec.Struct, frozen=True, gc=False):
    """One session entry: its line, id, parent id, type and record."""

    line: int
    id: str
    parent: str | None
    kind: str
    record: dict[str, JSON]


ENTRY_KINDS: frozenset[str] = frozenset(
    {
        "message",
        "custom",
        "custom_message",
        "compaction",
        "branch_summary",
        "model_change",
        "thinking_level_change",
        "label",
        "session_info",
    }
)
"""The entry types a v3 file may hold after its header (the general reader refuses any other)."""

_USER, _ASSISTANT, _TOOL = Role.USER, Role.ASSISTANT, Role.TOOL


def v3_entries(records: tuple[tuple[int, JSON], ...]) -> tuple[dict[str, JSON], list[Entry]] | None:
    """Header and entries of a file that starts with a version 3 header and whose every later line is an
    entry with a string id and a string or null parent id; ``None`` for any other file.

    Such a file needs no migration and gets no warning, so this is all the general reader does for it.
    """
    if not records:
        return None
    header = records[0][1]
    if type(header) is not dict or header.get("type") != "session":
        return None
    version = header.get("version")
    if type(version) is not int or version != 3:
        return None
    entries: list[Entry] = []
    append = entries.append
    kinds = ENTRY_KINDS
    for number, rec in records[1:]:
        if type(rec) is not dict:
            return None
        kind = rec.get("type")
        entry_id = rec.get("id")
        parent = rec.get("parentId")
        if (
            type(kind) is not str
            or kind not in kinds
            or type(entry_id) is not str
            or not (parent is None or type(parent) is str)
        ):
            return None
        append(Entry(number, entry_id, parent, kind, rec))
    return header, entries


def plain_stamp(value: JSON) -> bool:
    """Whether ``parse_timestamp`` takes the entry timestamp ``value`` without a second look (and so
    without an error)."""
    return value is None or type(value) is int or (type(value) is str and iso_ms(value) is not None)


def message_entry(rec: dict[str, JSON], entry_id: str, line: int) -> Message | None:
    """The model message of a ``message`` entry of a common shape (a user, assistant or tool result
    message with text, thinking, image and tool call blocks), or ``None``."""
    stamp = rec.get("timestamp")
    if (
        stamp is not None
        and type(stamp) is not int
        and (type(stamp) is not str or (stamp := iso_ms(stamp)) is None)
    ):
        return None
    msg = rec.get("message")
    if type(msg) is not dict:
        return None
    own = msg.get("timestamp")
    if own is None:
        own = stamp
    elif type(own) is not int and (type(own) is not str or (own := iso_ms(own)) is None):
        return None
    role = msg.get("role")
    if role == "assistant":
        return _assistant(msg, entry_id, line, own, stamp)
    blocks = _blocks(msg.get("content"), False)
    if blocks is None:
        return None
    if role == "user":
        return Message(
            _USER, blocks[0], id=entry_id, timestamp_ms=own, source=SourceRef(line), raw=msg, written_ms=stamp
        )
    if role == "toolResult":
        call_id = msg.get("toolCallId")
        name = msg.get("toolName")
        is_error = msg.get("isError")
        if (
            type(call_id) is not str
            or not (name is None or type(name) is str)
            or not (is_error is None or type(is_error) is bool)
        ):
            return None
        result = ToolResult(call_id, name, is_error is True)
        return Message(
            _TOOL,
            blocks[0],
            tool_result=result,
            id=entry_id,
            timestamp_ms=own,
            source=SourceRef(line),
            raw=msg,
            written_ms=stamp,
        )
    return None


def _assistant(
    msg: dict[str, JSON], entry_id: str, line: int, own: int | None, stamp: int | None
) -> Message | None:
    blocks = _blocks(msg.get("content"), True)
    if blocks is None:
        return None
    stop_reason = msg.get("stopReason")
    model = msg.get("model")
    provider = msg.get("provider")
    if (
        not (stop_reason is None or type(stop_reason) is str)
        or not (model is None or type(model) is str)
        or not (provider is None or type(provider) is str)
    ):
        return None
    error: str | None = None
    if stop_reason == "error":
        message = msg.get("errorMessage")
        if not (message is None or type(message) is str):
            return None
        error = message or "error"
    usage: Usage | None = None
    raw_usage = msg.get("usage")
    if raw_usage is not None:
        if type(raw_usage) is not dict:
            return None
        counts = (
            raw_usage.get("input"),
            raw_usage.get("output"),
            raw_usage.get("cacheRead"),
            raw_usage.get("cacheWrite"),
            raw_usage.get("totalTokens"),
        )
        for count in counts:
            if count is not None and type(count) is not int:
                return None
        if counts != (None, None, None, None, None):
            usage = Usage(*cast("tuple[int | None, ...]", counts))
    return Message(
        _ASSISTANT,
        blocks[0],
        blocks[1],
        id=entry_id,
        timestamp_ms=own,
        usage=usage,
        model=model,
        provider=provider,
        source=SourceRef(line),
        raw=msg,
        stop_reason=stop_reason,
        error=error,
        written_ms=stamp,
    )


def _blocks(raw: JSON, assistant: bool) -> tuple[tuple[Part, ...], tuple[ToolCall, ...]] | None:
    """Parts and tool calls of a message's ``content``, as ``openclaw._blocks`` reads them; ``None`` for
    anything it would refuse or that is not common."""
    if type(raw) is str:
        return ((TextPart(raw),) if raw else ()), ()
    if type(raw) is not list:
        return None
    if len(raw) == 1:  # most often one text block
        item = raw[0]
        if type(item) is dict and item.get("type") == "text" and type(text := item.get("text")) is str:
            return (TextPart(text),), ()
    parts: list[Part] = []
    calls: list[ToolCall] = []
    for item in raw:
        if type(item) is not dict:
            return None
        kind = item.get("type")
        if kind == "text":
            text = item.get("text")
            if type(text) is not str:
                return None
            parts.append(TextPart(text))
        elif kind == "toolCall" and assistant:
            call_id = item.get("id")
            name = item.get("name")
            arguments = item.get("arguments")
            if type(call_id) is not str or type(name) is not str:
                return None
            if arguments is None:
                arguments = {}
            elif type(arguments) is not dict:
                return None
            calls.append(ToolCall(call_id, name, compact_json_tree(arguments)))  # decoded: no cycle
        elif kind == "thinking" and assistant:
            thinking = item.get("thinking")
            signature = item.get("thinkingSignature")
            if type(thinking) is not str or not (signature is None or type(signature) is str):
                return None
            parts.append(ThinkingPart(thinking, signature, item.get("redacted") is True))
        elif kind == "image":
            data = item.get("data")
            mime = item.get("mimeType")
            if type(data) is not str or not (mime is None or type(mime) is str):
                return None
            parts.append(ImagePart("base64", data, mime))
        else:
            return None
    return tuple(parts), tuple(calls)
