"""Token estimate details a naive re-implementation gets wrong (spec §3, §11.1-2)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.jsonvalue import JSON
from simulator.runtimes.ai_profile import Block, Message, OtherContent, dumps_compact, estimate_tokens
from simulator.runtimes.ai_profile.compact_json import (
    compact_json_bytes,
    compact_json_bytes_reference,
    quote_string,
    quote_string_reference,
    ryu_format,
    serde_parse_float,
)
from simulator.runtimes.ai_profile.estimate import U32_MAX, message_tokens, saturating_sum


def test_worked_examples_from_the_spec():
    assert message_tokens(Message("user", "hi")) == 12
    assert message_tokens(Message("assistant", "hello")) == 16
    assert message_tokens(Message("user", "把这个仓库的测试全部跑一遍")) == 30
    tool_use = Message("assistant", (Block.tool_use("t1", "x", {}),))
    assert message_tokens(tool_use) == 39


def test_counts_utf8_bytes_not_characters():
    assert len(dumps_compact("日志").encode()) == 8
    assert message_tokens(Message("", "🙂")) == (6 // 2) + 8


def test_role_bytes_are_added_and_odd_lengths_floor():
    assert message_tokens(Message("", "a")) == 9
    assert message_tokens(Message("assistant", "a")) == (3 + 9) // 2 + 8


def test_string_escapes_match_serde_json():
    assert dumps_compact('"\\\b\f\n\r\t') == '"\\"\\\\\\b\\f\\n\\r\\t"'
    assert dumps_compact("\x01\x1f") == '"\\u0001\\u001f"'
    assert dumps_compact("/\x7f\u2028é") == '"/\x7f\u2028é"'


@given(st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=())))
def test_the_fast_string_quote_is_serde_jsons_escape_of_every_code_point(text):
    assert quote_string(text) == quote_string_reference(text)


def test_the_fast_string_quote_keeps_lone_surrogates_and_every_control_character():
    text = "".join(chr(c) for c in range(0x80)) + "\ud800\udfff\u2028\x7f"
    assert quote_string(text) == quote_string_reference(text)


def test_floats_are_printed_like_ryu_not_like_python():
    assert dumps_compact([1e-7, 1e20, 100.0, 0.1, -2.5]) == "[1e-7,1e20,100.0,0.1,-2.5]"
    assert [ryu_format(x) for x in (1e-5, 1e16, 1.2345678901234568e17, 5e-324, -0.0, 0.0)] == [
        "0.00001",
        "1e16",
        "1.2345678901234568e17",
        "5e-324",
        "-0.0",
        "0.0",
    ]
    assert ryu_format(1e15) == "1000000000000000.0"
    assert ryu_format(123.456) == "123.456"
    assert ryu_format(1.5e300) == "1.5e300"


def test_the_float_golden_case_differs_from_json_dumps_by_one_token():
    floats: JSON = {"a": 1e-07, "b": 1e20, "c": 100.0, "d": 0.1, "e": -2.5}
    content: JSON = [{"id": "t", "input": floats, "name": "f", "type": "tool_use"}]
    assert json.dumps(floats, separators=(",", ":")) == '{"a":1e-07,"b":1e+20,"c":100.0,"d":0.1,"e":-2.5}'
    assert estimate_tokens([Message.from_json({"role": "assistant", "content": content})]) == 60


def test_serde_default_float_parse_is_replayed():
    assert serde_parse_float("0.1") == 0.1
    assert serde_parse_float("1e-07") == 1e-7
    # Past the 1e308 table serde_json divides in two steps, which need not round correctly.
    assert serde_parse_float("1.2345e-310") == (12345 / 1e308) / 1e6


def test_integers_outside_u64_and_i64_become_floats():
    assert dumps_compact(2**64 - 1) == str(2**64 - 1)
    assert dumps_compact(-(2**63)) == str(-(2**63))
    assert dumps_compact(2**64) == "1.8446744073709552e19"
    assert dumps_compact(-(2**63) - 1) == "-9.223372036854776e18"


def test_object_keys_are_sorted_and_nothing_is_spaced():
    assert dumps_compact({"b": [True, None], "a": {"é": 1}}) == '{"a":{"é":1},"b":[true,null]}'


def test_non_list_content_is_serialised_whole():
    messages = [
        Message("user", OtherContent(None)),
        Message("system", OtherContent(42)),
        Message("tool", OtherContent({"k": "v"})),
        Message("", ""),
    ]
    assert [message_tokens(m) for m in messages] == [12, 12, 14, 9]
    assert estimate_tokens(messages) == 47


def test_estimates_sum_per_message_and_saturate_at_u32_max():
    assert estimate_tokens([]) == 0
    assert estimate_tokens([Message("user", "x")] * 3) == 3 * 11
    assert saturating_sum([U32_MAX, 1]) == U32_MAX
    assert saturating_sum([U32_MAX - 1, 1]) == U32_MAX


def test_nan_cannot_be_estimated():
    with pytest.raises(ValueError):
        dumps_compact(float("nan"))


class _Text(str):
    """A ``str`` subclass: the summed length hands it to the written text."""


_any_text = st.text(
    st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=()), max_size=12
)
_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),  # outside i64/u64 they are written as floats
    st.floats(allow_nan=False, allow_infinity=False),
    _any_text,
    _any_text.map(_Text),
)
_values = st.recursive(
    _leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_any_text, inner, max_size=4)),
    max_leaves=25,
)


@settings(max_examples=500, deadline=None)
@given(_values)
def test_the_summed_length_is_the_written_texts_utf8_length(value):
    assert compact_json_bytes(value) == len(dumps_compact(value).encode("utf-8", "surrogatepass"))


def test_the_summed_length_of_edge_values():
    for value in (
        [],
        {},
        [[]],
        {"": {}},
        "\ud800",
        "é\n\x00",
        2**63,
        -(2**63) - 1,
        2**64,
        1e-7,
        [True, False, None],
    ):
        assert compact_json_bytes(value) == compact_json_bytes_reference(value), value
    with pytest.raises(ValueError):
        compact_json_bytes([1.0, float("inf")])
