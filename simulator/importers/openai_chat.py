"""OpenAI Chat Completions ``messages`` importer.

Source format: https://platform.openai.com/docs/api-reference/chat/create (see peers-and-needs.md §5 A).
Accepts the bare ``messages`` list or a request object holding one. Roles
``system``/``developer``/``user``/``assistant``/``tool`` plus the legacy ``function_call`` / ``role:
"function"`` pair; content is a string, null or a list of parts (``text``, ``refusal``, ``image_url`` with
``data:`` or https URLs). The per-message parser is reused by the SWE-agent importer, whose ``history`` has
the same shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from msgspec.structs import replace

from simulator.importers._common import (
    BadInput,
    Document,
    fill_tool_names,
    image_from_url,
    last_model,
    located,
    openai_usage,
    opt_int,
    parse_timestamp,
    require_str,
)
from simulator.jsonvalue import JSON, as_list, as_object, as_str, opt_str, type_name
from simulator.transcript import (
    Message,
    Part,
    Role,
    SourceRef,
    TextPart,
    ThinkingPart,
    ToolCall,
    ToolResult,
    Transcript,
)

NAME = "openai-chat"

_ROLES = {
    "system": Role.SYSTEM,
    "developer": Role.SYSTEM,
    "user": Role.USER,
    "assistant": Role.ASSISTANT,
    "tool": Role.TOOL,
    "function": Role.TOOL,
}


@dataclass(slots=True)
class ChatState:
    """Pairing state for legacy ``function_call`` messages, which carry no ids."""

    pending_legacy: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def content_parts(raw: JSON, what: str, warnings: list[str]) -> tuple[Part, ...]:
    """Chat Completions content (string, null or parts) as model parts."""
    if raw is None:
        return ()
    if isinstance(raw, str):
        return (TextPart(raw),) if raw else ()
    parts: list[Part] = []
    for i, item in enumerate(as_list(raw, what)):
        where = f"{what}[{i}]"
        block = as_object(item, where)
        kind = require_str(block, "type", f"{where}.type")
        if kind in ("text", "input_text", "output_text"):
            parts.append(TextPart(require_str(block, "text", f"{where}.text")))
        elif kind == "refusal":
            parts.append(TextPart(require_str(block, "refusal", f"{where}.refusal")))
        elif kind == "image_url":
            image = block.get("image_url")
            url = (
                image
                if isinstance(image, str)
                else require_str(as_object(image, f"{where}.image_url"), "url", f"{where}.image_url.url")
            )
            parts.append(image_from_url(url))
        elif kind in ("input_audio", "file"):
            warnings.append(f"{where}: {kind} part not modelled (skipped)")
        else:
            raise BadInput(f"{where}.type {kind!r} is not a Chat Completions content part")
    return tuple(parts)


def _tool_calls(raw: JSON, what: str) -> tuple[ToolCall, ...]:
    calls: list[ToolCall] = []
    for i, item in enumerate(as_list(raw, what)):
        where = f"{what}[{i}]"
        call = as_object(item, where)
        function = as_object(call.get("function"), f"{where}.function")
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            raise BadInput(f"{where}.function.arguments must be a string, got {type_name(arguments)}")
        calls.append(
            ToolCall(
                id=require_str(call, "id", f"{where}.id"),
                name=require_str(function, "name", f"{where}.function.name"),
                arguments=arguments,
            )
        )
    return tuple(calls)


def parse_chat_message(
    raw: JSON,
    index: int,
    state: ChatState,
    *,
    source: SourceRef | None = None,
    tool_call_ids_key: str | None = None,
) -> list[Message]:
    """One Chat Completions message as model messages (usually one; several for multi-id tool messages).

    Args:
        raw: the message object.
        index: its position in the list (for legacy call ids and the default source).
        state: pairing state shared across one transcript.
        source: where the message came from; defaults to record ``index``.
        tool_call_ids_key: a key holding a *list* of call ids on tool messages (SWE-agent's
            ``tool_call_ids``), accepted in addition to ``tool_call_id``.

    Raises:
        BadInput: naming the offending field.
    """
    msg = as_object(raw, "message")
    role_text = require_str(msg, "role", "role")
    role = _ROLES.get(role_text)
    if role is None:
        raise BadInput(f"role {role_text!r} is not a Chat Completions role")
    where = source or SourceRef(record=index)
    parts = content_parts(msg.get("content"), "content", state.warnings)
    ex = _extras(msg)
    if role is Role.ASSISTANT:
        reasoning = msg.get("reasoning_content")
        if isinstance(reasoning, str) and reasoning:
            parts = (ThinkingPart(reasoning), *parts)
        refusal = msg.get("refusal")
        if isinstance(refusal, str) and refusal and not parts:
            parts = (TextPart(refusal),)
        calls = _tool_calls(msg["tool_calls"], "tool_calls") if msg.get("tool_calls") is not None else ()
        legacy = msg.get("function_call")
        if legacy is not None:
            fc = as_object(legacy, "function_call")
            name = require_str(fc, "name", "function_call.name")
            arguments = fc.get("arguments", "")
            if not isinstance(arguments, str):
                raise BadInput(f"function_call.arguments must be a string, got {type_name(arguments)}")
            call_id = f"function_call@{index}"
            state.pending_legacy.setdefault(name, []).append(call_id)
            calls = (*calls, ToolCall(id=call_id, name=name, arguments=arguments))
        return [
            Message(
                role=role,
                parts=parts,
                tool_calls=calls,
                source=where,
                raw=raw,
                id=ex.id,
                timestamp_ms=ex.timestamp_ms,
            )
        ]
    if role is Role.TOOL:
        if role_text == "function":
            name = require_str(msg, "name", "name")
            pending = state.pending_legacy.get(name)
            call_id = pending.pop(0) if pending else f"function@{index}"
            result = ToolResult(call_id=call_id, name=name)
            return [
                Message(
                    role=role,
                    parts=parts,
                    tool_result=result,
                    source=where,
                    raw=raw,
                    id=ex.id,
                    timestamp_ms=ex.timestamp_ms,
                )
            ]
        ids: list[str] = []
        if "tool_call_id" in msg:
            ids.append(require_str(msg, "tool_call_id", "tool_call_id"))
        elif tool_call_ids_key is not None and tool_call_ids_key in msg:
            listed = as_list(msg[tool_call_ids_key], tool_call_ids_key)
            ids.extend(as_str(v, f"{tool_call_ids_key}[{i}]") for i, v in enumerate(listed))
            if not ids:
                raise BadInput(f"{tool_call_ids_key} must not be empty")
        else:
            raise BadInput("tool_call_id is missing on a tool message")
        result_name = opt_str(msg, "name")
        return [
            Message(
                role=role,
                parts=parts,
                tool_result=ToolResult(call_id=i, name=result_name),
                source=where,
                raw=raw,
                id=ex.id,
                timestamp_ms=ex.timestamp_ms,
            )
            for i in ids
        ]
    if "tool_calls" in msg:
        raise BadInput(f"tool_calls on a {role_text} message")
    return [
        Message(
            role=role,
            parts=parts,
            source=where,
            raw=raw,
            id=ex.id,
            timestamp_ms=ex.timestamp_ms,
            variant="developer_instructions" if role_text == "developer" else None,
        )
    ]


@dataclass(frozen=True, slots=True)
class _Extras:
    """Fields some exporters add next to the API shape."""

    id: str | None
    timestamp_ms: int | None


def _extras(msg: Mapping[str, JSON]) -> _Extras:
    raw_id = msg.get("id")
    if "timestamp" in msg:
        stamp = parse_timestamp(msg.get("timestamp"))
    else:
        stamp = opt_int(msg, "created_at")
    return _Extras(id=raw_id if isinstance(raw_id, str) else None, timestamp_ms=stamp)


def messages_of(doc: Document) -> tuple[list[JSON], dict[str, JSON]]:
    """The message list and the enclosing request object (empty for a bare list)."""
    value = doc.value
    if isinstance(value, list):
        return value, {}
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        return as_list(value["messages"]), value
    raise BadInput("expected a list of messages or an object with a 'messages' list")


def parse(doc: Document) -> Transcript:
    """Parse a Chat Completions transcript.

    Raises:
        BadInput: at the first message that does not fit the format.
    """
    if not doc.is_json:
        raise BadInput("expected one JSON document, not JSON lines")
    items, request = messages_of(doc)
    state = ChatState()
    messages: list[Message] = []
    for index, item in enumerate(items):
        with located(index=index):
            produced = parse_chat_message(item, index, state)
            if isinstance(item, dict) and item.get("usage") is not None:
                usage = openai_usage(item["usage"])
                model_name = opt_str(item, "model")
                produced = [replace(m, usage=usage, model=model_name or m.model) for m in produced]
            messages.extend(produced)
    messages = fill_tool_names(messages)
    model, provider = last_model(messages)
    request_model = request.get("model")
    return Transcript(
        format=NAME,
        messages=tuple(messages),
        model=request_model if isinstance(request_model, str) else model,
        provider=provider,
        warnings=tuple(state.warnings),
    )
