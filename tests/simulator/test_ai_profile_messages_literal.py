"""ai-profile's message model: the blocks its constructors build and every reading error, word for word."""

from __future__ import annotations

import pytest

from simulator.jsonvalue import JSON
from simulator.runtimes.ai_profile.messages import Block, Message, OtherContent, messages_from_json


def error_of(parse, value: JSON) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises((TypeError, ValueError)) as caught:
        parse(value)
    return str(caught.value)


def test_the_block_constructors_build_the_anthropic_wire_shapes():
    assert Block.text("hi").data == {"type": "text", "text": "hi"}
    assert Block.tool_use("t1", "read", {"path": "a"}).data == {
        "type": "tool_use",
        "id": "t1",
        "name": "read",
        "input": {"path": "a"},
    }
    assert Block.tool_result("t1", "done").data == {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": "done",
    }


def test_other_content_refuses_strings_and_lists_by_saying_what_it_holds():
    for value in ("text", []):
        with pytest.raises(TypeError) as caught:
            OtherContent(value)
        assert str(caught.value) == "OtherContent holds only null, booleans, numbers and objects"


def test_a_message_names_each_way_it_can_be_malformed():
    assert error_of(Message.from_json, "hi") == "message must be an object, got string"
    assert (
        error_of(Message.from_json, {"role": 1, "content": ""}) == "message role must be a string, got number"
    )
    assert error_of(Message.from_json, {"role": "user"}) == "message has no content"


def test_messages_that_are_not_a_list_are_named():
    assert error_of(messages_from_json, {"role": "user"}) == "messages must be a list, got object"
