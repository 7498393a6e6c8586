"""Where ZeroClaw's tool-result truncation cuts: UTF-8 boundaries and image markers, literal outputs.

``max`` bytes are split into a head of ``max * 2 // 3`` and a tail of the rest; the head moves back
to a character start, the tail forward; a cut inside ``[IMAGE:...]`` moves the head to the ``[`` and
the tail past the ``]``.
"""

from __future__ import annotations

import pytest

from simulator.runtimes import zeroclaw as zc
from simulator.runtimes.zeroclaw import truncate_tool_result


def notice(elided: int) -> str:
    return f"\n\n[... {elided} characters truncated ...]\n\n"


@pytest.mark.parametrize(
    ("output", "max_chars", "expected"),
    [
        # "é" is 2 bytes: a head of 2 bytes would split it, so the head keeps only "a".
        ("aé" + "x" * 20, 3, "a" + notice(21) + "x"),
        # the head of 1 byte falls inside the first character and becomes empty.
        ("é" + "x" * 20, 2, notice(21) + "x"),
        # "€" is 3 bytes: a head of 4 bytes steps back over two continuation bytes.
        ("ab€" + "x" * 20, 6, "ab" + notice(21) + "xx"),
    ],
)
def test_the_head_ends_at_a_character_start(output: str, max_chars: int, expected: str) -> None:
    assert truncate_tool_result(output, max_chars) == expected


def test_a_head_cut_inside_a_marker_at_the_start_moves_to_its_bracket() -> None:
    output = "[IMAGE:/a.png]" + "y" * 30
    assert truncate_tool_result(output, 2) == notice(43) + "y"


def test_only_the_marker_cut_by_the_head_moves_it_not_a_later_one() -> None:
    output = "ab[IMAGE:/a.png]" + "m" * 20 + "[IMAGE:/c.png]" + "zz"
    assert truncate_tool_result(output, 9) == "ab" + notice(48) + "zz"


def test_a_tail_cut_on_a_marker_s_closing_bracket_moves_past_it() -> None:
    output = "]" + "a" * 19 + "[IMAGE:/b.png]" + "cd"
    assert truncate_tool_result(output, 9) == "]aaaaa" + notice(28) + "cd"


def test_a_tail_that_starts_exactly_at_a_marker_keeps_the_marker() -> None:
    output = "a" * 40 + "[IMAGE:/d.png]" + "b"
    assert truncate_tool_result(output, 45) == "a" * 30 + notice(10) + "[IMAGE:/d.png]b"


def test_a_marker_closed_before_the_head_cut_is_left_alone_despite_a_later_bracket() -> None:
    output = "[IMAGE:/a.png]" + "x" * 16 + "]" + "y" * 20
    assert truncate_tool_result(output, 30) == "[IMAGE:/a.png]xxxxxx" + notice(21) + "y" * 10


def test_an_output_of_exactly_the_budget_is_left_alone() -> None:
    assert truncate_tool_result("a" * 9, 9) == "a" * 9
    assert truncate_tool_result("a" * 10, 9) == "aaaaaa" + notice(1) + "aaa"


def test_a_tool_message_within_its_budget_or_with_truncation_off_is_returned_byte_for_byte():
    spaced = '{"tool_call_id": "c", "content": "x"}'
    assert zc.truncate_tool_message(spaced, 0) == spaced
    assert zc.truncate_tool_message(spaced, len(spaced)) == spaced


def test_a_plain_tool_message_over_budget_is_cut_like_a_tool_result():
    assert zc.truncate_tool_message("a" * 50, 1) == "\n\n[... 49 characters truncated ...]\n\na"
    assert zc.truncate_tool_message("not json " * 10, 30) == (
        "not json not json no\n\n[... 60 characters truncated ...]\n\n not json "
    )


def test_json_that_is_not_an_envelope_object_is_cut_as_plain_text():
    listed = '["tool_call_id", "' + "x" * 40 + '"]'
    assert zc.truncate_tool_message(listed, 20) == zc.truncate_tool_result(listed, 20)
    quoted = '"' + "x" * 40 + '"'
    assert zc.truncate_tool_message(quoted, 20) == zc.truncate_tool_result(quoted, 20)
