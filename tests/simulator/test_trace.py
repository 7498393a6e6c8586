"""Tracing a message through a replay: the calls that held it, the call it left at, and the rule."""

from __future__ import annotations

import json

import pytest

from simulator.importers import parse_transcript
from simulator.profiles import profile_from_document
from simulator.replay import changed_contents, simulate
from simulator.trace import Query, TraceQueryError, before_after, trace, trace_to_json


def _chat(turns: int, result_chars: int = 2000, reread_path: str | None = None) -> str:
    """A coding session: each turn reads one file; the first user message carries a constraint."""
    messages: list[dict[str, object]] = [{"role": "system", "content": "You are a coding agent."}]
    for t in range(turns):
        messages.append({"role": "user", "content": f"task {t}" + (" MUST keep tabs" if t == 0 else "")})
        path = reread_path if reread_path and t in (0, turns - 1) else f"src/f{t}.py"
        call = {
            "id": f"c{t}",
            "type": "function",
            "function": {"name": "read", "arguments": json.dumps({"path": path})},
        }
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append(
            {
                "role": "tool",
                "tool_call_id": f"c{t}",
                "content": f"HEAD-{t} " + "x" * result_chars + f" TAIL-{t}",
            }
        )
        messages.append({"role": "assistant", "content": f"done {t}"})
    return json.dumps(messages)


# Calls an hour apart: every OpenClaw attempt after the first finds its cache TTL expired and prunes.
PAST_THE_TTL = 3600


def _trace(doc, find, *, turns=10, chars=2000, regex=False, reread_path=None):
    transcript = parse_transcript(_chat(turns, chars, reread_path))
    profile = profile_from_document(doc, name="p")
    result = simulate(transcript, profile, assumed_gap_seconds=PAST_THE_TTL)
    return trace(
        transcript,
        result,
        Query.parse(find, regex=regex),
        contents_at=lambda n: changed_contents(transcript, profile, result, n),
    )


def test_a_constraint_dropped_with_its_turn_by_the_token_budget_names_the_call_and_rule():
    found = _trace({"runtime_profiles": {"d": {"max_context_tokens": 4000}}}, "must keep")
    [match] = found.matches
    assert (match.message_index, match.role, match.in_context) == (1, "user", (1, 15))
    assert match.departure is not None
    assert (match.departure.call, match.departure.kind) == (16, "dropped-turn")
    assert match.departure.rule == "token budget 4,000: 4,464 est. held"
    assert [(r.first, r.last, r.state) for r in match.runs] == [(1, 15, "full"), (16, 20, "gone")]


def test_the_turn_count_cap_is_told_apart_from_the_token_budget():
    found = _trace({"runtime_profiles": {"d": {"max_history_messages": 3}}}, "MUST keep", chars=10)
    [match] = found.matches
    assert match.in_context == (1, 6)
    assert match.departure is not None and (match.departure.call, match.departure.kind) == (7, "turn-cap")
    assert match.departure.rule.startswith("max_history_messages 3 turns")


@pytest.mark.parametrize(
    ("find", "survived"),
    [
        ("HEAD-2", "head"),
        ("TAIL-2", "tail"),
    ],
)
def test_a_truncated_tool_result_says_whether_the_match_survived_in_the_head_or_tail(find, survived):
    found = _trace({"runtime_profiles": {"d": {"max_tool_result_chars": 500}}}, find, turns=4)
    [match] = found.matches
    # Truncated as it entered the history: never sent in full.
    assert match.in_context is None
    assert match.departure is not None
    assert (match.departure.call, match.departure.kind, match.departure.rule) == (
        6,
        "truncated",
        "max_tool_result_chars 500",
    )
    assert match.departure.survived == survived


def test_a_soft_trim_keeps_both_ends_of_an_openclaw_tool_result():
    doc = {"contextPruning": {"mode": "cache-ttl"}, "model": {"contextWindow": 40000}}
    found = _trace(doc, r"(HEAD|TAIL)-1\b", turns=12, chars=9000, regex=True)
    [match] = found.matches
    assert (match.message_index, match.in_context) == (7, (4, 11))
    assert match.departure is not None
    assert (match.departure.call, match.departure.kind, match.departure.survived) == (
        12,
        "soft-trimmed",
        "head and tail",
    )
    assert [(r.first, r.last, r.state) for r in match.runs] == [(4, 11, "full"), (12, 24, "changed")]


def test_a_hard_clear_leaves_nothing_of_the_match():
    doc = {
        "contextPruning": {
            "mode": "cache-ttl",
            "softTrimRatio": 0.1,
            "hardClearRatio": 0.1,
            "minPrunableToolChars": 100,
        },
        "model": {"contextWindow": 20000},
    }
    [match] = _trace(doc, "HEAD-1 ", turns=12, chars=9000).matches
    assert match.departure is not None
    assert (match.departure.call, match.departure.kind, match.departure.survived) == (
        7,
        "hard-cleared",
        "cut",
    )


def test_an_overflow_retry_is_named_as_the_rule():
    doc = {"trimscope": {"runtime": "ai_profile"}, "max_tokens": 1000, "provider": {"context_window": 6000}}
    [match] = _trace(doc, "HEAD-0").matches
    assert match.in_context == (2, 9)
    assert match.departure is not None and (match.departure.call, match.departure.kind) == (
        10,
        "overflow-retry",
    )


def test_a_message_that_never_left_has_no_departure():
    [match] = _trace({"runtime_profiles": {"d": {"max_context_tokens": 4000}}}, "done 8").matches
    assert (match.message_index, match.in_context, match.departure) == (36, (19, 20), None)


def test_reading_the_same_file_again_after_its_result_was_dropped_is_a_reread():
    found = _trace(
        {"runtime_profiles": {"d": {"max_context_tokens": 4000}}}, "config.toml", reread_path="config.toml"
    )
    assert [m.message_index for m in found.matches] == [2, 38]
    [reread] = found.rereads
    assert (reread.tool, reread.result_index, reread.again_index, reread.again_call) == ("read", 3, 38, 19)
    assert (reread.state, reread.left_at_call, reread.kind) == ("gone", 16, "dropped-turn")


def test_reading_the_same_file_again_while_its_result_is_still_held_is_not_a_reread():
    found = _trace(
        {"runtime_profiles": {"d": {"max_context_tokens": 0}}}, "config.toml", reread_path="config.toml"
    )
    assert len(found.matches) == 2
    assert found.rereads == ()


def test_a_tool_call_id_finds_the_call_and_its_result():
    found = _trace({"runtime_profiles": {"d": {"max_context_tokens": 4000}}}, "c3")
    assert [(m.message_index, m.role) for m in found.matches] == [(14, "assistant"), (15, "tool")]


def test_an_invalid_regex_is_refused_with_its_position():
    with pytest.raises(TraceQueryError, match=r"invalid regular expression: .* at position 0"):
        Query.parse("(unclosed", regex=True)
    with pytest.raises(TraceQueryError, match="empty query"):
        Query.parse("  ")


def test_before_after_marks_the_cut_middle_and_the_added_note():
    cut = before_after(
        "0123456789abcdefghij-MIDDLE-ABCDEFGHIJ9876543210",
        "0123456789abcdefghij\n...\nABCDEFGHIJ9876543210\n[trimmed]",
    )
    assert [(p.kind, p.text) for p in cut.before] == [
        ("kept", "0123456789abcdefghij"),
        ("cut", "-MIDDLE-"),
        ("kept", "ABCDEFGHIJ9876543210"),
    ]
    assert [(p.kind, p.text) for p in cut.after] == [
        ("kept", "0123456789abcdefghij"),
        ("added", "\n...\n"),
        ("kept", "ABCDEFGHIJ9876543210"),
        ("added", "\n[trimmed]"),
    ]


def test_before_after_of_a_cleared_message_keeps_nothing():
    cut = before_after("the whole original tool output", "[Old tool result content cleared]")
    assert (cut.head, cut.tail) == (0, 0)
    assert [p.kind for p in cut.before] == ["cut"]
    assert [p.kind for p in cut.after] == ["added"]


def test_json_shape_has_left_at_call_null_for_a_message_that_never_left():
    found = _trace({"runtime_profiles": {"d": {"max_context_tokens": 4000}}}, "done 8")
    payload = trace_to_json(found)
    assert payload["matches"] == [
        {
            "message_index": 36,
            "role": "assistant",
            "in_context_calls": [19, 20],
            "left_at_call": None,
            "rule": None,
            "rule_detail": None,
            "survived": None,
        }
    ]


def test_corpus_evaluation_counts_the_rereads_after_forgetting():
    from simulator.evaluate.metrics import PreparedTranscript, evaluate_session

    prepared = PreparedTranscript.of(
        parse_transcript(_chat(10, reread_path="config.toml")), source="s", priced=False
    )
    tight = profile_from_document({"runtime_profiles": {"d": {"max_context_tokens": 4000}}}, name="tight")
    loose = profile_from_document({"runtime_profiles": {"d": {"max_context_tokens": 0}}}, name="loose")
    assert (evaluate_session(prepared, tight).rereads, evaluate_session(prepared, loose).rereads) == (1, 0)


def _screenshots(turns: int) -> str:
    """An OpenClaw (pi) session: each turn takes a screenshot (text + image); messages ten minutes apart."""
    lines: list[dict[str, object]] = [
        {"type": "session", "id": "s", "timestamp": "2025-01-01T00:00:00Z", "cwd": "/"}
    ]
    usage = {"input": 100, "output": 1}
    ts = 1_735_689_600_000
    for t in range(turns):
        shot = [
            {"type": "text", "text": f"SHOT-{t} " + "y" * 3000},
            {"type": "image", "data": "iVBORw0KGgo" * 100, "mimeType": "image/png"},
        ]
        call = {"type": "toolCall", "id": f"c{t}", "name": "screenshot", "arguments": {"n": t}}
        for message in (
            {"role": "user", "content": f"task {t}"},
            {"role": "assistant", "content": [call], "usage": usage, "stopReason": "toolUse"},
            {
                "role": "toolResult",
                "toolCallId": f"c{t}",
                "toolName": "screenshot",
                "content": shot,
                "isError": False,
            },
            {
                "role": "assistant",
                "content": [{"type": "text", "text": f"done {t}"}],
                "usage": usage,
                "stopReason": "stop",
            },
        ):
            ts += 600_000
            entry = {
                "type": "message",
                "timestamp": "2025-01-01T00:00:01Z",
                "message": {**message, "timestamp": ts},
            }
            lines.append(entry)
    return "\n".join(json.dumps(line) for line in lines)


def test_an_image_replaced_in_a_tool_result_is_named_image_removed():
    transcript = parse_transcript(_screenshots(8))
    doc = {
        "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "softTrimRatio": 0.01}}},
        "model": {"contextWindow": 40000},
    }
    profile = profile_from_document(doc, name="p")
    result = simulate(transcript, profile)
    found = trace(
        transcript,
        result,
        Query.parse("SHOT-1 "),
        contents_at=lambda n: changed_contents(transcript, profile, result, n),
    )
    [match] = found.matches
    assert (match.message_index, match.in_context) == (6, (4, 6))
    assert match.departure is not None
    assert (match.departure.call, match.departure.kind) == (7, "image-removed")
    assert match.departure.rule == "images in tool results replaced during soft trim"


def test_a_limit_follows_the_first_matches_and_counts_the_rest():
    transcript = parse_transcript(_chat(10))
    result = simulate(
        transcript, profile_from_document({"runtime_profiles": {"d": {"max_context_tokens": 4000}}}, name="p")
    )
    full = trace(transcript, result, Query.parse("done"))
    limited = trace(transcript, result, Query.parse("done"), limit=3)
    assert (len(full.matches), full.more) == (10, 0)
    assert (len(limited.matches), limited.more) == (3, 7)
    assert limited.matches == full.matches[:3]


def _rereading_chat(turns: int) -> str:
    """Each turn reads one of eleven files, so every file is read again and again as the history moves on."""
    messages: list[dict[str, object]] = [{"role": "system", "content": "You are a coding agent."}]
    for t in range(turns):
        messages.append({"role": "user", "content": f"task {t}"})
        call = {
            "id": f"c{t}",
            "type": "function",
            "function": {"name": "read", "arguments": json.dumps({"path": f"src/f{t % 11}.py"})},
        }
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append(
            {"role": "tool", "tool_call_id": f"c{t}", "content": f"{t} " + "x" * (300 + 97 * (t % 7))}
        )
        messages.append({"role": "assistant", "content": f"done {t}"})
    return json.dumps(messages)


@pytest.mark.parametrize(
    ("document", "bisected"),
    [
        ({"runtime_profiles": {"d": {"max_context_tokens": 1500}}}, True),
        (
            {
                "trimscope": {"runtime": "zeroclaw", "version": "upstream"},
                "runtime_profiles": {"d": {"max_history_messages": 9}},
            },
            True,
        ),
        # ai-profile trims each call afresh and an overflow retry cuts deeper for one call: the calls'
        # starts go back, so every call is looked at.
        (
            {
                "trimscope": {"runtime": "ai_profile"},
                "max_tokens": 1000,
                "provider": {"context_window": 4000},
            },
            False,
        ),
    ],
    ids=["zeroclaw-budget", "zeroclaw-turns", "ai-profile"],
)
def test_rereads_found_by_bisection_equal_those_found_call_by_call(document, bisected, monkeypatch):
    import simulator.trace as trace_module

    transcript = parse_transcript(_rereading_chat(60))
    result = simulate(transcript, profile_from_document(document, name="p"))
    fast = trace_module.rereads(transcript, result)
    assert (trace_module._forgotten_from(result) is not None) is bisected
    monkeypatch.setattr(trace_module, "_forgotten_from", lambda result: None)
    assert fast == trace_module.rereads(transcript, result)
    assert len(fast) > 20
    assert len({r.left_at_call for r in fast}) > 10
