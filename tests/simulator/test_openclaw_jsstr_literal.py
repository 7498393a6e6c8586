"""JavaScript string semantics OpenClaw's numbers depend on: UTF-16 length and slicing, literally."""

from __future__ import annotations

from simulator.runtimes.openclaw.jsstr import js_len, js_slice

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
