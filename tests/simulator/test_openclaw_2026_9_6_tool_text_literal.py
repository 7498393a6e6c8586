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
