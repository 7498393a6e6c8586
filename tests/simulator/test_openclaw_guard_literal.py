"""OpenClaw's tool-result context guard: its own estimator (raw lengths, tool results doubled), literally."""

from __future__ import annotations

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.context_guard import (
    apply_tool_result_context_guard,
    format_context_limit_truncation_notice,
    guard_limits,
    guard_message_chars,
    truncate_tool_result_to_chars,
)
from simulator.runtimes.openclaw.messages import ToolResultMessage, message_from_json, messages_to_json

BRANCH = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
COMPACTION = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)


def chars(raw: JSON) -> int:
    return guard_message_chars(message_from_json(raw))


def test_user_text_counts_raw_utf16_length_without_cjk_weight():
    assert chars({"role": "user", "content": "abcd"}) == 4
    assert chars({"role": "user", "content": "中文"}) == 2
    assert chars({"role": "user", "content": None}) == 0


def test_user_blocks_count_text_images_and_anything_else_as_its_json():
    content: JSON = [
        {"type": "text", "text": "ab"},
        {"type": "text", "text": "xyz", "textSignature": 5},
        {"type": "image", "data": "...", "mimeType": "image/png"},
        {"type": "video", "u": 1},
        {"type": "text", "text": 5},
        None,
        "hi",
    ]
    expected = (
        2 + 3 + 8_000 + len('{"type":"video","u":1}') + len('{"type":"text","text":5}') + len("null") + 2
    )
    assert chars({"role": "user", "content": content}) == expected


def test_assistant_blocks_count_text_thinking_and_tool_call_arguments():
    content: JSON = [
        {"type": "text", "text": "abc"},
        None,
        {"type": "thinking", "thinking": "hmm"},
        {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"a": 1}},
        {"type": "toolCall", "id": "c2", "name": "read"},
        {"type": "redacted_thinking", "data": "zz"},
        {"type": "text", "text": 5},
    ]
    expected = 3 + 0 + 3 + len('{"a":1}') + len("{}") + len('{"type":"redacted_thinking","data":"zz"}') + 24
    assert chars({"role": "assistant", "content": content}) == expected


def test_assistant_thinking_that_is_not_a_string_counts_as_its_json():
    block: JSON = {"type": "thinking", "thinking": 1}
    assert chars({"role": "assistant", "content": [block]}) == len('{"type":"thinking","thinking":1}')


def test_assistant_content_that_is_not_a_list_counts_nothing():
    assert chars({"role": "assistant", "content": "plain"}) == 0


def test_a_tool_result_counts_double():
    assert chars({"role": "toolResult", "content": "abcde"}) == 10
    assert chars({"role": "toolResult", "content": [{"type": "image", "data": "x"}]}) == 16_000
    assert chars({"role": "toolResult", "content": None}) == 0


def test_summaries_count_with_their_wrappers():
    assert chars({"role": "branchSummary", "summary": "s"}) == len(BRANCH + "s" + "</summary>")
    assert chars({"role": "compactionSummary"}) == len(COMPACTION + "\n</summary>")


def test_custom_messages_count_their_content_and_other_roles_256():
    assert chars({"role": "custom", "content": "abc"}) == 3
    custom: JSON = [
        {"type": "text", "text": "ab"},
        {"type": "image"},
        {"type": "x"},
        {"type": "text", "text": 1},
    ]
    assert chars({"role": "custom", "content": custom}) == 2 + 8_000 + len('{"type":"x"}') + 24
    assert chars({"role": "custom", "content": 5}) == 0
    assert chars({"role": "bashExecution", "command": "ls"}) == 256
    assert chars({"role": 7}) == 256
    assert guard_message_chars(message_from_json(5)) == 0


def notice(count: int) -> str:
    return f"[... {count} more characters truncated; rerun with narrower args if needed]"


def tool_result(content: JSON, **fields: JSON) -> ToolResultMessage:
    message = message_from_json({"role": "toolResult", "content": content, **fields})
    assert isinstance(message, ToolResultMessage)
    return message


def test_the_notice_floors_its_count_but_never_below_one():
    assert format_context_limit_truncation_notice(0.5) == notice(1)
    assert format_context_limit_truncation_notice(1.9) == notice(1)
    assert format_context_limit_truncation_notice(2.7) == notice(2)


def test_guard_limits_are_a_share_of_the_window_with_a_1024_floor():
    assert guard_limits(200_000) == (200_000, 720_000)
    assert guard_limits(1_000.9) == (1_024, 3_600)
    assert guard_limits(0.5) == (1_024, 1_024)
    assert guard_limits(285) == (1_024, 1_026)
    assert guard_limits(284) == (1_024, 1_024)


def test_a_tool_result_whose_doubled_estimate_fits_is_the_same_object():
    message = tool_result("a" * 600)
    assert truncate_tool_result_to_chars(message, 1_200) is message


def test_an_oversized_result_is_cut_to_half_the_share_with_the_notice_and_loses_only_details():
    message = tool_result("a" * 600, toolCallId="c", details={"x": 1}, isError=False, foo=1)
    cut = truncate_tool_result_to_chars(message, 1_199)
    # budget 599: a notice for 1 char (69 long) leaves 530, whose notice for 70 chars (70 long) leaves 529.
    assert messages_to_json([cut]) == [
        {
            "role": "toolResult",
            "content": "a" * 529 + notice(71),
            "toolCallId": "c",
            "isError": False,
            "foo": 1,
        }
    ]


def test_the_body_budget_settles_after_the_notice_grows_a_digit():
    cut = truncate_tool_result_to_chars(tool_result("a" * 600), 1_024)
    assert cut.content == "a" * 441 + notice(159)


def test_a_newline_past_seventy_percent_of_the_budget_becomes_the_cut():
    assert truncate_tool_result_to_chars(tool_result("a" * 309 + "\n" + "b" * 290), 1_024).content == (
        "a" * 309 + notice(291)
    )
    assert truncate_tool_result_to_chars(tool_result("a" * 308 + "\n" + "b" * 291), 1_024).content == (
        "a" * 308 + "\n" + "b" * 132 + notice(159)
    )


def test_a_newline_right_at_the_cut_counts_and_one_after_it_does_not():
    at_cut = tool_result("a" * 441 + "\n" + "b" * 158)
    assert truncate_tool_result_to_chars(at_cut, 1_024).content == "a" * 441 + notice(159)
    after_cut = tool_result("a" * 442 + "\n" + "b" * 157)
    assert truncate_tool_result_to_chars(after_cut, 1_024).content == "a" * 441 + notice(159)


def test_a_result_without_text_is_replaced_by_a_notice_of_half_the_excess():
    cut = truncate_tool_result_to_chars(tool_result([{"type": "image", "data": "x"}]), 1_024)
    assert messages_to_json([cut]) == [
        {"role": "toolResult", "content": [{"type": "text", "text": notice(7_488)}]}
    ]


def test_text_that_fits_half_the_share_is_kept_without_the_images():
    message = tool_result([{"type": "text", "text": "a" * 500}, {"type": "image", "data": "x"}])
    assert messages_to_json([truncate_tool_result_to_chars(message, 1_024)]) == [
        {"role": "toolResult", "content": [{"type": "text", "text": "a" * 500}]}
    ]


def test_a_share_below_two_chars_leaves_only_the_notice():
    assert truncate_tool_result_to_chars(tool_result("a" * 600), 1).content == notice(600)


def test_the_guard_truncates_each_oversized_result_and_reports_the_total():
    history = [
        message_from_json({"role": "user", "content": "q" * 100}),
        tool_result("a" * 600),
        tool_result("ok"),
    ]
    outcome = apply_tool_result_context_guard(history, 1_000)
    assert outcome.messages is not None
    assert outcome.messages[0] is history[0] and outcome.messages[2] is history[2]
    assert outcome.messages[1] == tool_result("a" * 441 + notice(159))
    assert (outcome.truncated_indexes, outcome.max_single_tool_result_chars, outcome.max_context_chars) == (
        (1,),
        1_024,
        3_600,
    )
    assert (outcome.context_chars, outcome.overflow) == (100 + 2 * 512 + 4, False)


def test_a_context_exactly_at_the_threshold_passes_and_one_char_more_overflows():
    at = apply_tool_result_context_guard([message_from_json({"role": "user", "content": "q" * 3_600})], 1_000)
    assert (at.overflow, at.context_chars, at.messages is not None) == (False, 3_600, True)
    over = apply_tool_result_context_guard(
        [message_from_json({"role": "user", "content": "q" * 3_601})], 1_000
    )
    assert (over.overflow, over.context_chars, over.messages, over.truncated_indexes) == (
        True,
        3_601,
        None,
        (),
    )


def test_an_untouched_context_is_returned_as_the_same_messages():
    history = (message_from_json({"role": "user", "content": "q"}), tool_result("ok"))
    outcome = apply_tool_result_context_guard(history, 1_000)
    assert outcome.messages == history and outcome.truncated_indexes == ()


def test_assistant_text_after_other_blocks_adds_to_them():
    content: JSON = [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "abc"}]
    assert chars({"role": "assistant", "content": content}) == 6


def test_a_share_smaller_than_the_notice_keeps_no_text_at_all():
    assert truncate_tool_result_to_chars(tool_result("a" * 600), 100).content == notice(600)


def test_a_newline_exactly_at_seventy_percent_of_the_body_is_not_used():
    # max 902: budget 451, body 380 after the notice, 70 % of it is 266.
    text = "a" * 266 + "\n" + "b" * 333
    assert truncate_tool_result_to_chars(tool_result(text), 902).content == text[:380] + notice(220)


def test_a_newline_just_before_the_cut_becomes_the_cut():
    text = "a" * 440 + "\n" + "b" * 159
    assert truncate_tool_result_to_chars(tool_result(text), 1_024).content == "a" * 440 + notice(160)


def test_the_cut_counts_utf16_units_and_may_split_a_surrogate_pair():
    smile = "\U0001f600"
    assert truncate_tool_result_to_chars(tool_result(smile + "a" * 598), 1_024).content == (
        smile + "a" * 439 + notice(159)
    )
    assert truncate_tool_result_to_chars(tool_result("a" * 440 + smile + "b" * 158), 1_024).content == (
        "a" * 440 + "\ud83d" + notice(159)
    )


def test_a_textless_result_one_char_over_announces_one_char():
    cut = truncate_tool_result_to_chars(tool_result([{"type": "x"}]), 23)  # estimate 2 * 12 = 24
    assert messages_to_json([cut]) == [
        {"role": "toolResult", "content": [{"type": "text", "text": notice(1)}]}
    ]


def test_a_one_char_share_replaces_even_a_one_char_text_by_the_notice():
    assert truncate_tool_result_to_chars(tool_result("a"), 1).content == notice(1)


def test_an_overflow_still_reports_both_limits():
    over = apply_tool_result_context_guard(
        [message_from_json({"role": "user", "content": "q" * 3_601})], 1_000
    )
    assert (over.max_single_tool_result_chars, over.max_context_chars) == (1_024, 3_600)


def test_an_untouched_context_is_the_same_tuple():
    history = (message_from_json({"role": "user", "content": "q"}), tool_result("ok"))
    assert apply_tool_result_context_guard(history, 1_000).messages is history
