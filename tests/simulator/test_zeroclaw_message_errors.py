"""ZeroClaw's message parsers name the shape and the field that is wrong, word for word."""

from __future__ import annotations

import pytest

from simulator.jsonvalue import JSON
from simulator.runtimes.zeroclaw import messages as m


def error_of(parse, value: JSON) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises((TypeError, ValueError)) as caught:
        parse(value)
    return str(caught.value)


def test_a_chat_message_that_is_not_an_object_is_named():
    assert error_of(m.ChatMessage.from_json, []) == "ChatMessage must be an object, got list"


def test_a_chat_message_names_its_missing_role_and_its_non_string_content():
    assert error_of(m.ChatMessage.from_json, {"content": "x"}) == "role must be a string, got null"
    assert (
        error_of(m.ChatMessage.from_json, {"role": "user", "content": 3})
        == "content must be a string, got number"
    )


def test_a_tool_call_that_is_not_an_object_is_named():
    assert error_of(m.ToolCall.from_json, "call") == "ToolCall must be an object, got string"


def test_a_tool_call_names_each_field_that_is_not_a_string():
    good = {"id": "c1", "name": "shell", "arguments": "{}"}
    assert error_of(m.ToolCall.from_json, {**good, "id": 1}) == "id must be a string, got number"
    assert error_of(m.ToolCall.from_json, {**good, "name": None}) == "name must be a string, got null"
    assert (
        error_of(m.ToolCall.from_json, {**good, "arguments": {}}) == "arguments must be a string, got object"
    )
    assert m.ToolCall.from_json(good) == m.ToolCall("c1", "shell", "{}")


def test_a_tool_result_names_its_shape_and_each_field_that_is_not_a_string():
    good = {"tool_call_id": "c1", "content": "ok", "tool_name": "shell"}
    assert error_of(m.ToolResultMessage.from_json, None) == "ToolResultMessage must be an object, got null"
    assert error_of(m.ToolResultMessage.from_json, {**good, "tool_call_id": 2}) == (
        "tool_call_id must be a string, got number"
    )
    assert (
        error_of(m.ToolResultMessage.from_json, {**good, "content": None})
        == "content must be a string, got null"
    )
    assert (
        error_of(m.ToolResultMessage.from_json, {**good, "tool_name": []})
        == "tool_name must be a string, got list"
    )


def test_a_conversation_message_names_a_non_object_and_a_missing_tag():
    parse = m.conversation_message_from_json
    assert error_of(parse, "Chat") == "ConversationMessage must be an object, got string"
    assert error_of(parse, {"data": {}}) == "type must be a string, got null"
    assert error_of(parse, {"type": "Other", "data": {}}) == "unknown ConversationMessage type 'Other'"


def test_structured_variants_name_data_of_the_wrong_shape():
    parse = m.conversation_message_from_json
    assert error_of(parse, {"type": "AssistantToolCalls", "data": []}) == "data must be an object, got list"
    assert error_of(parse, {"type": "AssistantToolCalls", "data": {"text": None}}) == (
        "tool_calls must be a list, got null"
    )
    assert error_of(parse, {"type": "ToolResults", "data": {}}) == "data must be a list, got object"


def test_a_variant_parser_given_another_tag_names_both():
    assert error_of(m.Chat.from_json, {"type": "ToolResults", "data": []}) == (
        "expected ConversationMessage type 'Chat', got 'ToolResults'"
    )


def test_a_variant_parser_given_a_non_object_names_its_variant():
    assert error_of(m.Chat.from_json, "hi") == "Chat must be an object, got string"
    assert error_of(m.ToolResults.from_json, None) == "ToolResults must be an object, got null"


def test_a_history_that_is_not_a_list_is_named():
    assert error_of(m.chat_history_from_json, {}) == "history must be a list, got object"
    assert error_of(m.conversation_history_from_json, "x") == "history must be a list, got string"
