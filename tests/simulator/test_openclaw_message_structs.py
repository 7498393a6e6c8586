"""OpenClaw's message types are frozen msgspec structs: what the replays rely on still holds."""

from __future__ import annotations

import gc
import pickle

import msgspec
import pytest

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
    message_from_json,
)

SAMPLES = [
    TextContent("hello"),
    ImageContent("aGk=", "image/png"),
    ThinkingContent("hmm", "sig", None, (("x", {"y": [1]}),)),
    RedactedThinkingContent("opaque"),
    ToolCall("t1", "read", {"path": "a"}),
    RawBlock({"type": "odd"}),
    RawContent(None),
    UserMessage("hi", (("timestamp", 1),)),
    AssistantMessage((TextContent("a"), ToolCall("t1", "read", {})), (("model", "m"),)),
    ToolResultMessage((TextContent("out"),), "read", "t1", False, ()),
    OtherMessage({"role": "custom"}),
]


@pytest.mark.parametrize("value", SAMPLES, ids=lambda v: type(v).__name__)
def test_a_message_value_is_frozen_equal_by_fields_and_pickles(value: object) -> None:
    """Assigning a field fails, a copy with the same fields is equal, and pickling gives an equal value."""
    name = msgspec.structs.fields(type(value))[0].name  # type: ignore[arg-type]
    with pytest.raises(AttributeError):
        setattr(value, name, None)
    assert msgspec.structs.replace(value) == value  # type: ignore[type-var]
    assert pickle.loads(pickle.dumps(value)) == value


@pytest.mark.parametrize("value", SAMPLES, ids=lambda v: type(v).__name__)
def test_a_message_value_is_left_out_of_the_cyclic_collector(value: object) -> None:
    """Even holding decoded JSON objects, a message is not tracked: a collection never walks a session."""
    assert not gc.is_tracked(value)


def test_replace_changes_one_field_and_keeps_the_rest() -> None:
    """``msgspec.structs.replace`` is what the transforms copy a message with."""
    message = ToolResultMessage((TextContent("out"),), "read", "t1", True, (("details", {"a": 1}),))
    copy = msgspec.structs.replace(message, content=(TextContent("cut"),))
    assert copy.content == (TextContent("cut"),)
    assert (copy.tool_name, copy.tool_call_id, copy.is_error, copy.extra) == (
        "read",
        "t1",
        True,
        (("details", {"a": 1}),),
    )
    assert message.content == (TextContent("out"),)


def test_the_repr_names_every_field_in_order() -> None:
    """Fingerprints hash a result's ``repr``, which holds messages: the frozen dataclasses' format."""
    message = message_from_json({"role": "user", "content": [{"type": "text", "text": "x"}], "timestamp": 1})
    assert repr(message) == (
        "UserMessage(content=(TextContent(text='x', text_signature=None, extra=()),), "
        "extra=(('timestamp', 1),))"
    )
