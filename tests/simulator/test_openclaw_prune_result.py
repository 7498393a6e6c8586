"""OpenClaw's prune result, literally, for every way a pass can end (the explanation the pages show).

One history holds every kind of protected message: a tool result before the first user message, the
user message itself, a tool whose name is denied, and the protected tail from the last assistant on.
Sizes are ASCII chars; a 200-token window is 800 chars, so the 600-char history sits at ratio 0.75.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

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
from simulator.runtimes.openclaw.pruner import Protection, PruneMemo, PruneResult, soft_trim_tool_result
from simulator.runtimes.openclaw.settings import HardClearSettings, SoftTrimSettings

KEEP_WHOLE = SoftTrimSettings(100_000, 0, 0)
SMALL = SoftTrimSettings(10, 3, 3)
NOTE_100 = "\n\n[Tool result trimmed: kept first 3 chars and last 3 chars of 100 chars.]"
MARKER = "[image removed during context pruning]"


def tool(text: str, name: str = "exec") -> JSON:
    return {
        "role": "toolResult",
        "toolCallId": "c",
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "isError": False,
    }


HISTORY_JSON: list[JSON] = [
    tool("b" * 100),
    {"role": "user", "content": "u" * 100, "timestamp": 1},
    tool("x" * 100),
    tool("y" * 100, name="read"),
    {"role": "assistant", "content": [{"type": "text", "text": "a" * 100}], "timestamp": 2},
    tool("z" * 100),
]
HISTORY = messages_from_json(HISTORY_JSON)
PROTECTIONS = (
    Protection(0, "before_first_user"),
    Protection(1, "role_never_pruned"),
    Protection(3, "tool_not_prunable"),
    Protection(4, "keep_last_assistants"),
    Protection(5, "keep_last_assistants"),
)


def settings(
    *,
    keep_last_assistants: float = 1,
    soft_trim: SoftTrimSettings = KEEP_WHOLE,
    soft_trim_ratio: float = 0.5,
    hard_clear_ratio: float = 0.7,
    min_prunable_tool_chars: float = 0,
    hard_clear_enabled: bool = True,
) -> EffectivePruningSettings:
    return EffectivePruningSettings(
        keep_last_assistants=keep_last_assistants,
        soft_trim_ratio=soft_trim_ratio,
        hard_clear_ratio=hard_clear_ratio,
        min_prunable_tool_chars=min_prunable_tool_chars,
        tools={"deny": ["read"]},
        soft_trim=soft_trim,
        hard_clear=HardClearSettings(hard_clear_enabled, "[cleared]"),
    )


def with_index_2(text: str) -> tuple:
    return (*HISTORY[:2], message_from_json(tool(text)), *HISTORY[3:])


def unchanged(s: EffectivePruningSettings, **fields: Any) -> PruneResult:
    base = PruneResult(
        messages=HISTORY,
        returned_same=True,
        changed_indexes=(),
        fates=(),
        protections=(),
        candidate_indexes=(),
        skipped=None,
        stop=None,
        char_window=800,
        chars_before=600,
        chars_after=600,
        ratio_before=None,
        ratio_after_soft_trim=None,
        ratio_after=None,
        soft_trim_ratio=s.soft_trim_ratio,
        hard_clear_ratio=s.hard_clear_ratio,
        prunable_tool_chars=None,
        cutoff_index=4,
        first_user_index=1,
    )
    return replace(base, **fields)


def test_without_a_window_nothing_is_computed():
    s = settings()
    result = prune_context_messages(HISTORY, s, context_window=None)
    assert result == unchanged(s, skipped="no_context_window", char_window=0)
    assert result.messages is HISTORY


def test_a_zero_window_is_no_window():
    s = settings()
    result = prune_context_messages(HISTORY, s, context_window=0)
    assert result == unchanged(s, skipped="no_context_window", char_window=0)


def test_a_positive_override_wins_over_the_model_window_and_a_zero_one_does_not():
    s = settings()
    assert prune_context_messages(HISTORY, s, context_window=None, context_window_tokens_override=200) == (
        prune_context_messages(HISTORY, s, context_window=200)
    )
    ignored = prune_context_messages(HISTORY, s, context_window=200, context_window_tokens_override=0)
    assert ignored.char_window == 800
    tiny = prune_context_messages(HISTORY, s, context_window=200, context_window_tokens_override=0.5)
    assert tiny.char_window == 2


def test_too_few_assistants_skip_the_pass_before_any_ratio():
    s = settings(keep_last_assistants=2)
    result = prune_context_messages(HISTORY, s, context_window=200)
    assert result == unchanged(s, skipped="too_few_assistants", cutoff_index=None)


def test_below_the_soft_trim_ratio_the_input_is_returned_with_its_protections():
    s = settings(soft_trim_ratio=0.76)
    result = prune_context_messages(HISTORY, s, context_window=200)
    assert result == unchanged(
        s, skipped="below_soft_trim_ratio", protections=PROTECTIONS, ratio_before=0.75, ratio_after=0.75
    )
    assert result.messages is HISTORY


def test_soft_trim_then_below_the_hard_clear_ratio():
    s = settings(soft_trim=SMALL, hard_clear_ratio=0.9)
    result = prune_context_messages(HISTORY, s, context_window=200)
    after = 11 + len(NOTE_100)
    total = 600 - 100 + after
    assert result == PruneResult(
        messages=with_index_2("xxx\n...\nxxx" + NOTE_100),
        returned_same=False,
        changed_indexes=(2,),
        fates=(SoftTrimmed(2, 100, after, 100, 0, True),),
        protections=PROTECTIONS,
        candidate_indexes=(2,),
        skipped=None,
        stop="below_hard_clear_ratio",
        char_window=800,
        chars_before=600,
        chars_after=total,
        ratio_before=0.75,
        ratio_after_soft_trim=total / 800,
        ratio_after=total / 800,
        soft_trim_ratio=0.5,
        hard_clear_ratio=0.9,
        prunable_tool_chars=None,
        cutoff_index=4,
        first_user_index=1,
    )


def test_nothing_to_soft_trim_and_below_the_hard_clear_ratio_returns_the_input():
    s = settings(hard_clear_ratio=0.9)
    result = prune_context_messages(HISTORY, s, context_window=200)
    assert result.returned_same
    assert result.messages is HISTORY
    assert (result.stop, result.candidate_indexes, result.ratio_after_soft_trim) == (
        "below_hard_clear_ratio",
        (2,),
        0.75,
    )


def test_hard_clear_disabled_ends_after_soft_trim():
    result = prune_context_messages(HISTORY, settings(hard_clear_enabled=False), context_window=200)
    assert (result.returned_same, result.stop, result.prunable_tool_chars) == (
        True,
        "hard_clear_disabled",
        None,
    )
    assert result.ratio_after == 0.75


def test_too_few_prunable_chars_end_before_hard_clear_and_report_the_sum():
    result = prune_context_messages(HISTORY, settings(min_prunable_tool_chars=101), context_window=200)
    assert (result.returned_same, result.stop, result.prunable_tool_chars) == (
        True,
        "below_min_prunable_tool_chars",
        100,
    )


def test_hard_clear_of_every_candidate_reports_each_clear_and_the_ratios():
    s = settings()
    result = prune_context_messages(HISTORY, s, context_window=200)
    assert result == PruneResult(
        messages=with_index_2("[cleared]"),
        returned_same=False,
        changed_indexes=(2,),
        fates=(HardCleared(2, 100, 9, 0.75),),
        protections=PROTECTIONS,
        candidate_indexes=(2,),
        skipped=None,
        stop="cleared_every_candidate",
        char_window=800,
        chars_before=600,
        chars_after=509,
        ratio_before=0.75,
        ratio_after_soft_trim=0.75,
        ratio_after=509 / 800,
        soft_trim_ratio=0.5,
        hard_clear_ratio=0.7,
        prunable_tool_chars=100,
        cutoff_index=4,
        first_user_index=1,
    )


def test_a_hard_cleared_result_remembers_its_soft_trim():
    s = settings(soft_trim=SMALL, hard_clear_ratio=0.6)
    result = prune_context_messages(HISTORY, s, context_window=200)
    after = 11 + len(NOTE_100)
    soft = SoftTrimmed(2, 100, after, 100, 0, True)
    assert result.fates == (HardCleared(2, after, 9, (600 - 100 + after) / 800, soft),)
    assert result.prunable_tool_chars == after


def test_without_explain_the_protections_are_not_listed():
    result = prune_context_messages(HISTORY, settings(), context_window=200, explain=False)
    assert result.protections == ()
    assert result.changed_indexes == (2,)


def test_an_explicit_predicate_replaces_the_settings_tool_lists():
    result = prune_context_messages(
        HISTORY, settings(), context_window=200, is_tool_prunable=lambda name: False
    )
    assert result.candidate_indexes == ()
    assert result.returned_same
    everything = prune_context_messages(
        HISTORY, settings(), context_window=200, is_tool_prunable=lambda n: True
    )
    assert everything.candidate_indexes == (2, 3)


def test_a_history_without_a_user_message_has_nothing_prunable():
    history = messages_from_json([tool("b" * 100), tool("c" * 100)])
    s = settings(keep_last_assistants=0, soft_trim_ratio=0, hard_clear_ratio=0)
    result = prune_context_messages(history, s, context_window=1)
    assert result.returned_same
    assert (result.first_user_index, result.cutoff_index, result.candidate_indexes) == (None, 2, ())
    assert result.protections == (Protection(0, "before_first_user"), Protection(1, "before_first_user"))


def test_the_estimate_counts_thinking_unless_told_to_drop_it_for_older_assistants():
    thinking: JSON = {
        "role": "assistant",
        "content": [{"type": "thinking", "thinking": "t" * 200}, {"type": "text", "text": "a"}],
    }
    history = messages_from_json(
        [{"role": "user", "content": "u"}, thinking, tool("x" * 10), HISTORY_JSON[4]]
    )
    s = settings(soft_trim_ratio=10)
    assert prune_context_messages(history, s, context_window=200).chars_before == 1 + 201 + 10 + 100
    dropped = prune_context_messages(history, s, context_window=200, drop_thinking_blocks_for_estimate=True)
    assert dropped.chars_before == 1 + 1 + 10 + 100


def test_a_memo_gives_the_same_results_across_calls_and_settings():
    s = settings(soft_trim=SMALL, hard_clear_ratio=0.9)
    memo = PruneMemo(s)
    plain = prune_context_messages(HISTORY, s, context_window=200)
    assert prune_context_messages(HISTORY, s, context_window=200, memo=memo) == plain
    assert prune_context_messages(HISTORY, s, context_window=200, memo=memo) == plain
    other = settings(hard_clear_ratio=0.9)
    assert prune_context_messages(HISTORY, other, context_window=200, memo=memo) == (
        prune_context_messages(HISTORY, other, context_window=200)
    )


def soft(message: JSON, soft_trim: SoftTrimSettings = KEEP_WHOLE) -> tuple[JSON, int, int, bool] | None:
    parsed = message_from_json(message)
    assert isinstance(parsed, ToolResultMessage)
    outcome = soft_trim_tool_result(parsed, settings(soft_trim=soft_trim))
    if outcome is None:
        return None
    new, raw_len, images, trimmed = outcome
    as_json = new.to_json()
    assert isinstance(as_json, dict)
    return as_json["content"], raw_len, images, trimmed


def test_two_images_count_two_and_replacing_them_is_not_a_trim():
    image: JSON = {"type": "image", "data": "abc", "mimeType": "image/png"}
    message: JSON = {
        "role": "toolResult",
        "toolName": "exec",
        "content": [image, {"type": "text", "text": "t"}, image],
    }
    expected_text = f"{MARKER}\nt\n{MARKER}"
    assert soft(message) == ([{"type": "text", "text": expected_text}], 2 * 38 + 1 + 2, 2, False)


def test_other_blocks_beside_an_image_add_no_marker():
    message: JSON = {
        "role": "toolResult",
        "content": [
            {"type": "text", "text": "t"},
            {"type": "other"},
            {"type": "image", "data": "a", "mimeType": "x"},
        ],
    }
    assert soft(message) == ([{"type": "text", "text": f"t\n{MARKER}"}], 1 + 1 + 38, 1, False)


def test_a_text_block_the_parser_keeps_raw_still_gives_its_text():
    # A non-string signature keeps the block raw; its string text is still the part.
    raw_signature: JSON = {"type": "text", "text": "abcdefghijk", "textSignature": 5}
    message: JSON = {"role": "toolResult", "content": [raw_signature]}
    trimmed = soft(message, SoftTrimSettings(5, 2, 2))
    note = "\n\n[Tool result trimmed: kept first 2 chars and last 2 chars of 11 chars.]"
    assert trimmed == ([{"type": "text", "text": "ab\n...\njk" + note}], 11, 0, True)


def test_a_text_block_without_string_text_counts_as_its_json():
    block: JSON = {"type": "text", "text": 12345}
    message: JSON = {"role": "toolResult", "content": [block]}
    as_json = '{"type":"text","text":12345}'
    trimmed = soft(message, SoftTrimSettings(5, 2, 2))
    note = f"\n\n[Tool result trimmed: kept first 2 chars and last 2 chars of {len(as_json)} chars.]"
    assert trimmed == ([{"type": "text", "text": '{"\n...\n5}' + note}], len(as_json), 0, True)


def test_string_or_missing_content_has_no_parts_and_is_left_alone():
    assert soft({"role": "toolResult", "content": "x" * 100}, SMALL) is None
    assert soft({"role": "toolResult"}, SMALL) is None


def test_a_memo_built_for_other_settings_never_serves_a_stale_trim():
    memo = PruneMemo(settings())
    trimming = settings(soft_trim=SMALL, hard_clear_ratio=0.9)
    keeping = settings(hard_clear_ratio=0.9)
    assert prune_context_messages(HISTORY, trimming, context_window=200, memo=memo).changed_indexes == (2,)
    assert prune_context_messages(HISTORY, keeping, context_window=200, memo=memo).returned_same


def test_blocks_that_are_not_objects_are_skipped_not_the_end_of_the_parts():
    message: JSON = {
        "role": "toolResult",
        "content": [{"type": "text", "text": "abc"}, None, 7, {"type": "text", "text": "defgh"}],
    }
    note = "\n\n[Tool result trimmed: kept first 2 chars and last 2 chars of 9 chars.]"
    assert soft(message, SoftTrimSettings(5, 2, 2)) == (
        [{"type": "text", "text": "ab\n...\ngh" + note}],
        9,
        0,
        True,
    )
