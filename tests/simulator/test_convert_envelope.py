"""ZeroClaw's tool-result and tool-call envelopes, written by hand, are the encoder's compact JSON."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.convert import compact_json, tool_calls_envelope, tool_result_envelope
from simulator.transcript import ToolCall


@settings(max_examples=500, deadline=None)
@given(st.text(), st.text())
def test_the_envelope_is_the_encoders_compact_json(call_id: str, text: str):
    assert tool_result_envelope(call_id, text) == compact_json({"tool_call_id": call_id, "content": text})


def test_quotes_controls_and_non_ascii_are_written_as_the_encoder_writes_them():
    text = 'a "quoted" \\ line\n\ttab \x00 é 日本 \u2028 \ud83d\ude00'
    assert tool_result_envelope('c"1', text) == compact_json({"tool_call_id": 'c"1', "content": text})
    assert tool_result_envelope("c1", "é") == '{"tool_call_id":"c1","content":"é"}'


_calls = st.lists(st.builds(ToolCall, st.text(), st.text(), st.text()), max_size=3)


@settings(max_examples=300, deadline=None)
@given(st.none() | st.text(), _calls, st.none() | st.text())
def test_the_tool_call_envelope_is_the_encoders_compact_json(content, calls, reasoning):
    envelope: dict = {
        "content": content,
        "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls],
    }
    if reasoning is not None:
        envelope["reasoning_content"] = reasoning
    assert tool_calls_envelope(content, calls, reasoning) == compact_json(envelope)


def test_a_tool_call_that_is_not_three_strings_is_left_to_the_encoder():
    call = ToolCall("c1", "f", {"a": 1})  # type: ignore[arg-type] - a caller-built call
    expected = compact_json(
        {"content": None, "tool_calls": [{"id": "c1", "name": "f", "arguments": {"a": 1}}]}
    )
    assert tool_calls_envelope(None, [call]) == expected


def test_every_code_point_is_escaped_as_the_encoder_escapes_it():
    # The envelopes write strings with msgspec; lone surrogates, which it refuses, take the encoder's way.
    for start in range(0, 0x110000, 0x800):
        text = "".join(chr(c) for c in range(start, start + 0x800))
        assert tool_result_envelope("c", text) == compact_json({"tool_call_id": "c", "content": text})
    for surrogate in ("\ud800", "a\udfffb", "\udc00\ud83d\ude00"):
        assert tool_result_envelope(surrogate, surrogate) == compact_json(
            {"tool_call_id": surrogate, "content": surrogate}
        )


def test_a_string_subclass_is_written_as_the_encoder_writes_it():
    class Text(str):
        pass

    text = Text('a "b"\n')
    assert tool_result_envelope(Text("c"), text) == compact_json({"tool_call_id": "c", "content": 'a "b"\n'})
