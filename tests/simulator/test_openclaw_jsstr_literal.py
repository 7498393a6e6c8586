"""JavaScript string semantics OpenClaw's numbers depend on: UTF-16 length and slicing, literally."""

from __future__ import annotations

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.jsstr import (
    js_json_stringify,
    js_len,
    js_number_out,
    js_number_to_string,
    js_slice,
    js_trim,
)

SMILE = "\U0001f600"  # two UTF-16 units: \ud83d \ude00


def test_the_last_bmp_character_is_one_unit_and_the_first_astral_one_two():
    assert js_len("\uffff") == 1
    assert js_len("é\U00010000") == 3
    assert js_len(f"a{SMILE}") == 3


def test_slicing_counts_an_astral_character_as_two_units():
    text = f"{SMILE}ab"
    assert js_slice(text, 1) == "\ude00ab"
    assert js_slice(text, 1, 3) == "\ude00a"
    assert js_slice(text, 0, 1) == "\ud83d"
    assert js_slice("\U00010000", 0, 1) == "\ud800"


def test_negative_indexes_count_from_the_end_and_clamp_at_the_start():
    text = f"{SMILE}ab"
    assert js_slice(text, -2) == "ab"
    assert js_slice(text, -10) == text
    assert js_slice(text, 0, -3) == "\ud83d"


def test_an_end_before_the_start_gives_the_empty_string():
    assert js_slice(f"{SMILE}ab", 3, 1) == ""
    assert js_slice(f"{SMILE}ab", 2, 2) == ""


def test_trim_uses_the_ecmascript_whitespace_set():
    # U+FEFF is JS whitespace but not Python's; U+001C is Python's but not JS's.
    assert js_trim("\ufeff a\x1c") == "a\x1c"


def test_only_integral_doubles_below_1e21_print_as_integers():
    five = js_number_out(5.0)
    assert (five, type(five)) == (5, int)
    big = js_number_out(1e21)
    assert (big, type(big)) == (1e21, float)


def test_numbers_print_as_javascript_prints_them():
    cases = [
        (1e-7, "1e-7"),
        (100.0, "100"),
        (1.0, "1"),
        (0.0, "0"),
        (-0.0, "0"),
        (-1.5, "-1.5"),
        (1e21, "1e+21"),
    ]
    assert [(value, js_number_to_string(value)) for value, _ in cases] == cases
    assert js_number_to_string(float("inf")) == "null"
    # Past 2**53 an integer is a double to JavaScript: Number(2n ** 60n).toString().
    assert js_number_to_string(2**60) == "1152921504606847000"


def test_stringify_writes_every_json_kind_as_javascript_does():
    value: JSON = [None, True, False, 1.5, "a", [], {}, [1, [2]]]
    assert js_json_stringify(value) == '[null,true,false,1.5,"a",[],{},[1,[2]]]'


def test_stringify_escapes_control_characters_and_lone_surrogates_only():
    assert js_json_stringify("\x01\x1f \ud800\udbff\udc00\udfff\ue000é") == (
        '"\\u0001\\u001f \\ud800\\udbff\\udc00\\udfff\ue000é"'
    )


def test_stringify_lists_array_index_keys_first_ascending_then_the_rest_in_insertion_order():
    value: JSON = {"b": 1, "10": 2, "2": 3, "01": 4, "0": 5, "4294967295": 6, "4294967294": 7, "63": 8}
    assert js_json_stringify(value) == (
        '{"0":5,"2":3,"10":2,"63":8,"4294967294":7,"b":1,"01":4,"4294967295":6}'
    )


def test_numbers_switch_between_plain_and_exponent_forms_at_javascripts_bounds():
    cases = [
        (1.23e20, "123000000000000000000"),
        (1.25e21, "1.25e+21"),
        (0.5, "0.5"),
        (0.001, "0.001"),
        (1e-6, "0.000001"),
        (1.5e-7, "1.5e-7"),
        (1.25e22, "1.25e+22"),
    ]
    assert [(value, js_number_to_string(value)) for value, _ in cases] == cases
