"""ZeroClaw provider-facing ``Vec<ChatMessage>`` importer.

Source format: zeroclaw.md §1 (and §0 for the vector shape): a list of ``{"role", "content"}`` with exactly
those two fields. Native tool calls live inside ``content`` as JSON text: an assistant message ``{"content":
text|null, "tool_calls": [{"id", "name", "arguments"}]}`` and a tool message ``{"tool_call_id", "content"}``.
Prompt-mode tool output is a user message starting with ``[Tool results]`` (kept as user text, marked
``prompt_tool_results``). ``[IMAGE:<ref>]`` markers in text become image parts with source ``marker``,
positioned between the surrounding text.
"""

from __future__ import annotations

import json
import re

from simulator.importers._common import BadInput, Document, located, require_str
from simulator.jsonvalue import JSON, as_list, as_object, as_str, type_name
from simulator.transcript import (
    ImagePart,
    Message,
    MessageVariant,
    Part,
    Role,
    SourceRef,
    TextPart,
    ThinkingPart,
    ToolCall,
    ToolResult,
    Transcript,
)

NAME = "zeroclaw-chat"

PROMPT_TOOL_RESULTS_PREFIX = "[Tool results]"
IMAGE_MARKER = re.compile(r"\[IMAGE:([^\]]*)\]")
_ROLES = {"system": Role.SYSTEM, "user": Role.USER, "assistant": Role.ASSISTANT, "tool": Role.TOOL}


def split_markers(text: str) -> tuple[Part, ...]:
    """Text with ``[IMAGE:...]`` markers as alternating text and image parts (empty text dropped)."""
    parts: list[Part] = []
    pos = 0
    for match in IMAGE_MARKER.finditer(text):
        if match.start() > pos:
            parts.append(TextPart(text[pos : match.start()]))
        parts.append(ImagePart(source="marker", data=match.group(1)))
        pos = match.end()
    if pos < len(text):
        parts.append(TextPart(text[pos:]))
    return tuple(parts)


def text_or_empty(text: str) -> tuple[Part, ...]:
    """Like :func:`split_markers`, but an explicit empty string stays as one empty text part.

    ZeroClaw distinguishes ``"content": ""`` from ``null`` in its tool-call JSON; keeping the empty part lets
    the converter write back exactly what it read.
    """
    return split_markers(text) if text else (TextPart(""),)


def _json_object(text: str) -> dict[str, JSON] | None:
    if not text.startswith("{"):
        return None
    try:
        value: JSON = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def parse_tool_calls(raw: JSON, what: str) -> tuple[ToolCall, ...]:
    calls: list[ToolCall] = []
    for i, item in enumerate(as_list(raw, what)):
        where = f"{what}[{i}]"
        call = as_object(item, where)
        arguments = call.get("arguments")
        if not isinstance(arguments, str):
            raise BadInput(f"{where}.arguments must be a string, got {type_name(arguments)}")
        calls.append(
            ToolCall(
                id=require_str(call, "id", f"{where}.id"),
                name=require_str(call, "name", f"{where}.name"),
                arguments=arguments,
            )
        )
    return tuple(calls)


def chat_message(raw: JSON, source: SourceRef) -> Message:
    """One ChatMessage as a model message.

    Raises:
        BadInput: when the record is not exactly ``{role, content}`` with string values.
    """
    msg = as_object(raw, "message")
    extra = sorted(set(msg) - {"role", "content"})
    if extra:
        raise BadInput(f"unexpected field {extra[0]!r} (a ChatMessage has only role and content)")
    role_text = require_str(msg, "role", "role")
    content = require_str(msg, "content", "content")
    role = _ROLES.get(role_text)
    if role is None:
        raise BadInput(f"role {role_text!r} is not a ZeroClaw chat role")
    if role is Role.ASSISTANT:
        envelope = _json_object(content)
        if envelope is not None and isinstance(envelope.get("tool_calls"), list):
            text = envelope.get("content")
            parts = () if text is None else text_or_empty(as_str(text, "content.content"))
            reasoning = envelope.get("reasoning_content")
            if isinstance(reasoning, str):
                parts = (ThinkingPart(reasoning), *parts)
            calls = parse_tool_calls(envelope["tool_calls"], "content.tool_calls")
            return Message(role=role, parts=parts, tool_calls=calls, source=source, raw=raw)
    if role is Role.TOOL:
        envelope = _json_object(content)
        if envelope is not None and isinstance(envelope.get("tool_call_id"), str):
            inner = envelope.get("content")
            text = inner if isinstance(inner, str) else ("" if inner is None else json.dumps(inner))
            result = ToolResult(call_id=as_str(envelope["tool_call_id"]), name=None)
            return Message(role=role, parts=split_markers(text), tool_result=result, source=source, raw=raw)
        # A tool message ZeroClaw could not tie to a call: its orphan sweep treats it as such.
        return Message(
            role=role, parts=split_markers(content), tool_result=ToolResult("", None), source=source, raw=raw
        )
    variant: MessageVariant | None = (
        "prompt_tool_results"
        if role is Role.USER and content.startswith(PROMPT_TOOL_RESULTS_PREFIX)
        else None
    )
    return Message(role=role, parts=split_markers(content), source=source, raw=raw, variant=variant)


def parse(doc: Document) -> Transcript:
    """Parse a ZeroClaw ChatMessage list.

    Raises:
        BadInput: at the first message that does not fit.
    """
    if not isinstance(doc.value, list):
        raise BadInput("expected a JSON list of {role, content} messages")
    messages: list[Message] = []
    for index, item in enumerate(doc.value):
        with located(index=index):
            messages.append(chat_message(item, SourceRef(record=index)))
    return Transcript(format=NAME, messages=tuple(messages))
