"""Detection order, forced formats and the single located error for bad input."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.errors import TranscriptParseError
from simulator.importers import FORMATS, detect_format, parse_transcript


def test_formats_lists_all_nine_importers():
    assert set(FORMATS) == {
        "openai-chat",
        "openai-responses",
        "anthropic",
        "claude-code",
        "openclaw",
        "zeroclaw-chat",
        "zeroclaw-conversation",
        "langchain",
        "swe-agent",
    }


def test_empty_input_is_an_error():
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript("  \n")
    assert info.value.reason == "empty input"


def test_invalid_json_reports_line_and_column():
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript('[\n  {"role": "user",\n   "content": oops}\n]')
    assert info.value.line == 3
    assert "column 15" in info.value.reason


def test_unknown_shape_names_every_format_tried():
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript('{"hello": "world"}')
    assert info.value.formats_tried == FORMATS
    assert "format not recognised" in info.value.reason


def test_unknown_forced_format_is_rejected():
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript("[]", format="nope")
    assert "unknown format 'nope'" in info.value.reason


def test_forcing_a_format_tries_only_that_one():
    text = json.dumps([{"role": "user", "content": "hi"}])
    assert parse_transcript(text, format="anthropic").format == "anthropic"
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript(text, format="zeroclaw-conversation")
    assert info.value.formats_tried == ("zeroclaw-conversation",)
    assert info.value.message_index == 0


def test_plain_role_content_lists_default_to_chat_completions():
    assert detect_format(json.dumps([{"role": "user", "content": "hi"}])) == "openai-chat"


def test_a_list_no_format_accepts_reports_the_best_candidate_and_all_tried():
    bad = [{"role": "user", "content": "hi"}, {"role": "wizard", "content": "x"}]
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript(json.dumps(bad), source="bad.json")
    error = info.value
    assert error.formats_tried[0] == "openai-chat"
    assert len(error.formats_tried) > 1
    assert error.message_index == 1
    assert "role 'wizard'" in error.reason
    assert str(error).startswith(
        "role 'wizard' is not a Chat Completions role at bad.json, message 1 (formats tried:"
    )


def test_error_carries_structured_fields_for_the_dashboard():
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript('{"type":"session","version":3,"id":"s"}\n{"type":"bogus","id":"x","parentId":null}')
    assert info.value.extra["line"] == 2
    assert info.value.extra["formats_tried"][0] == "openclaw"


def test_what_the_standard_library_accepts_still_parses_with_the_fast_decoder():
    """NaN is refused by the fast decoder but read by json.loads, so it still parses (big integers too)."""
    from simulator.importers._common import decode

    doc = decode('{"a": NaN, "b": 123456789012345678901234567890}')
    assert isinstance(doc.value, dict) and doc.value["b"] == 123456789012345678901234567890


def test_integers_over_64_bits_beside_floats_keep_their_exact_value_in_every_jsonl_line():
    from simulator.importers._common import decode

    big = 2**64 + 1
    doc = decode(f'{{"a": 1.5, "b": {big}}}\n{{"c": {-big}, "d": [0.25, {big * 10**30}]}}\n')
    assert doc.records is not None
    values = [value for _, value in doc.records]
    assert values == [{"a": 1.5, "b": big}, {"c": -big, "d": [0.25, big * 10**30]}]
    assert all(type(v) is int for v in (values[0]["b"], values[1]["c"], values[1]["d"][1]))  # type: ignore[index]


def test_invalid_json_keeps_the_standard_library_message_with_line_and_column():
    from simulator.importers._common import JsonDecodeFailure, decode

    with pytest.raises(JsonDecodeFailure) as info:
        decode('{\n  "a": [1, 2,,]\n}')
    assert info.value.reason == "invalid JSON: Expecting value (line 2, column 14)"
    assert info.value.line == 2


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
_KEYS = st.sampled_from(
    ["type", "role", "content", "data", "parentId", "id", "message", "call_id", "payload"]
)


@settings(max_examples=200, deadline=None)
@given(
    items=st.lists(st.dictionaries(_KEYS, _JSON_VALUES, min_size=1, max_size=5), min_size=1, max_size=4),
    shape=st.sampled_from(["list", "document", "lines"]),
)
def test_detecting_odd_shapes_fails_with_a_parse_error_or_parses(items, shape):
    """Any key the detector reads may hold any JSON value (a list-valued ``type`` used to raise a bare
    ``TypeError`` from a set lookup): the answer is a transcript or a located parse error."""
    if shape == "list":
        text = json.dumps(items)
    elif shape == "document":
        text = json.dumps({"messages": items})
    else:
        text = "\n".join(json.dumps(item) for item in items)
    with contextlib.suppress(TranscriptParseError):
        parse_transcript(text)


@pytest.mark.parametrize(
    "text",
    [
        '[{"type": ["a"], "content": "x", "role": "user"}, {"type": {"k": 1}, "data": {}}]',
        '{"messages": [{"type": ["a"], "role": "user", "content": "hi"}]}',
        '{"type": ["a"], "id": "x", "parentId": null}\n{"type": {"b": 1}}\n',
    ],
)
def test_a_type_that_is_a_list_or_object_is_no_crash(text):
    try:
        parse_transcript(text)
    except TranscriptParseError as error:
        assert error.reason
