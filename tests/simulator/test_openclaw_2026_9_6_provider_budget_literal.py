"""OpenClaw 2026.9.6's provider-bound tool-result caps and elision, case by case."""

from __future__ import annotations

import math

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.messages import (
    AgentMessage,
    ToolResultMessage,
    message_from_json,
    messages_to_json,
)
from simulator.runtimes.openclaw.v2026_9_6.cache_ttl import ProjectionState
from simulator.runtimes.openclaw.v2026_9_6.provider_budget import (
    AGGREGATE_ELISION_MARKER,
    _trailing_tool_results,
    aggregate_max_chars,
    apply_provider_budget,
    clear_tool_result_text,
    compact_recovery_suffix,
    live_tool_result_max_chars,
    text_budget,
)
from simulator.runtimes.openclaw.v2026_9_6.tool_result_text import MIDDLE_OMISSION_MARKER, text_of


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


def test_an_infinite_budget_is_accepted_when_there_is_no_text_to_clear():
    images = tool_result([{"type": "image"}])
    assert messages_to_json([clear_tool_result_text(images, math.inf)]) == messages_to_json([images])


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


def test_clearing_to_a_budget_of_zero_or_of_exactly_one_marker_leaves_the_later_blocks_empty():
    two_blocks = tool_result([{"type": "text", "text": "a" * 500}, {"type": "text", "text": "b" * 500}])
    cleared = [messages_to_json([clear_tool_result_text(two_blocks, b)])[0]["content"] for b in (0, 102)]
    assert cleared == [
        [{"type": "text", "text": ""}, {"type": "text", "text": ""}],
        [{"type": "text", "text": AGGREGATE_ELISION_MARKER}, {"type": "text", "text": ""}],
    ]


def test_without_an_assistant_message_every_tool_result_is_in_the_trailing_batch():
    messages = [tool_result("a"), tool_result("b"), tool_result("c")]
    assert sorted(_trailing_tool_results(messages)) == [0, 1, 2]


# ``truncateOversizedToolResultsInMessages`` and ``buildAggregateToolResultReplacements``
# (tool-result-truncation.ts, see the module docstring). A window of 1,000 tokens caps one result at
# 1,200 chars and all of them at 4,800; a window of 100 at 120 and 480. The one-char context-limit notice
# is 69 chars long, the compact suffix's 36, the elision marker 102.

NOTICE = "more characters truncated; rerun with narrower args if needed]"


def result(call_id: str | None, text: str) -> ToolResultMessage:
    raw: dict[str, JSON] = {"role": "toolResult", "content": [{"type": "text", "text": text}]}
    if call_id is not None:
        raw["toolCallId"] = call_id
    return tool_result_message(raw)


def tool_result_message(raw: JSON) -> ToolResultMessage:
    message = message_from_json(raw)
    assert isinstance(message, ToolResultMessage)
    return message


ASSISTANT = message_from_json({"role": "assistant", "content": [{"type": "text", "text": "x"}]})
USER = message_from_json({"role": "user", "content": "u"})


def texts(messages: tuple[AgentMessage, ...]) -> list[str | None]:
    """The first text of each tool result (None for other messages)."""
    out: list[str | None] = []
    for m in messages:
        blocks = m.content if isinstance(m, ToolResultMessage) and isinstance(m.content, tuple) else ()
        out.append(text_of(blocks[0]) if blocks else None)
    return out


def projected(state: ProjectionState) -> dict[str, tuple[str | None, list[str | None]]]:
    return {key: (p.mode, [text_of(b) for b in p.content]) for key, p in state.projections}


LINES = "line\n" * 300 + "error"  # 1,505 chars whose tail names an error


def test_an_oversized_result_is_cut_to_the_cap_and_only_the_trailing_batch_keeps_its_minimum():
    # Outside the trailing batch the minimum kept is 0, so an important tail is kept after the omission
    # marker; in it the minimum is 2,000 (capped by the budget), which leaves no room for head + tail.
    messages = (USER, ASSISTANT, result("a", LINES), result("s", "short"), result("x", "x" * 1200))
    messages += (ASSISTANT, result("b", LINES))
    outcome = apply_provider_budget(messages, 1000, ProjectionState())
    cut_a = "line\n" * 144 + "line" + MIDDLE_OMISSION_MARKER + "line\n" * 66 + f"error[... 383 {NOTICE}"
    cut_b = "line\n" * 225 + f"line[... 376 {NOTICE}"
    assert texts(outcome.messages) == [None, None, cut_a, "short", "x" * 1200, None, cut_b]
    assert [outcome.messages[i] is messages[i] for i in (0, 1, 3, 4, 5)] == [True] * 5
    assert (outcome.oversized, outcome.aggregate) == ((2, 6), ())
    assert projected(outcome.state) == {"tool:a": (None, [cut_a]), "tool:b": (None, [cut_b])}
    assert outcome.state.frozen == {"tool:a", "tool:b", "tool:s", "tool:x"}


def test_a_later_call_replays_the_recorded_cuts_and_cuts_nothing_again():
    messages = (USER, ASSISTANT, result("a", LINES), ASSISTANT, result("b", LINES))
    first = apply_provider_budget(messages, 1000, ProjectionState())
    again = apply_provider_budget(messages, 1000, first.state)
    assert texts(again.messages) == texts(first.messages)
    assert (again.oversized, again.aggregate, again.state) == ((), (), first.state)


def test_a_result_replayed_from_a_cache_ttl_projection_is_cut_and_recorded_in_that_mode():
    # A cache-TTL ("soft") projection replaces the whole content; the cut keeps its mode.
    source = result("a", "a" * 3000)
    state = ProjectionState().record("tool:a", result("a", "p" * 1500), "soft")
    outcome = apply_provider_budget((ASSISTANT, source, USER), 1000, state)
    cut = "p" * 1129 + f"[... 371 {NOTICE}"
    assert texts(outcome.messages) == [None, cut, None]
    assert projected(outcome.state) == {"tool:a": ("soft", [cut])}
    assert outcome.oversized == (1,)


def test_a_window_under_4_tokens_still_allows_one_char_per_result():
    # ``max(1, resolveLiveToolResultMaxChars(...))``: 30 % of 3 tokens times 4 floors to 0.
    cut = [
        texts(apply_provider_budget((result("a", "abc"),), w, ProjectionState()).messages) for w in (0, 3, 4)
    ]
    assert cut == [["["], ["["], ["abc"]]


def test_messages_within_every_budget_are_returned_as_they_are_and_only_their_keys_are_frozen():
    messages = (USER, ASSISTANT, result("a", "x" * 1200), result(None, "y"))
    outcome = apply_provider_budget(messages, 1000, ProjectionState())
    assert outcome.messages is messages
    assert outcome.state.frozen == {"tool:a"}
    assert (outcome.state.projections, outcome.state.sources) == ((), (("tool:a", ("x" * 1200,)),))
    assert (outcome.oversized, outcome.aggregate) == ((), ())
    plain = (USER, ASSISTANT)
    assert apply_provider_budget(plain, 1000, ProjectionState()) == type(outcome)(
        plain, ProjectionState(), (), ()
    )


def test_over_the_aggregate_budget_unfrozen_results_outside_the_trailing_batch_are_cut_oldest_first():
    # 6 x 1,190 + 60 = 7,200 chars, 2,400 over 4,800. "a" was sent before (frozen), the 60-char result is at
    # or under its floor, "d" and "e" are the trailing batch; the key-less result and "b" go down to the
    # floor and "c" by the 158 still over (keeping its important tail).
    messages = (USER, ASSISTANT, result("a", "a" * 1190), result(None, "n" * 60), result(None, "k" * 1190))
    messages += (result("b", "b" * 1190), result("c", "c\n" * 592 + "error"), ASSISTANT)
    messages += (result("d", "d" * 1190), result("e", "e" * 1190))
    outcome = apply_provider_budget(messages, 1000, ProjectionState(frozen=frozenset({"tool:a"})))
    floor = f"[... 1190 {NOTICE}"[:69]
    cut_c = "c\n" * 304 + "c" + MIDDLE_OMISSION_MARKER + "c\n" * 141 + f"error[... 230 {NOTICE}"
    assert texts(outcome.messages)[:8] == [None, None, "a" * 1190, "n" * 60, floor, floor, cut_c, None]
    assert texts(outcome.messages)[8:] == ["d" * 1190, "e" * 1190]
    assert (outcome.oversized, outcome.aggregate) == ((), (4, 5, 6))
    assert projected(outcome.state) == {"tool:b": (None, [floor]), "tool:c": (None, [cut_c])}
    assert outcome.state.frozen == {"tool:a", "tool:b", "tool:c", "tool:d", "tool:e"}


def test_the_aggregate_budget_counts_results_as_already_cut_to_the_per_result_cap():
    # Five results of 1,500 are cut to 1,200 each (6,000), so 1,200 more has to go: the oldest, already cut,
    # goes down to its floor (1,131 off) and the next gives the other 69.
    messages = (ASSISTANT, *(result(k, k * 1500) for k in "abcde"), ASSISTANT)
    outcome = apply_provider_budget(messages, 1000, ProjectionState())
    capped = [k * 1129 + f"[... 371 {NOTICE}" for k in "cde"]
    cut_b = "b" * 1060 + f"[... 140 {NOTICE}"
    assert texts(outcome.messages) == [None, f"[... 1200 {NOTICE}"[:69], cut_b, *capped, None]
    assert (outcome.oversized, outcome.aggregate) == ((1, 2, 3, 4, 5), (1, 2))


def test_the_aggregate_excess_is_taken_off_to_the_last_char():
    # 5,732 chars are 932 over: "a" goes down to its 69-char floor (931 off), and "b" gives the last char.
    sizes = {"a": 1000, "b": 1200, "c": 1200, "d": 1200, "e": 1132}
    messages = (ASSISTANT, *(result(k, k * n) for k, n in sizes.items()), ASSISTANT)
    outcome = apply_provider_budget(messages, 1000, ProjectionState())
    assert [len(t or "") for t in texts(outcome.messages)] == [0, 69, 1199, 1200, 1200, 1132, 0]
    assert texts(outcome.messages)[2] == "b" * 1129 + f"[... 71 {NOTICE}"
    assert outcome.aggregate == (1, 2)


def test_the_compact_suffix_is_used_once_the_budget_is_below_69_chars_per_result():
    # 7 results of 100 in 480: 7 x 69 = 483 is over the budget, so the suffix is the compact one and the
    # floor 36 chars; 220 over takes three results to the floor and 28 off the fourth.
    messages = (USER, ASSISTANT, *(result(f"k{i}", k * 100) for i, k in enumerate("abcdefg")), ASSISTANT)
    outcome = apply_provider_budget(messages, 100, ProjectionState())
    floor = "[... 100 chars truncated; narrow args]"[:36]
    assert texts(outcome.messages)[2:9] == [floor] * 3 + [
        "d" * 35 + "[... 65 chars truncated; narrow args]"
    ] + [k * 100 for k in "efg"]
    assert outcome.aggregate == (2, 3, 4, 5)


def test_a_budget_of_exactly_69_chars_per_result_keeps_the_context_limit_notice():
    # A 231-token window: 276 chars a result, 1,104 = 16 x 69 in all; 16 results of 100 are 496 over, 31
    # off each.
    messages = (ASSISTANT, *(result(f"k{i}", "z" * 100) for i in range(16)), ASSISTANT)
    outcome = apply_provider_budget(messages, 231, ProjectionState())
    assert texts(outcome.messages)[1:17] == [f"[... 100 {NOTICE}"[:69]] * 16
    assert outcome.aggregate == tuple(range(1, 17))


def test_only_results_with_text_count_toward_the_choice_of_suffix():
    # 6 results with text (5 x 120 + 1 char = 601 in 480) keep the context-limit notice, an empty result
    # and the other messages not counting; a seventh (even of one char) brings the compact suffix.
    six = (
        USER,
        ASSISTANT,
        *(result(f"k{i}", "q" * 120) for i in range(5)),
        result("z", "z"),
        result("e", ""),
    )
    seven = (ASSISTANT, *(result(f"k{i}", "q" * 120) for i in range(6)), result("z", "z"), ASSISTANT)
    first = texts(apply_provider_budget(six + (ASSISTANT,), 100, ProjectionState()).messages)
    second = texts(apply_provider_budget(seven, 100, ProjectionState()).messages)
    assert first[2:5] == [f"[... 120 {NOTICE}"[:69]] * 2 + ["q" * 31 + f"[... 89 {NOTICE}"]
    assert second[1:4] == ["[... 120 chars truncated; narrow args]"[:36]] * 2 + [
        "q" * 9 + "[... 111 chars truncated; narrow args]"
    ]


def test_when_cutting_every_result_to_its_floor_is_not_enough_none_is_elided():
    # 14 results of 120 in 480 with the compact suffix: each gives 84, 1,176 of the 1,200 over. Clearing is
    # measured against what the result already is: the 102-char elision marker is longer than the 36 chars
    # left, so it saves nothing and the results stay cut.
    messages = (ASSISTANT, *(result(f"k{i}", "w" * 120) for i in range(14)), ASSISTANT)
    outcome = apply_provider_budget(messages, 100, ProjectionState())
    assert texts(outcome.messages)[1:15] == ["[... 120 chars truncated; narrow args]"[:36]] * 14
    assert outcome.aggregate == tuple(range(1, 15))
