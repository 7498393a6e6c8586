"""OpenClaw 2026.9.6's tool-result context guard, case by case (sizes, image retention, notices)."""

from __future__ import annotations

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.messages import (
    ToolResultMessage,
    block_from_json,
    message_from_json,
    messages_to_json,
)
from simulator.runtimes.openclaw.v2026_9_6.context_guard import (
    _omission_notice,
    apply_tool_result_context_guard,
    guard_message_chars,
    tool_result_content_chars,
    truncate_tool_result_to_chars,
)

IMAGE: JSON = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
NONE_FIT = "[1 image omitted from context; no images fit the context limit; rerun with fewer images]"
CUT = "more characters truncated; rerun with narrower args if needed]"


def tool_result(content: JSON, **extra: JSON) -> ToolResultMessage:
    raw = {"role": "toolResult", "toolCallId": "c", "toolName": "t", "content": content, "isError": False}
    message = message_from_json({**raw, **extra})
    assert isinstance(message, ToolResultMessage)
    return message


def sent(message: ToolResultMessage) -> JSON:
    return messages_to_json([message])[0]


def test_text_counts_twice_with_cjk_weights_an_image_16000_and_other_blocks_their_json_twice():
    blocks = [{"type": "text", "text": "ab"}, IMAGE, {"type": "other"}, {"type": "text", "text": "中"}]
    assert tool_result_content_chars(tuple(block_from_json(b) for b in blocks)) == 4 + 16_000 + 32 + 4


def test_message_sizes_string_and_excluded_results_and_other_roles():
    assert guard_message_chars(tool_result([{"type": "text", "text": "abc"}])) == 6
    assert guard_message_chars(tool_result("abc")) == 6
    assert guard_message_chars(tool_result(None)) == 0
    assert guard_message_chars(tool_result("abc", excludeFromContext=True)) == 0
    assert guard_message_chars(tool_result("abc", excludeFromContext=1)) == 6
    assert guard_message_chars(message_from_json({"role": "user", "content": "hello"})) == 5


def test_the_omission_notice_counts_images_and_says_when_none_fit():
    assert [_omission_notice(3, r) for r in (0, 2, 1)] == [
        "[3 images omitted from context; no images fit the context limit; rerun with fewer images]",
        "[1 image omitted from context; rerun with fewer images]",
        "[2 images omitted from context; rerun with fewer images]",
    ]


def test_a_result_that_fits_is_returned_as_it_is():
    message = tool_result("x" * 512)
    assert truncate_tool_result_to_chars(message, 1024) is message


def test_a_string_result_stays_a_string_cut_at_its_weighted_budget_and_loses_its_details():
    message = tool_result("x" * 3000, details={"full": True})
    assert sent(truncate_tool_result_to_chars(message, 1024)) == {
        "role": "toolResult",
        "content": "x" * 440 + f"[... 2560 {CUT}",
        "toolCallId": "c",
        "toolName": "t",
        "isError": False,
    }


def test_as_many_images_as_fit_are_kept_and_the_rest_announced():
    text = {"type": "text", "text": "y" * 100}
    message = tool_result([text, IMAGE, IMAGE, IMAGE])
    notice = {"type": "text", "text": "[1 image omitted from context; rerun with fewer images]"}
    assert sent(truncate_tool_result_to_chars(message, 40_000))["content"] == [text, IMAGE, IMAGE, notice]


def test_without_room_for_an_image_the_text_is_cut_and_every_image_announced():
    message = tool_result([{"type": "text", "text": "a\n" * 1000}, IMAGE])
    cut = truncate_tool_result_to_chars(message, 1024)
    assert sent(cut)["content"] == [
        {"type": "text", "text": "a\n" * 176 + f"[... 1648 {CUT}"},
        {"type": "text", "text": NONE_FIT},
    ]
    assert guard_message_chars(cut) == 1024


def test_other_blocks_that_do_not_fit_become_a_notice_of_their_size():
    message = tool_result([{"type": "text", "text": "z" * 3000}, {"type": "other", "v": "q" * 600}])
    assert guard_message_chars(message) == 7246
    cut = truncate_tool_result_to_chars(message, 1024)
    assert sent(cut)["content"] == [
        {"type": "text", "text": "z" * 369 + f"[... 2631 {CUT}"},
        {"type": "text", "text": f"[... 623 {CUT}"},
    ]
    assert guard_message_chars(cut) == 1024


def test_the_guard_rewrites_only_oversized_tool_results_at_the_1024_floor():
    small, big = tool_result("s"), tool_result("x" * 3000)
    user = message_from_json({"role": "user", "content": "hi"})
    outcome = apply_tool_result_context_guard([user, small, big], 100)
    assert outcome.truncated_indexes == (2,)
    assert outcome.max_single_tool_result_chars == 1024
    assert outcome.messages[:2] == (user, small)
    assert sent(outcome.messages[2])["content"] == "x" * 440 + f"[... 2560 {CUT}"
    untouched = apply_tool_result_context_guard([user, small], 100)
    assert untouched.messages == (user, small) and untouched.truncated_indexes == ()


def test_a_raw_string_block_counts_its_length_twice_and_an_unknown_role_counts_nothing():
    assert tool_result_content_chars((block_from_json("abc"),)) == 6
    assert guard_message_chars(message_from_json({"role": "custom", "x": "abcd"})) == 0


def test_when_every_image_fits_the_text_is_cut_with_no_notice_and_the_details_are_dropped():
    message = tool_result([{"type": "text", "text": "y" * 20_000}, IMAGE], details={"a": 1})
    notice = f"[... 18073 {CUT}"
    assert sent(truncate_tool_result_to_chars(message, 20_000)) == {
        "role": "toolResult",
        "content": [{"type": "text", "text": "y" * (2000 - len(notice)) + notice}, IMAGE],
        "toolCallId": "c",
        "toolName": "t",
        "isError": False,
    }
