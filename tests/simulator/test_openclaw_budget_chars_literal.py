"""OpenClaw 2026.9.6's weighted character budget and surrogate-safe slicing, bucket by bucket."""

from __future__ import annotations

from simulator.runtimes.openclaw.v2026_9_6.budget_chars import (
    estimate_budget_chars,
    slice_tail_to_budget,
    slice_to_budget,
    slice_utf16_safe,
)

SMILE = "\U0001f600"  # outside every bucket: two raw units


def test_ascii_counts_its_length_times_the_raw_weight_of_at_least_one():
    assert [estimate_budget_chars("abc", w) for w in (1, 2, 0)] == [3, 6, 3]


def test_each_bucket_costs_its_weight_whatever_the_raw_weight():
    samples = {
        "é": (1, 2),  # no bucket: raw units only
        "·": (4, 4),
        "中": (4, 4),
        "\u1100": (12, 12),  # rare BMP CJK (Hangul Jamo)
        "\u02c7": (8, 8),  # two-token mark
        "\U0001d360": (12, 12),  # three-token supplementary (counting rods)
        "\U00020000": (16, 16),  # other supplementary ideograph
        SMILE: (2, 4),
    }
    assert {ch: (estimate_budget_chars(ch), estimate_budget_chars(ch, 2)) for ch in samples} == samples
    assert estimate_budget_chars("a中\u1100") == 1 + 4 + 12


def test_a_utf16_safe_slice_never_keeps_half_a_pair():
    text = f"a{SMILE}b"  # units: a, D83D, DE00, b
    cases = [
        ((0, 2), "a"),
        ((2, None), "b"),
        ((-2, None), "b"),
        ((0, -1), f"a{SMILE}"),
        ((-10, None), text),
        ((3, 1), ""),
        ((0, 10), text),
        ((1, 3), SMILE),
        ((0, -10), ""),
    ]
    assert [(args, slice_utf16_safe(text, *args)) for args, _ in cases] == cases


def test_a_text_within_budget_is_kept_whole_and_a_fractional_budget_is_floored():
    assert slice_to_budget("abc", 3) == "abc"
    assert (slice_to_budget("abc", 2.9), slice_tail_to_budget("abc", 2.9)) == ("ab", "bc")
    assert slice_to_budget("abc", -5) == ""


def test_the_longest_prefix_or_suffix_whose_weighted_size_fits_is_kept():
    assert (slice_to_budget("中中中", 8), slice_tail_to_budget("一二三", 8)) == ("中中", "二三")
    assert slice_to_budget("中中中", 7) == "中"
    assert slice_to_budget("abcd", 5, 2) == "ab"
    assert slice_to_budget("中", 2) == ""
    assert (slice_to_budget(SMILE * 2, 3), slice_tail_to_budget(SMILE * 2, 3)) == (SMILE, SMILE)


def test_the_pair_test_covers_the_first_and_last_surrogate_of_each_half():
    first, last_high, last_low = "\U00010000", "\U0010fc00", "\U000103ff"  # D800 DC00, DBFF DC00, D800 DFFF
    assert [slice_utf16_safe(ch + "b", 0, 1) for ch in (first, last_high, last_low)] == ["", "", ""]
    assert [slice_utf16_safe("b" + ch, 2) for ch in (first, last_high, last_low)] == ["", "", ""]


def test_lone_surrogates_are_sliced_as_units_and_never_paired_with_their_neighbours():
    assert slice_utf16_safe("a\ud800b", 0, 2) == "a\ud800"
    assert slice_utf16_safe("\udc00\udc00", 1) == "\udc00"
    assert slice_utf16_safe("\ud800\ue000", 0, 1) == "\ud800"
    assert slice_utf16_safe("\ud800ab", 1) == "ab"
    assert slice_utf16_safe("\udc00a\ud800", 0) == "\udc00a\ud800"
    assert slice_utf16_safe("a\ud800", 0) == "a\ud800"


def test_an_end_of_zero_is_the_start_not_the_length():
    assert slice_utf16_safe("abc", 0, 0) == ""


def test_the_binary_search_finds_the_longest_prefix_that_fits():
    assert slice_to_budget("中" * 5, 12) == "中" * 3
