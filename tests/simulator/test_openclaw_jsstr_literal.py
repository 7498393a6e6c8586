"""JavaScript string semantics OpenClaw's numbers depend on: UTF-16 length and slicing, literally."""

from __future__ import annotations

from simulator.runtimes.openclaw.jsstr import js_len, js_number_out, js_number_to_string, js_slice, js_trim

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
