"""Anthropic Messages importer.

Source format: https://docs.anthropic.com/en/api/messages (peers-and-needs.md §5 C). A request object with an
optional top-level ``system`` (string or text blocks) and ``messages``, or a bare ``messages`` list. Blocks:
``text``, ``image`` (base64 / url / file source), ``tool_use``, ``tool_result`` (content string or blocks,
``is_error``), ``thinking``, ``redacted_thinking``. Each ``tool_result`` block becomes its own TOOL message,
in block order; the other blocks of a user message form USER messages around them. The block parser is shared
with the Claude Code importer.
"""

from __future__ import annotations

from msgspec.structs import replace

from simulator.importers._common import (
    BadInput,
    Document,
    anthropic_usage,
    compact_json,
    fill_tool_names,
    image_from_url,
    last_model,
    located,
    require_str,
)
from simulator.jsonvalue import JSON, as_bool, as_list, as_object, opt_str
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
    Transcript,
)

NAME = "anthropic"

# Blocks the API accepts that the model has no place for; they are reported, not fatal.
_SKIPPED = {
    "document",
    "search_result",
    "server_tool_use",
    "web_search_tool_result",
    "container_upload",
    "compaction",
}


def image_block(block: dict[str, JSON], where: str) -> ImagePart:
    """An Anthropic ``image`` block (base64, url or file source) as an image part."""
    source = as_object(block.get("source"), f"{where}.source")
    kind = require_str(source, "type", f"{where}.source.type")
    if kind == "base64":
        return ImagePart(
            source="base64",
            data=require_str(source, "data", f"{where}.source.data"),
            media_type=opt_str(source, "media_type"),
        )
    if kind == "url":
        return image_from_url(require_str(source, "url", f"{where}.source.url"))
    if kind == "file":
        return ImagePart(source="file", data=require_str(source, "file_id", f"{where}.source.file_id"))
    raise BadInput(f"{where}.source.type {kind!r} is not an image source")


def _result_parts(raw: JSON, where: str) -> tuple[Part, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        return (TextPart(raw),) if raw else ()
    parts: list[Part] = []
    for i, item in enumerate(as_list(raw, where)):
        block = as_object(item, f"{where}[{i}]")
        kind = require_str(block, "type", f"{where}[{i}].type")
        if kind == "text":
            parts.append(TextPart(require_str(block, "text", f"{where}[{i}].text")))
        elif kind == "image":
            parts.append(image_block(block, f"{where}[{i}]"))
        else:
            raise BadInput(f"{where}[{i}].type {kind!r} is not allowed in tool_result content")
    return tuple(parts)


def expand_message(raw: JSON, source: SourceRef, warnings: list[str]) -> list[Message]:
    """One Anthropic message as model messages (tool results split out, in block order).

    Raises:
        BadInput: naming the offending block field.
    """
    msg = as_object(raw, "message")
    role_text = require_str(msg, "role", "role")
    if role_text not in ("user", "assistant"):
        raise BadInput(f"role {role_text!r} is not an Anthropic message role (user or assistant)")
    role = Role.USER if role_text == "user" else Role.ASSISTANT
    content = msg.get("content")
    if isinstance(content, str):
        return [Message(role=role, parts=(TextPart(content),) if content else (), source=source, raw=raw)]
    blocks = as_list(content, "content")
    out: list[Message] = []
    parts: list[Part] = []
    calls: list[ToolCall] = []

    def flush() -> None:
        if parts or calls:
            out.append(
                Message(role=role, parts=tuple(parts), tool_calls=tuple(calls), source=source, raw=raw)
            )
            parts.clear()
            calls.clear()

    for i, item in enumerate(blocks):
        where = f"content[{i}]"
        block = as_object(item, where)
        kind = require_str(block, "type", f"{where}.type")
        if kind == "text":
            parts.append(TextPart(require_str(block, "text", f"{where}.text")))
        elif kind == "image":
            parts.append(image_block(block, where))
        elif kind == "thinking":
            parts.append(
                ThinkingPart(
                    require_str(block, "thinking", f"{where}.thinking"), signature=opt_str(block, "signature")
                )
            )
        elif kind == "redacted_thinking":
            parts.append(
                ThinkingPart("", signature=require_str(block, "data", f"{where}.data"), redacted=True)
            )
        elif kind == "tool_use":
            if role is not Role.ASSISTANT:
                raise BadInput(f"{where}: tool_use block in a user message")
            calls.append(
                ToolCall(
                    id=require_str(block, "id", f"{where}.id"),
                    name=require_str(block, "name", f"{where}.name"),
                    arguments=compact_json(as_object(block.get("input"), f"{where}.input")),
                )
            )
        elif kind == "tool_result":
            if role is not Role.USER:
                raise BadInput(f"{where}: tool_result block in an assistant message")
            flush()
            is_error = block.get("is_error")
            result = ToolResult(
                call_id=require_str(block, "tool_use_id", f"{where}.tool_use_id"),
                name=None,
                is_error=as_bool(is_error, f"{where}.is_error") if is_error is not None else False,
            )
            parts_of = _result_parts(block.get("content"), f"{where}.content")
            out.append(Message(role=Role.TOOL, parts=parts_of, tool_result=result, source=source, raw=item))
        elif kind in _SKIPPED:
            warnings.append(f"{where}: {kind} block not modelled (skipped)")
        else:
            raise BadInput(f"{where}.type {kind!r} is not an Anthropic content block")
    flush()
    if not out:
        out.append(Message(role=role, source=source, raw=raw))
    return out


def system_parts(raw: JSON) -> tuple[Part, ...]:
    """The top-level ``system`` prompt (string or text blocks) as text parts."""
    if isinstance(raw, str):
        return (TextPart(raw),) if raw else ()
    parts: list[Part] = []
    for i, item in enumerate(as_list(raw, "system")):
        block = as_object(item, f"system[{i}]")
        parts.append(TextPart(require_str(block, "text", f"system[{i}].text")))
    return tuple(parts)


def parse(doc: Document) -> Transcript:
    """Parse an Anthropic Messages request (or bare message list).

    Raises:
        BadInput: at the first message that does not fit.
    """
    if not doc.is_json:
        raise BadInput("expected one JSON document, not JSON lines")
    value = doc.value
    request: dict[str, JSON] = {}
    if isinstance(value, list):
        items = value
    elif isinstance(value, dict) and isinstance(value.get("messages"), list):
        request = value
        items = as_list(value["messages"])
    else:
        raise BadInput("expected a list of messages or an object with a 'messages' list")
    warnings: list[str] = []
    messages: list[Message] = []
    if request.get("system") is not None:
        with located():
            messages.append(
                Message(
                    role=Role.SYSTEM,
                    parts=system_parts(request["system"]),
                    source=SourceRef(),
                    raw=request["system"],
                )
            )
    for index, item in enumerate(items):
        with located(index=index):
            expanded = expand_message(item, SourceRef(record=index), warnings)
            msg = as_object(item)
            if msg.get("usage") is not None or isinstance(msg.get("model"), str):
                usage = anthropic_usage(msg.get("usage"))
                model = opt_str(msg, "model")
                expanded = [
                    replace(m, usage=usage, model=model, stop_reason=opt_str(msg, "stop_reason"))
                    if m.role is Role.ASSISTANT
                    else m
                    for m in expanded
                ]
            messages.extend(expanded)
    messages = fill_tool_names(messages)
    model, provider = last_model(messages)
    request_model = request.get("model")
    return Transcript(
        format=NAME,
        messages=tuple(messages),
        model=request_model if isinstance(request_model, str) else model,
        provider="anthropic",
        warnings=tuple(warnings),
    )
