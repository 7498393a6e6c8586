"""OpenClaw's message model: which blocks parse to typed values, which stay raw, and the exact round trip."""

from __future__ import annotations

import pytest

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.messages import (
    AssistantMessage,
    ImageContent,
    OtherMessage,
    RawBlock,
    RawContent,
    RedactedThinkingContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    block_from_json,
    content_from_json,
    message_from_json,
    messages_from_json,
)


def test_well_formed_blocks_parse_to_their_types_with_unknown_keys_kept_as_extras():
    cases: list[tuple[JSON, object]] = [
        ({"type": "text", "text": "t", "textSignature": "s", "k": 1}, TextContent("t", "s", (("k", 1),))),
        (
            {"type": "image", "data": "d", "mimeType": "image/png", "k": 1},
            ImageContent("d", "image/png", (("k", 1),)),
        ),
        ({"type": "image", "mimeType": "image/png"}, ImageContent(None, "image/png")),
        (
            {"type": "thinking", "thinking": "h", "thinkingSignature": "s", "redacted": True, "k": 1},
            ThinkingContent("h", "s", True, (("k", 1),)),
        ),
        ({"type": "thinking", "thinking": "h"}, ThinkingContent("h", None, None)),
        (
            {"type": "redacted_thinking", "data": "d", "thinkingSignature": "s", "k": 1},
            RedactedThinkingContent("d", "s", (("k", 1),)),
        ),
        (
            {"type": "toolCall", "id": "c", "name": "n", "arguments": {"a": 1}, "k": 1},
            ToolCall("c", "n", {"a": 1}, (("k", 1),)),
        ),
        ({"type": "toolCall", "id": "c"}, ToolCall("c", None, None)),
    ]
    assert [block_from_json(raw) for raw, _ in cases] == [typed for _, typed in cases]
    assert [block_from_json(raw).to_json() for raw, _ in cases] == [raw for raw, _ in cases]


def test_a_known_field_of_the_wrong_type_keeps_the_block_raw():
    malformed: list[JSON] = [
        {"type": "text", "text": "t", "textSignature": 5},
        {"type": "image", "data": 5},
        {"type": "image", "mimeType": 5},
        {"type": "thinking", "thinking": 5},
        {"type": "thinking", "thinkingSignature": 5},
        {"type": "thinking", "thinking": "h", "redacted": None},
        {"type": "thinking", "thinking": "h", "redacted": "yes"},
        {"type": "redacted_thinking", "data": 5},
        {"type": "redacted_thinking", "thinkingSignature": 5},
        {"type": "toolCall", "id": 5},
        {"type": "toolCall", "name": 5},
        {"type": "toolCall", "arguments": "{}"},
        {"type": "toolCall", "arguments": None},
        {"type": "Text", "text": "t"},
        None,
        "text",
        5,
    ]
    assert [block_from_json(raw) for raw in malformed] == [RawBlock(raw) for raw in malformed]


def test_content_that_is_neither_text_nor_a_list_is_kept_raw():
    assert content_from_json(None) == RawContent(None)
    assert content_from_json({"a": 1}) == RawContent({"a": 1})


def test_messages_keep_their_role_fields_and_extras():
    assert message_from_json({"role": "user", "content": "q", "timestamp": 1}) == UserMessage(
        "q", (("timestamp", 1),)
    )
    assert message_from_json({"role": "assistant", "content": [], "api": "x"}) == AssistantMessage(
        (), (("api", "x"),)
    )
    assert message_from_json(
        {"role": "toolResult", "content": "r", "toolName": "read", "toolCallId": "c", "isError": True, "k": 1}
    ) == ToolResultMessage("r", "read", "c", True, (("k", 1),))
    bad_fields = message_from_json({"role": "toolResult", "toolName": 5, "toolCallId": 6, "isError": "no"})
    assert bad_fields == ToolResultMessage(
        None, None, None, None, (("toolName", 5), ("toolCallId", 6), ("isError", "no"))
    )
    assert message_from_json(7) == OtherMessage(7)
    assert message_from_json({"role": "custom", "content": "x"}) == OtherMessage(
        {"role": "custom", "content": "x"}
    )


def test_messages_that_are_not_a_list_are_refused_by_name():
    with pytest.raises(TypeError) as caught:
        messages_from_json({"role": "user"})
    assert str(caught.value) == "messages must be a list"
