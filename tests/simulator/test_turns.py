"""Turn segmentation and tool call/result pair lint."""

from __future__ import annotations

from simulator.transcript import Message, Role, TextPart, ToolCall, ToolResult
from simulator.turns import OrphanCall, OrphanResult, ToolPair, count_turns, lint_tool_pairs, segment_turns


def _m(role, text="", calls=(), result=None, variant=None):
    return Message(
        role=role,
        parts=(TextPart(text),) if text else (),
        tool_calls=tuple(ToolCall(c, "t", "{}") for c in calls),
        tool_result=ToolResult(result, None) if result is not None else None,
        variant=variant,
    )


def test_leading_systems_preamble_and_turns_cover_every_message_once():
    messages = [
        _m(Role.SYSTEM, "s1"),
        _m(Role.SYSTEM, "s2"),
        _m(Role.ASSISTANT, "hello first"),
        _m(Role.USER, "q1"),
        _m(Role.ASSISTANT, calls=["a"]),
        _m(Role.TOOL, result="a"),
        _m(Role.SYSTEM, "late system"),
        _m(Role.USER, "q2"),
    ]
    groups = segment_turns(messages)
    assert [(g.kind, g.start, g.end) for g in groups] == [
        ("system", 0, 2),
        ("preamble", 2, 3),
        ("turn", 3, 7),
        ("turn", 7, 8),
    ]
    assert [i for g in groups for i in g.indices] == list(range(8))
    assert count_turns(messages) == 2


def test_summaries_and_prompt_mode_results_do_not_start_turns_but_custom_messages_do():
    messages = [
        _m(Role.USER, "summary", variant="compaction_summary"),
        _m(Role.USER, "q"),
        _m(Role.USER, "[Tool results]\nx", variant="prompt_tool_results"),
        _m(Role.USER, "note", variant="custom_message"),
    ]
    assert [(g.kind, g.start, g.end) for g in segment_turns(messages)] == [
        ("preamble", 0, 1),
        ("turn", 1, 3),
        ("turn", 3, 4),
    ]


def test_no_user_message_gives_only_a_preamble_and_empty_gives_nothing():
    assert [(g.kind, len(g)) for g in segment_turns([_m(Role.ASSISTANT, "x")])] == [("preamble", 1)]
    assert segment_turns([]) == ()


def test_pair_lint_finds_pairs_orphan_calls_orphan_results_and_duplicate_ids():
    messages = [
        _m(Role.USER, "q"),
        _m(Role.ASSISTANT, calls=["a", "b"]),
        _m(Role.TOOL, result="a"),
        _m(Role.TOOL, result="zzz"),
        _m(Role.ASSISTANT, calls=["a"]),
        _m(Role.TOOL, result="a"),
        _m(Role.TOOL, result="a"),
    ]
    report = lint_tool_pairs(messages)
    assert report.pairs == (ToolPair("a", 1, 2, "t"), ToolPair("a", 4, 5, "t"))
    assert report.orphan_calls == (OrphanCall("b", 1, "t"),)
    assert report.orphan_results == (OrphanResult("zzz", 3), OrphanResult("a", 6))
    assert report.duplicate_call_ids == ("a",)
    assert not report.ok


def test_a_result_before_its_call_is_an_orphan_and_so_is_the_call():
    report = lint_tool_pairs([_m(Role.TOOL, result="x"), _m(Role.ASSISTANT, calls=["x"])])
    assert report.orphan_results == (OrphanResult("x", 0),)
    assert report.orphan_calls == (OrphanCall("x", 1, "t"),)


def test_results_without_an_id_are_orphans():
    report = lint_tool_pairs([_m(Role.ASSISTANT, calls=["x"]), _m(Role.TOOL, result="")])
    assert report.orphan_results == (OrphanResult("", 1),)
    assert report.orphan_calls == (OrphanCall("x", 0, "t"),)
