"""OpenClaw 2026.7.1 pruning rules at their exact boundaries (spec §4), with literal strings and sizes.

Sizes are in the pruner's units: ASCII text counts one char per character, a window of ``W`` tokens
is ``4 * W`` chars, and the ratio is ``total chars / char window``.
"""

from __future__ import annotations

import pytest

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw import (
    EffectivePruningSettings,
    HardCleared,
    SoftTrimmed,
    message_from_json,
    messages_from_json,
    prune_context_messages,
)
from simulator.runtimes.openclaw.messages import ToolResultMessage
from simulator.runtimes.openclaw.pruner import (
    PruneResult,
    find_assistant_cutoff_index,
    resolve_window_tokens,
    soft_trim_tool_result,
)
from simulator.runtimes.openclaw.settings import HardClearSettings, SoftTrimSettings

KEEP_WHOLE = SoftTrimSettings(100_000, 0, 0)
NOTE = "\n\n[Tool result trimmed: kept first {head} chars and last {tail} chars of {raw} chars.]"


def user(text: str) -> JSON:
    return {"role": "user", "content": text, "timestamp": 1}


def assistant(text: str) -> JSON:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "timestamp": 2}


def tool(*texts: str, image: bool = False) -> JSON:
    content: list[JSON] = [{"type": "text", "text": t} for t in texts]
    if image:
        content.append({"type": "image", "data": "abc", "mimeType": "image/png"})
    return {"role": "toolResult", "toolCallId": "c", "toolName": "exec", "content": content, "isError": False}


def settings(
    *,
    soft_trim: SoftTrimSettings = KEEP_WHOLE,
    soft_trim_ratio: float = 0.0,
    hard_clear_ratio: float = 10.0,
    min_prunable_tool_chars: float = 0,
    hard_clear_enabled: bool = True,
) -> EffectivePruningSettings:
    return EffectivePruningSettings(
        keep_last_assistants=0,
        soft_trim_ratio=soft_trim_ratio,
        hard_clear_ratio=hard_clear_ratio,
        min_prunable_tool_chars=min_prunable_tool_chars,
        soft_trim=soft_trim,
        hard_clear=HardClearSettings(hard_clear_enabled, "[cleared]"),
    )


def soft_trim(message: JSON, max_chars: float, head: float, tail: float) -> str | None:
    """The soft-trimmed text of one tool result, or None when it is left alone."""
    parsed = message_from_json(message)
    assert isinstance(parsed, ToolResultMessage)
    outcome = soft_trim_tool_result(parsed, settings(soft_trim=SoftTrimSettings(max_chars, head, tail)))
    if outcome is None:
        return None
    trimmed = outcome[0].to_json()
    assert isinstance(trimmed, dict)
    content = trimmed["content"]
    assert isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict)
    text = content[0]["text"]
    assert isinstance(text, str)
    return text


def prune(history: list[JSON], s: EffectivePruningSettings, window: float) -> PruneResult:
    return prune_context_messages(messages_from_json(history), s, context_window=window)


# Soft-trim bounds: rawLen <= maxChars, or head + tail >= rawLen, leaves the text alone.


def test_a_result_exactly_max_chars_long_is_not_soft_trimmed():
    assert soft_trim(tool("abcdefghij"), 10, 3, 3) is None


def test_a_result_one_char_over_max_chars_is_soft_trimmed():
    assert soft_trim(tool("abcdefghijk"), 10, 3, 3) == "abc\n...\nijk" + NOTE.format(head=3, tail=3, raw=11)


def test_head_plus_tail_equal_to_the_raw_length_leaves_the_result_alone():
    assert soft_trim(tool("abcdefghijk"), 5, 6, 5) is None
    assert soft_trim(tool("abcdefghijk"), 5, 0, 11) is None


def test_head_plus_tail_one_below_the_raw_length_trims():
    assert soft_trim(tool("abcdefghijk"), 5, 5, 5) == "abcde\n...\nghijk" + NOTE.format(
        head=5, tail=5, raw=11
    )


def test_the_raw_length_counts_one_separator_between_parts():
    # "AAAAA" + "\n" + "BB" + "\n" + "CCC" is 12 chars; as a single part it would be 10.
    assert soft_trim(tool("AAAAA", "BB", "CCC"), 12, 0, 0) is None
    assert soft_trim(tool("AAAAA", "BB", "CCC"), 11, 0, 0) == "\n...\n" + NOTE.format(head=0, tail=0, raw=12)


@pytest.mark.parametrize(
    ("head", "expected"),
    [(4, "AAAA"), (5, "AAAAA"), (6, "AAAAA\n"), (7, "AAAAA\nB"), (8, "AAAAA\nBB"), (9, "AAAAA\nBB\n")],
)
def test_a_head_spans_parts_and_their_separators(head, expected):
    text = soft_trim(tool("AAAAA", "BB", "CCC"), 0, head, 0)
    assert text == expected + "\n...\n" + NOTE.format(head=head, tail=0, raw=12)


@pytest.mark.parametrize(
    ("tail", "expected"),
    [(2, "CC"), (3, "CCC"), (4, "\nCCC"), (5, "B\nCCC"), (6, "BB\nCCC"), (7, "\nBB\nCCC"), (8, "A\nBB\nCCC")],
)
def test_a_tail_is_built_from_several_parts_backwards(tail, expected):
    text = soft_trim(tool("AAAAA", "BB", "CCC"), 0, 0, tail)
    assert text == "\n...\n" + expected + NOTE.format(head=0, tail=tail, raw=12)


def test_the_documented_worked_example():
    text = soft_trim(tool("AAAAA", "BBBBB"), 5, 7, 3)
    assert text == "AAAAA\nB\n...\nBBB" + NOTE.format(head=7, tail=3, raw=11)


def test_fractional_head_and_tail_slice_truncated_counts_but_the_note_keeps_them():
    text = soft_trim(tool("abcdefghijk"), 5, 2.7, 1.5)
    assert text == "ab\n...\nk" + NOTE.format(head=2.7, tail=1.5, raw=11)


def test_fractional_head_and_tail_are_compared_with_the_raw_length_untruncated():
    # 5.5 + 5.5 = 11 >= 11: left alone, although the truncated counts (5 + 5) would be below it.
    assert soft_trim(tool("abcdefghijk"), 5, 5.5, 5.5) is None
    assert soft_trim(tool("abcdefghijk"), 5, 5.5, 5.4) == "abcde\n...\nghijk" + NOTE.format(
        head=5.5, tail=5.4, raw=11
    )


def test_a_fractional_max_chars_is_compared_untruncated():
    assert soft_trim(tool("abcdefghijk"), 10.5, 1, 1) == "a\n...\nk" + NOTE.format(head=1, tail=1, raw=11)
    assert soft_trim(tool("abcdefghijk"), 11.0, 1, 1) is None


def test_a_negative_head_or_tail_counts_as_zero():
    assert soft_trim(tool("abcdefghijk"), 5, -3, 2) == "\n...\njk" + NOTE.format(head=0, tail=2, raw=11)


def test_an_image_counts_its_marker_in_the_raw_length():
    # "abc" + "\n" + the 38-char marker = 42 chars.
    marker = "[image removed during context pruning]"
    assert soft_trim(tool("abc", image=True), 42, 0, 0) == "abc\n" + marker
    trimmed = soft_trim(tool("abc", image=True), 41, 2, 3)
    assert trimmed == "ab\n...\nng]" + NOTE.format(head=2, tail=3, raw=42)


def test_an_empty_result_is_left_alone():
    assert soft_trim(tool(), 0, 0, 0) is None


# The ratios: equal to softTrimRatio proceeds, equal to hardClearRatio prunes.


def test_a_ratio_equal_to_soft_trim_ratio_soft_trims():
    # 100 + 100 = 200 chars in a 100-token (400-char) window: ratio 0.5.
    history = [user("u" * 100), tool("x" * 100)]
    s = settings(soft_trim=SoftTrimSettings(10, 3, 3), soft_trim_ratio=0.5)
    result = prune(history, s, window=100)
    assert result.ratio_before == 0.5
    assert result.changed_indexes == (1,)
    chars_after = 3 + 5 + 3 + len(NOTE.format(head=3, tail=3, raw=100))
    assert result.fates == (SoftTrimmed(1, 100, chars_after, 100, 0, True),)


def test_a_ratio_just_below_soft_trim_ratio_returns_the_input():
    history = [user("u" * 99), tool("x" * 100)]
    s = settings(soft_trim=SoftTrimSettings(10, 3, 3), soft_trim_ratio=0.5)
    result = prune(history, s, window=100)
    assert result.returned_same
    assert result.skipped == "below_soft_trim_ratio"
    assert result.ratio_before == 199 / 400


HARD = [user("u" * 100), tool("x" * 100), tool("y" * 100), assistant("z" * 100)]


def test_a_ratio_equal_to_hard_clear_ratio_hard_clears_until_below_it():
    # 400 chars in an 800-char window: 0.5; clearing the first result leaves 309 chars (0.38625).
    result = prune(HARD, settings(hard_clear_ratio=0.5), window=200)
    assert result.changed_indexes == (1,)
    assert result.fates == (HardCleared(1, 100, 9, 0.5),)
    assert result.stop == "cleared_until_below_hard_clear_ratio"
    assert result.chars_after == 309


def test_a_ratio_just_below_hard_clear_ratio_keeps_every_result():
    result = prune(HARD, settings(hard_clear_ratio=0.5000001), window=200)
    assert result.returned_same
    assert result.stop == "below_hard_clear_ratio"


def test_a_ratio_that_reaches_hard_clear_ratio_exactly_mid_pass_clears_the_next_result_too():
    # 491 chars in 800: after the first clear 491 - 100 + 9 = 400, exactly 0.5, so the second goes too.
    history = [user("u" * 191), tool("x" * 100), tool("y" * 100), assistant("z" * 100)]
    result = prune(history, settings(hard_clear_ratio=0.5), window=200)
    assert result.changed_indexes == (1, 2)
    assert result.fates == (HardCleared(1, 100, 9, 491 / 800), HardCleared(2, 100, 9, 0.5))
    assert result.stop == "cleared_every_candidate"
    assert result.chars_after == 309


def test_prunable_chars_equal_to_min_prunable_tool_chars_hard_clear():
    result = prune(HARD, settings(hard_clear_ratio=0.5, min_prunable_tool_chars=200), window=200)
    assert result.prunable_tool_chars == 200
    assert result.changed_indexes == (1,)


def test_prunable_chars_one_below_min_prunable_tool_chars_stop_before_hard_clear():
    result = prune(HARD, settings(hard_clear_ratio=0.5, min_prunable_tool_chars=201), window=200)
    assert result.returned_same
    assert result.stop == "below_min_prunable_tool_chars"


def test_hard_clear_disabled_stops_after_soft_trim():
    result = prune(HARD, settings(hard_clear_ratio=0.5, hard_clear_enabled=False), window=200)
    assert result.returned_same
    assert result.stop == "hard_clear_disabled"


# The window and the protected tail.


def test_the_window_is_a_positive_override_else_a_positive_model_window():
    assert resolve_window_tokens(None, None) is None
    assert resolve_window_tokens(0, None) is None
    assert resolve_window_tokens(-5, None) is None
    assert resolve_window_tokens(float("inf"), None) is None
    assert resolve_window_tokens(0.5, None) == 0.5
    assert resolve_window_tokens(100, 0) == 100
    assert resolve_window_tokens(100, 0.5) == 0.5
    assert resolve_window_tokens(100, float("nan")) == 100
    assert resolve_window_tokens(None, 7) == 7


def test_a_window_under_one_char_still_prunes():
    # 0.2 tokens is a 0.8-char window: still a window, so the 200 chars are far above every ratio.
    result = prune([user("u" * 100), tool("x" * 100)], settings(hard_clear_ratio=0.5), window=0.2)
    assert result.char_window == 0.8
    assert result.changed_indexes == (1,)


def test_the_cutoff_is_the_kth_assistant_from_the_end_even_at_the_start():
    history = messages_from_json([assistant("a"), assistant("b"), user("u"), tool("x")])
    assert find_assistant_cutoff_index(history, 1) == 1
    assert find_assistant_cutoff_index(history, 2) == 0
    assert find_assistant_cutoff_index(history, 3) is None
    assert find_assistant_cutoff_index(history, 0) == 4
    assert find_assistant_cutoff_index(history, -1) == 4
