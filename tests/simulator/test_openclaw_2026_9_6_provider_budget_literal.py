"""OpenClaw 2026.9.6's provider-bound tool-result caps and elision, case by case."""

from __future__ import annotations

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.messages import ToolResultMessage, message_from_json, messages_to_json
from simulator.runtimes.openclaw.v2026_9_6.provider_budget import (
    AGGREGATE_ELISION_MARKER,
    _trailing_tool_results,
    aggregate_max_chars,
    clear_tool_result_text,
    compact_recovery_suffix,
    live_tool_result_max_chars,
    text_budget,
)


def tool_result(content: JSON) -> ToolResultMessage:
    message = message_from_json({"role": "toolResult", "content": content})
    assert isinstance(message, ToolResultMessage)
    return message


def test_the_compact_suffix_floors_the_count_and_announces_at_least_one():
    assert [compact_recovery_suffix(x) for x in (0, 1.9, 250.7)] == [
        "[... 1 chars truncated; narrow args]",
        "[... 1 chars truncated; narrow args]",
        "[... 250 chars truncated; narrow args]",
    ]


def test_the_per_result_cap_is_the_smaller_of_30_percent_of_the_window_times_4_and_16k_32k_64k():
    windows = (1000, 13_334, 99_999.9, 100_000, 199_999, 200_000, 0)
    assert [live_tool_result_max_chars(w) for w in windows] == [1200, 16000, 16000, 32000, 32000, 64000, 0]


def test_the_aggregate_cap_is_the_larger_of_four_results_and_twice_the_window():
    cases = ((1000, 1200), (100_000, 16_000), (0, 0), (0.5, 3))
    assert [aggregate_max_chars(w, p) for w, p in cases] == [4800, 200000, 4, 12]


def test_only_a_tool_results_text_blocks_count_toward_its_text_budget():
    blocks: JSON = [{"type": "text", "text": "ab"}, {"type": "image"}, {"type": "text", "text": "中"}]
    assert text_budget(tool_result(blocks)) == 6
    assert text_budget(tool_result("abc")) == 0
    assert text_budget(message_from_json({"role": "user", "content": [{"type": "text", "text": "x"}]})) == 0


def test_clearing_replaces_each_text_block_by_the_marker_within_what_remains_of_the_budget():
    message = tool_result(
        [{"type": "text", "text": "a" * 500}, {"type": "image"}, {"type": "text", "text": "b" * 500}]
    )
    assert messages_to_json([clear_tool_result_text(message, 130)])[0]["content"] == [
        {"type": "text", "text": AGGREGATE_ELISION_MARKER},
        {"type": "image"},
        {"type": "text", "text": "[tool result elided: aggrega"},
    ]
    string_result = tool_result("s")
    assert clear_tool_result_text(string_result, 5) is string_result


def test_the_trailing_batch_is_the_tool_results_after_the_last_assistant_message():
    raws: list[JSON] = [
        {"role": "user", "content": "u"},
        {"role": "toolResult", "content": "a"},
        {"role": "assistant", "content": "x"},
        {"role": "toolResult", "content": "b"},
        {"role": "user", "content": "u"},
        {"role": "toolResult", "content": "c"},
    ]
    messages = [message_from_json(r) for r in raws]
    assert sorted(_trailing_tool_results(messages)) == [3, 5]
    assert sorted(_trailing_tool_results(messages[:3])) == []
