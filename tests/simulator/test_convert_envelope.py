"""ZeroClaw's tool-result envelope, written by hand, is the compact JSON the encoder writes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.convert import compact_json, tool_result_envelope


@settings(max_examples=500, deadline=None)
@given(st.text(), st.text())
def test_the_envelope_is_the_encoders_compact_json(call_id: str, text: str):
    assert tool_result_envelope(call_id, text) == compact_json({"tool_call_id": call_id, "content": text})


def test_quotes_controls_and_non_ascii_are_written_as_the_encoder_writes_them():
    text = 'a "quoted" \\ line\n\ttab \x00 é 日本 \u2028 \ud83d\ude00'
    assert tool_result_envelope('c"1', text) == compact_json({"tool_call_id": 'c"1', "content": text})
    assert tool_result_envelope("c1", "é") == '{"tool_call_id":"c1","content":"é"}'
