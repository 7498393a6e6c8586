"""OpenClaw's ``JSON.stringify`` of a string: the C encoder's fast answer is the per-character one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from simulator.runtimes.openclaw.jsstr import js_json_stringify, quote_each

EVERY_CODE_POINT = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=())


@given(st.text(EVERY_CODE_POINT))
def test_a_string_is_quoted_as_json_stringify_quotes_it_one_character_at_a_time(text):
    assert js_json_stringify(text) == quote_each(text)


@given(
    st.dictionaries(st.text(EVERY_CODE_POINT, max_size=4), st.text(EVERY_CODE_POINT, max_size=6), max_size=4)
)
def test_object_keys_and_values_are_quoted_the_same_way(obj):
    text = js_json_stringify(obj)
    for key, value in obj.items():
        assert quote_each(key) + ":" + quote_each(value) in text


def test_control_characters_lone_surrogates_and_quotes_are_escaped_as_javascript_does():
    text = "".join(chr(c) for c in range(0x20)) + '"\\\x7f\u2028é\ud800x\udfff'
    assert js_json_stringify(text) == quote_each(text)
    assert js_json_stringify("\ud800") == '"\\ud800"'
    assert js_json_stringify("\x1f\n") == '"\\u001f\\n"'
