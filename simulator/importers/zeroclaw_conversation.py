"""ZeroClaw structured ``Vec<ConversationMessage>`` importer.

Source format: zeroclaw.md §0/§1 and peers-and-needs.md §5 E. Serde adjacently tagged records: ``{"type":
"Chat", "data": {role, content}}``, ``{"type": "AssistantToolCalls", "data": {text, tool_calls: [{id, name,
arguments}], reasoning_content}}`` and ``{"type": "ToolResults", "data": [{tool_call_id, content,
tool_name?}]}``; each tool result becomes its own TOOL message with the record's index as its source.
"""

from __future__ import annotations

from simulator.importers._common import BadInput, Document, located, require_str
from simulator.importers.zeroclaw_chat import (
    PROMPT_TOOL_RESULTS_PREFIX,
    parse_tool_calls,
    split_markers,
    text_or_empty,
)
from simulator.jsonvalue import JSON, as_list, as_object, as_str, opt_str
from simulator.transcript import (
    Message,
    MessageVariant,
    Part,
    Role,
    SourceRef,
    ThinkingPart,
    ToolResult,
    Transcript,
)

NAME = "zeroclaw-conversation"

_CHAT_ROLES = {"system": Role.SYSTEM, "user": Role.USER, "assistant": Role.ASSISTANT, "tool": Role.TOOL}


def _record(raw: JSON, source: SourceRef) -> list[Message]:
    rec = as_object(raw, "record")
    kind = require_str(rec, "type", "type")
    if "data" not in rec:
        raise BadInput("data is missing")
    data = rec["data"]
    if kind == "Chat":
        chat = as_object(data, "data")
        role_text = require_str(chat, "role", "data.role")
        role = _CHAT_ROLES.get(role_text)
        if role is None:
            raise BadInput(f"data.role {role_text!r} is not a ZeroClaw chat role")
        content = require_str(chat, "content", "data.content")
        variant: MessageVariant | None = (
            "prompt_tool_results"
            if role is Role.USER and content.startswith(PROMPT_TOOL_RESULTS_PREFIX)
            else None
        )
        result = ToolResult("", None) if role is Role.TOOL else None
        return [
            Message(
                role=role,
                parts=split_markers(content),
                tool_result=result,
                source=source,
                raw=raw,
                variant=variant,
            )
        ]
    if kind == "AssistantToolCalls":
        body = as_object(data, "data")
        text = body.get("text")
        parts: tuple[Part, ...] = () if text is None else text_or_empty(as_str(text, "data.text"))
        reasoning = body.get("reasoning_content")
        if reasoning is not None:
            parts = (ThinkingPart(as_str(reasoning, "data.reasoning_content")), *parts)
        calls = parse_tool_calls(body.get("tool_calls"), "data.tool_calls")
        return [Message(role=Role.ASSISTANT, parts=parts, tool_calls=calls, source=source, raw=raw)]
    if kind == "ToolResults":
        out: list[Message] = []
        for i, item in enumerate(as_list(data, "data")):
            where = f"data[{i}]"
            res = as_object(item, where)
            result = ToolResult(
                call_id=require_str(res, "tool_call_id", f"{where}.tool_call_id"),
                name=opt_str(res, "tool_name"),
            )
            content = require_str(res, "content", f"{where}.content")
            out.append(
                Message(
                    role=Role.TOOL, parts=split_markers(content), tool_result=result, source=source, raw=item
                )
            )
        return out
    raise BadInput(
        f"type {kind!r} is not a ConversationMessage variant (Chat, AssistantToolCalls, ToolResults)"
    )


def parse(doc: Document) -> Transcript:
    """Parse a ZeroClaw ConversationMessage list.

    Raises:
        BadInput: at the first record that does not fit.
    """
    if not isinstance(doc.value, list):
        raise BadInput("expected a JSON list of ConversationMessage records")
    messages: list[Message] = []
    for index, item in enumerate(doc.value):
        with located(index=index):
            messages.extend(_record(item, SourceRef(record=index)))
    return Transcript(format=NAME, messages=tuple(messages))
