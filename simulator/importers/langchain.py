"""LangChain message importer.

Source format: peers-and-needs.md §5 F. Two shapes, each as a JSON list (or an object with ``messages``):

* serialized ``messages_to_dict`` output ``{"type": "human"|"ai"|"system"|"tool"|"function"|"chat", "data":
  {content, tool_calls, tool_call_id, usage_metadata, id, name, status, response_metadata, ...}}``;
* "message-like" dicts ``{"role" or "type": ..., "content": ..., "tool_calls"?, "tool_call_id"?}`` with
  LangChain role names (human/ai/...) or OpenAI ones. Tool calls are LangChain ``{name, args, id}`` or OpenAI
  ``{id, function: {name, arguments}}``.

Content is a string or blocks: ``text``, ``image`` (v1 ``source_type`` base64/url, or ``base64``/``url``
keys), ``image_url``, ``reasoning``/``thinking``; ``tool_use``/``tool_call`` blocks duplicate ``tool_calls``
and are skipped.
"""

from __future__ import annotations

from simulator.importers._common import (
    BadInput,
    Document,
    compact_json,
    fill_tool_names,
    image_from_url,
    last_model,
    located,
    opt_int,
    require_str,
    usage_or_none,
)
from simulator.importers.anthropic import image_block
from simulator.jsonvalue import JSON, as_list, as_object, opt_str, type_name
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
    Usage,
)

NAME = "langchain"

_ROLES = {
    "human": Role.USER,
    "user": Role.USER,
    "ai": Role.ASSISTANT,
    "assistant": Role.ASSISTANT,
    "system": Role.SYSTEM,
    "developer": Role.SYSTEM,
    "tool": Role.TOOL,
    "function": Role.TOOL,
    "AIMessageChunk": Role.ASSISTANT,
    "HumanMessageChunk": Role.USER,
}
_SERIALIZED_TYPES = {
    "human",
    "ai",
    "system",
    "tool",
    "function",
    "chat",
    "AIMessageChunk",
    "HumanMessageChunk",
}
_DUPLICATE_BLOCKS = {"tool_use", "tool_call", "tool_call_chunk", "server_tool_call", "server_tool_result"}


def _image(block: dict[str, JSON], where: str) -> ImagePart:
    mime = opt_str(block, "mime_type")
    source_type = block.get("source_type")
    if source_type == "base64" or isinstance(block.get("base64"), str):
        data = block.get("data") if source_type == "base64" else block.get("base64")
        if not isinstance(data, str):
            raise BadInput(f"{where}: base64 image needs string data")
        return ImagePart(source="base64", data=data, media_type=mime)
    if isinstance(block.get("url"), str):
        return image_from_url(require_str(block, "url", f"{where}.url"), mime)
    if isinstance(block.get("file_id"), str) or isinstance(block.get("id"), str):
        file_id = block.get("file_id") if isinstance(block.get("file_id"), str) else block.get("id")
        return ImagePart(source="file", data=str(file_id), media_type=mime)
    source = block.get("source")
    if isinstance(source, dict):
        # Anthropic-native image block passed through unchanged.
        return image_block(block, where)
    raise BadInput(f"{where}: image block has no data, url or file id")


def _content(raw: JSON, warnings: list[str]) -> tuple[Part, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        return (TextPart(raw),) if raw else ()
    parts: list[Part] = []
    for i, item in enumerate(as_list(raw, "content")):
        where = f"content[{i}]"
        if isinstance(item, str):
            parts.append(TextPart(item))
            continue
        block = as_object(item, where)
        kind = require_str(block, "type", f"{where}.type")
        if kind == "text":
            parts.append(TextPart(require_str(block, "text", f"{where}.text")))
        elif kind == "image":
            parts.append(_image(block, where))
        elif kind == "image_url":
            image = block.get("image_url")
            url = (
                image
                if isinstance(image, str)
                else require_str(as_object(image, f"{where}.image_url"), "url", f"{where}.image_url.url")
            )
            parts.append(image_from_url(url))
        elif kind in ("reasoning", "thinking"):
            text = block.get("reasoning", block.get("thinking", ""))
            parts.append(
                ThinkingPart(
                    text if isinstance(text, str) else compact_json(text),
                    signature=opt_str(block, "signature"),
                )
            )
        elif kind in _DUPLICATE_BLOCKS:
            continue
        else:
            warnings.append(f"{where}: {kind} block not modelled (skipped)")
    return tuple(parts)


def _tool_calls(raw: JSON) -> tuple[ToolCall, ...]:
    if raw is None:
        return ()
    calls: list[ToolCall] = []
    for i, item in enumerate(as_list(raw, "tool_calls")):
        where = f"tool_calls[{i}]"
        call = as_object(item, where)
        if isinstance(call.get("function"), dict):
            function = as_object(call["function"])
            arguments = function.get("arguments")
            if not isinstance(arguments, str):
                raise BadInput(f"{where}.function.arguments must be a string, got {type_name(arguments)}")
            calls.append(
                ToolCall(
                    require_str(call, "id", f"{where}.id"),
                    require_str(function, "name", f"{where}.function.name"),
                    arguments,
                )
            )
            continue
        call_id = call.get("id")
        args = call.get("args", {})
        calls.append(
            ToolCall(
                id=call_id if isinstance(call_id, str) else f"{where}",
                name=require_str(call, "name", f"{where}.name"),
                arguments=compact_json(as_object(args, f"{where}.args")),
            )
        )
    return tuple(calls)


def _usage(raw: JSON) -> Usage | None:
    if raw is None:
        return None
    obj = as_object(raw, "usage_metadata")
    details = obj.get("input_token_details")
    cache_read = cache_write = None
    if isinstance(details, dict):
        cache_read = opt_int(details, "cache_read", "usage_metadata.input_token_details.cache_read")
        cache_write = opt_int(details, "cache_creation", "usage_metadata.input_token_details.cache_creation")
    total_in = opt_int(obj, "input_tokens", "usage_metadata.input_tokens")
    return usage_or_none(
        Usage(
            # LangChain's input_tokens includes cached tokens; the model's input_tokens does not.
            input_tokens=None if total_in is None else total_in - (cache_read or 0) - (cache_write or 0),
            output_tokens=opt_int(obj, "output_tokens", "usage_metadata.output_tokens"),
            cache_read_tokens=cache_read,
            cache_write_tokens=cache_write,
            total_tokens=opt_int(obj, "total_tokens", "usage_metadata.total_tokens"),
        )
    )


def _message(raw: JSON, index: int, warnings: list[str]) -> Message:
    rec = as_object(raw, "message")
    serialized = isinstance(rec.get("data"), dict) and rec.get("type") in _SERIALIZED_TYPES
    if serialized:
        body = as_object(rec["data"])
        kind = require_str(rec, "type", "type")
        if kind == "chat":
            kind = require_str(body, "role", "data.role")
    else:
        body = rec
        role_value = rec.get("role", rec.get("type"))
        if not isinstance(role_value, str):
            raise BadInput("role (or type) is missing")
        kind = role_value
        if "content" not in rec:
            raise BadInput("content is missing")
    role = _ROLES.get(kind)
    if role is None:
        raise BadInput(f"message type {kind!r} is not a LangChain message type")
    parts = _content(body.get("content"), warnings)
    msg_id = body.get("id")
    common_id = msg_id if isinstance(msg_id, str) else None
    source = SourceRef(record=index)
    if role is Role.ASSISTANT:
        meta = body.get("response_metadata")
        model = None
        if isinstance(meta, dict):
            name = meta.get("model_name", meta.get("model"))
            model = name if isinstance(name, str) else None
        return Message(
            role=role,
            parts=parts,
            tool_calls=_tool_calls(body.get("tool_calls")),
            id=common_id,
            usage=_usage(body.get("usage_metadata")),
            model=model,
            source=source,
            raw=raw,
        )
    if role is Role.TOOL:
        call_id = body.get("tool_call_id")
        if not isinstance(call_id, str):
            if kind != "function":
                raise BadInput("tool_call_id is missing on a tool message")
            call_id = ""
        result = ToolResult(
            call_id=call_id, name=opt_str(body, "name"), is_error=body.get("status") == "error"
        )
        return Message(role=role, parts=parts, tool_result=result, id=common_id, source=source, raw=raw)
    if body.get("tool_calls"):
        raise BadInput(f"tool_calls on a {kind} message")
    variant: MessageVariant | None = "developer_instructions" if kind == "developer" else None
    return Message(role=role, parts=parts, id=common_id, source=source, raw=raw, variant=variant)


def parse(doc: Document) -> Transcript:
    """Parse LangChain messages (serialized or message-like dicts).

    Raises:
        BadInput: at the first message that does not fit.
    """
    value = doc.value
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        value = value["messages"]
    if not doc.is_json or not isinstance(value, list):
        raise BadInput("expected a JSON list of LangChain messages")
    warnings: list[str] = []
    messages: list[Message] = []
    for index, item in enumerate(value):
        with located(index=index):
            messages.append(_message(item, index, warnings))
    messages = fill_tool_names(messages)
    model, provider = last_model(messages)
    return Transcript(
        format=NAME, messages=tuple(messages), model=model, provider=provider, warnings=tuple(warnings)
    )
