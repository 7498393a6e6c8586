"""OpenClaw 2026.9.6's tool-result text cuts, case by case (head, head + tail, bounded notices, blocks)."""

from __future__ import annotations

from simulator.runtimes.openclaw.messages import (
    ToolResultMessage,
    block_from_json,
    message_from_json,
    messages_to_json,
)
from simulator.runtimes.openclaw.v2026_9_6.provider_budget import compact_recovery_suffix
from simulator.runtimes.openclaw.v2026_9_6.tool_result_text import (
    MIDDLE_OMISSION_MARKER,
    append_bounded_suffix,
    context_limit_notice,
    effective_min_keep_chars,
    has_important_tail,
    text_of,
    truncate_tool_result_message,
    truncate_tool_result_text,
    with_text,
)

CUT = "more characters truncated; rerun with narrower args if needed]"


def test_an_important_tail_names_an_error_ends_with_a_brace_or_closes_with_a_summary_in_its_last_2000():
    texts = [
        "ok",
        "an Error here",
        "x}",
        "  {a}  ",
        "all done",
        "undone",
        "x" * 2100 + "error" + "y" * 10,
        "error" + "x" * 2100,
        "Exit Code 1",
    ]
    assert [has_important_tail(t) for t in texts] == [
        False,
        True,
        True,
        True,
        True,
        False,
        False,
        False,
        True,
    ]


def test_the_minimum_kept_is_capped_by_the_budget_less_the_notice_and_never_negative():
    assert effective_min_keep_chars(1000, 2000, context_limit_notice, 1) == 931
    assert effective_min_keep_chars(50, 2000, context_limit_notice, 1) == 0
    assert effective_min_keep_chars(1000, 100, context_limit_notice, 2) == 100
    assert effective_min_keep_chars(1000, -5, context_limit_notice, 1) == 0


def test_a_text_within_budget_is_kept_and_a_longer_one_cut_at_a_late_newline_with_its_notice():
    assert truncate_tool_result_text("abc", 3) == "abc"
    assert (
        truncate_tool_result_text("ab\ncd" * 40, 120, min_keep_chars=0) == "ab\ncd" * 9 + f"ab[... 153 {CUT}"
    )


def test_an_important_tail_keeps_head_and_tail_around_the_omission_marker():
    text = "line\n" * 60 + "FATAL error at end"
    expected = (
        "line\n" * 18 + "line" + MIDDLE_OMISSION_MARKER + "line\n" * 10 + f"FATAL error at end[... 93 {CUT}"
    )
    assert truncate_tool_result_text(text, 300, min_keep_chars=0) == expected


def test_the_compact_suffix_and_a_budget_smaller_than_the_notice():
    assert (
        truncate_tool_result_text("x" * 500, 100, min_keep_chars=0, suffix=compact_recovery_suffix)
        == "x" * 62 + "[... 438 chars truncated; narrow args]"
    )
    assert truncate_tool_result_text("x" * 500, 20, min_keep_chars=0) == "[... 500 more charac"


def test_a_bounded_suffix_cuts_the_notice_itself_when_nothing_else_fits():
    assert append_bounded_suffix("abcdef", 100, 60, context_limit_notice, 1) == (
        "[... 100 more characters truncated; rerun with narrower args"
    )
    assert append_bounded_suffix("", 100, 10, context_limit_notice, 1) == "[... 100 m"


def test_text_blocks_are_text_or_tool_result_blocks_with_a_string_text():
    raws = [
        {"type": "text", "text": "a"},
        {"type": "toolResult", "text": "b"},
        {"type": "toolResult", "text": 3},
    ]
    blocks = [block_from_json(r) for r in [*raws, {"type": "image"}, "s"]]
    assert [text_of(b) for b in blocks] == ["a", "b", None, None, None]


def test_with_text_replaces_the_text_and_a_string_content_too():
    cases = [
        {"type": "text", "text": "a", "content": "a"},
        {"type": "toolResult", "text": "b", "content": "b", "k": 1},
        {"type": "toolResult", "text": "b", "content": [1]},
        "s",
    ]
    assert [with_text(block_from_json(c), "Z").to_json() for c in cases] == [
        {"type": "text", "text": "Z", "content": "Z"},
        {"type": "toolResult", "text": "Z", "content": "Z", "k": 1},
        {"type": "toolResult", "text": "Z", "content": [1]},
        "s",
    ]


def _message() -> ToolResultMessage:
    content = [{"type": "text", "text": "s" * 50}, {"type": "text", "text": "L" * 3000}, {"type": "image"}]
    message = message_from_json({"role": "toolResult", "toolCallId": "c", "content": content})
    assert isinstance(message, ToolResultMessage)
    return message


def test_a_message_keeps_its_small_blocks_whole_and_cuts_the_large_one():
    cut = truncate_tool_result_message(_message(), 500, min_keep_chars=100)
    assert messages_to_json([cut])[0] == {
        "role": "toolResult",
        "content": [
            {"type": "text", "text": "s" * 50},
            {"type": "text", "text": "L" * 378 + f"[... 2622 {CUT}"},
            {"type": "image"},
        ],
        "toolCallId": "c",
    }


def test_without_room_for_the_small_blocks_every_text_block_shares_the_budget():
    cut = truncate_tool_result_message(_message(), 100, min_keep_chars=100)
    assert messages_to_json([cut])[0]["content"] == [
        {"type": "text", "text": "[... 50 more characters truncated; rerun with nar"},
        {"type": "text", "text": "[... 3000 more characters truncated; rerun with na"},
        {"type": "image"},
    ]


def test_a_message_within_budget_or_with_string_content_is_returned_as_it_is():
    message = _message()
    assert truncate_tool_result_message(message, 5000) is message
    text_message = message_from_json({"role": "toolResult", "content": "x" * 99})
    assert isinstance(text_message, ToolResultMessage)
    assert truncate_tool_result_message(text_message, 5) is text_message


# Boundaries of ``truncateToolResultText``, ``appendBoundedTruncationSuffix`` and
# ``truncateToolResultMessage`` (tool-result-truncation.ts, see the module docstring). The one-char
# context-limit notice is 69 chars, a three-digit one 71, the middle-omission marker 63.


def notice(count: int) -> str:
    return f"[... {count} {CUT}"


def test_an_important_tail_is_looked_for_in_the_last_2000_units_only():
    assert has_important_tail("error " + "x" * 1995) is False
    assert has_important_tail("error " + "x" * 1994) is True


def test_at_raw_weight_2_the_notice_floor_counts_double():
    assert effective_min_keep_chars(1000, 2000, context_limit_notice, 2) == 862


def test_a_bounded_suffix_announces_at_least_one_char_and_is_measured_at_its_weight():
    assert append_bounded_suffix("abcdef", 7, 100, context_limit_notice, 1) == "abcdef" + notice(1)
    assert append_bounded_suffix("", 1, 10, context_limit_notice, 1) == "[... 1 mor"
    assert append_bounded_suffix("", 100, 20, context_limit_notice, 2) == "[... 100 m"


def test_a_bounded_suffix_recounts_the_notice_once_no_kept_char_fits():
    # Two CJK chars weigh 8; 72 - 69 leaves room for none, so the notice counts all 10 original chars.
    assert append_bounded_suffix("中文", 10, 72, context_limit_notice, 1) == notice(10)


def test_a_text_is_cut_when_its_weighted_size_is_over_budget_even_if_its_length_is_not():
    assert truncate_tool_result_text("中" * 10, 20, min_keep_chars=0) == notice(10)[:20]
    assert truncate_tool_result_text("abc", 4, weight=2) == "[."


def test_at_raw_weight_2_the_head_and_the_tail_get_half_as_many_chars():
    assert truncate_tool_result_text(
        "ab\ncd" * 40, 300, min_keep_chars=0, weight=2
    ) == "ab\ncd" * 15 + "ab" + notice(123)
    text = "line\n" * 60 + "FATAL error at end"
    assert truncate_tool_result_text(text, 600, min_keep_chars=0, weight=2) == (
        "line\n" * 18 + "line" + MIDDLE_OMISSION_MARKER + "line\n" * 10 + "FATAL error at end" + notice(93)
    )
    # The first estimate of what is cut is taken at weight 2 too (151 chars of 301), which decides the budget.
    half = "a" * 150 + "\n" + "b" * 150
    assert truncate_tool_result_text(half, 515, min_keep_chars=0, weight=2) == "a" * 150 + notice(151)


def test_head_and_tail_need_a_budget_over_twice_the_minimum_kept():
    text = "line\n" * 200 + "error"
    # budget 471 - 71 = 400 = 2 x 200: the head alone; 571 - 71 = 500: head and tail.
    assert truncate_tool_result_text(text, 471, min_keep_chars=200) == "line\n" * 79 + "line" + notice(606)
    assert MIDDLE_OMISSION_MARKER in truncate_tool_result_text(text, 571, min_keep_chars=200)
    # budget 232: tail 69, head 232 - 69 - 63 = 100, not over the minimum of 100.
    assert truncate_tool_result_text(text, 303, min_keep_chars=100) == "line\n" * 45 + "line" + notice(776)


def test_a_tail_without_a_newline_is_kept_whole_and_the_tail_is_at_most_4000():
    assert truncate_tool_result_text("x" * 1000 + " error", 300, min_keep_chars=0) == (
        "x" * 98 + MIDDLE_OMISSION_MARKER + "x" * 62 + " error" + notice(777)
    )
    cut = truncate_tool_result_text("y" * 20000 + " error", 14000, min_keep_chars=0)
    assert cut.split(MIDDLE_OMISSION_MARKER)[1] == "y" * 3994 + " error" + notice(6078)


def test_a_head_or_a_kept_text_is_cut_at_a_newline_only_past_80_percent():
    # Head of 100 (budget 232) with its newline at 80: kept; the tail's newline at 1 (under 20 %) is dropped.
    text = "a" * 80 + "\n" + "b" * 1000 + "\n" + "z" * 61 + " error"
    assert truncate_tool_result_text(text, 303, min_keep_chars=0) == (
        "a" * 80 + "\n" + "b" * 19 + MIDDLE_OMISSION_MARKER + "z" * 61 + " error" + notice(919)
    )
    plain = "a" * 80 + "\n" + "b" * 200
    assert truncate_tool_result_text(plain, 171, min_keep_chars=0) == "a" * 80 + "\n" + "b" * 19 + notice(181)


def test_a_tail_is_cut_at_its_first_newline_only_before_20_percent():
    # Budget 234: a tail of 70 whose newline is at 14, exactly 20 %: kept whole.
    text = "a" * 500 + "c" * 14 + "\n" + "z" * 49 + " error"
    assert truncate_tool_result_text(text, 305, min_keep_chars=0).split(MIDDLE_OMISSION_MARKER)[1] == (
        "c" * 14 + "\n" + "z" * 49 + " error" + notice(336)
    )
    late = "x" * 1000 + "\n" + "z" * 40 + " error"
    assert truncate_tool_result_text(late, 300, min_keep_chars=0).split(MIDDLE_OMISSION_MARKER)[1] == (
        "x" * 21 + "\n" + "z" * 40 + " error" + notice(818)
    )


def test_a_text_block_with_a_malformed_signature_is_still_text_and_with_text_keeps_other_fields():
    assert text_of(block_from_json({"type": "text", "text": "a", "textSignature": 5})) == "a"
    block = block_from_json({"type": "text", "text": "a", "k": 1, "note": "keep", "content": "a"})
    assert with_text(block, "Z").to_json() == {
        "type": "text",
        "text": "Z",
        "k": 1,
        "note": "keep",
        "content": "Z",
    }


def message(*blocks: str | dict[str, str]) -> ToolResultMessage:
    content = [b if isinstance(b, dict) else {"type": "text", "text": b} for b in blocks]
    parsed = message_from_json({"role": "toolResult", "content": content})
    assert isinstance(parsed, ToolResultMessage)
    return parsed


def cut_texts(cut: ToolResultMessage) -> list[str | None]:
    return [text_of(b) for b in cut.content] if isinstance(cut.content, tuple) else []


def test_a_message_exactly_at_its_budget_is_the_same_message():
    exact = message("x" * 100)
    assert truncate_tool_result_message(exact, 100) is exact


def test_a_message_at_raw_weight_2_counts_its_text_and_notices_double():
    assert cut_texts(truncate_tool_result_message(message("x" * 30), 40, weight=2)) == [notice(30)[:20]]
    cut = truncate_tool_result_message(message("a" * 10, "b" * 300), 146, min_keep_chars=0, weight=2)
    assert cut_texts(cut) == ["a" * 10, notice(300)[:36]]


def test_small_blocks_are_at_most_the_minimum_kept_and_at_least_one_char():
    assert cut_texts(truncate_tool_result_message(message("x", "L" * 3000), 500, min_keep_chars=100)) == [
        "x",
        "L" * 427 + notice(2573),
    ]
    assert cut_texts(
        truncate_tool_result_message(message("s" * 100, "L" * 3000), 500, min_keep_chars=100)
    ) == [
        "s" * 100,
        "L" * 328 + notice(2672),
    ]


def test_an_empty_or_one_char_block_outside_the_small_ones_gets_no_notice_or_its_own():
    assert cut_texts(truncate_tool_result_message(message("", "L" * 300), 100, min_keep_chars=0)) == [
        "",
        "L" * 29 + notice(271),
    ]
    assert cut_texts(truncate_tool_result_message(message("x", "L" * 300), 100, min_keep_chars=0)) == [
        "x",
        notice(300)[:50],
    ]


def test_small_blocks_are_kept_whole_only_when_they_and_the_large_blocks_notices_fit():
    # 50 small + a 72-char notice: 122 fits 122, not 120.
    small, large = "s" * 50, "L" * 3000
    assert cut_texts(truncate_tool_result_message(message(small, large), 122, min_keep_chars=100)) == [
        small,
        notice(3000),
    ]
    assert cut_texts(truncate_tool_result_message(message(small, large), 120, min_keep_chars=100)) == [
        small,
        notice(3000)[:60],
    ]


def test_a_small_block_kept_whole_is_not_cut_to_its_share():
    cut = truncate_tool_result_message(message("s" * 90, "L" * 3000), 200, min_keep_chars=100)
    assert cut_texts(cut) == ["s" * 90, "L" * 38 + notice(2962)]


def test_two_large_blocks_share_the_budget_and_the_minimum_kept_by_size():
    cut = truncate_tool_result_message(
        message("x" * 1000 + " error", "y" * 1000 + " error"), 800, min_keep_chars=100
    )
    assert cut_texts(cut) == [
        "x" * 168 + MIDDLE_OMISSION_MARKER + "x" * 92 + " error" + notice(677),
        "y" * 168 + MIDDLE_OMISSION_MARKER + "y" * 92 + " error" + notice(677),
    ]


def test_a_budget_of_zero_empties_every_text_block_and_other_blocks_stay_in_place():
    assert cut_texts(truncate_tool_result_message(message("abc"), 0)) == [""]
    cut = truncate_tool_result_message(message({"type": "image"}, "L" * 300), 100)
    assert cut_texts(cut) == [None, "L" * 29 + notice(271)]


def test_a_one_char_or_empty_notice_is_shared_like_any_other():
    assert cut_texts(truncate_tool_result_message(message("abcdef"), 3, suffix=lambda n: "!")) == ["ab!"]
    assert cut_texts(truncate_tool_result_message(message("abcdef", "ghijkl"), 6, suffix=lambda n: "")) == [
        "abc",
        "ghi",
    ]
