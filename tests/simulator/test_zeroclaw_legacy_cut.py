"""ZeroClaw v0.8.4's legacy message cap told from bookkeeping keeps what ``history::trim_history`` keeps.

``legacy_cut`` answers with a cut only when the orphan sweep and the system merge change nothing else;
these tests hold it to the runtime's function on histories made to break pairings (adjacent assistants,
tool rows without their call, calls without ids, system rows anywhere, empty system content), once a
call and over whole replays where the held history is cut again and again.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.importers import parse_transcript
from simulator.profiles import profile_from_document
from simulator.replay import simulate
from simulator.replay.zeroclaw import _legacy_sources
from simulator.replay.zeroclaw_history import History, RecountedFacts
from simulator.replay.zeroclaw_legacy import SweepWatch, legacy_cut
from simulator.runtimes.zeroclaw import ChatMessage, trim_history
from simulator.runtimes.zeroclaw.turns import is_turn_boundary

IDS = ("a", "b", "c")


def _assistant_calls(ids: list[str]) -> ChatMessage:
    calls = [{"id": i, "name": "read", "arguments": "{}"} for i in ids]
    return ChatMessage("assistant", json.dumps({"content": "calling", "tool_calls": calls}))


def _tool(tool_id: str | None) -> ChatMessage:
    body = {"content": "result"} if tool_id is None else {"tool_call_id": tool_id, "content": "result"}
    return ChatMessage("tool", json.dumps(body))


ROWS = st.one_of(
    st.sampled_from(["", "be brief"]).map(lambda c: ChatMessage("system", c)),
    st.just(ChatMessage("user", "do it")),
    st.just(ChatMessage("assistant", "done")),
    st.lists(st.sampled_from(IDS), min_size=0, max_size=2).map(_assistant_calls),
    st.sampled_from([*IDS, None]).map(_tool),
)
# Mostly well-formed turns (user, call, its result, answer) with broken rows mixed in.
TURN = st.sampled_from(IDS).map(
    lambda i: [ChatMessage("user", "go"), _assistant_calls([i]), _tool(i), ChatMessage("assistant", "ok")]
)
HISTORY = st.lists(st.one_of(ROWS.map(lambda m: [m]), TURN), max_size=30).map(
    lambda parts: [m for part in parts for m in part]
)


def _history(messages: list[ChatMessage]) -> History:
    history = History(len(messages), RecountedFacts(len(messages), is_turn_boundary))
    for index, message in enumerate(messages):
        history.enter(index, message)
    return history


def test_a_cut_that_opens_on_a_result_whose_call_was_cut_drops_that_result_too():
    # A cap of 3 keeps the anchor and the newest 2 rows: b's result, whose call is cut, and the answer.
    held = [
        ChatMessage("system", "be brief"),
        ChatMessage("user", "go"),
        _assistant_calls(["a"]),
        _tool("a"),
        _assistant_calls(["b"]),
        _tool("b"),
        ChatMessage("assistant", "ok"),
    ]
    history = _history(held)
    cut = legacy_cut(history, 3, SweepWatch())
    runtime = trim_history(held, 3)
    assert cut == (2, 6)
    assert runtime.history == (*held[:2], held[6])


def test_a_history_the_sweep_would_repair_elsewhere_is_left_to_the_runtime_function():
    # Two tool-calling assistants in a row: pass 1 removes the second wherever the cap cuts.
    held = [
        ChatMessage("user", "go"),
        _assistant_calls(["a"]),
        _assistant_calls(["b"]),
        _tool("b"),
        ChatMessage("user", "next"),
        ChatMessage("assistant", "ok"),
    ]
    assert legacy_cut(_history(held), 3, SweepWatch()) is None


def test_a_result_after_a_user_row_has_no_call_however_the_run_before_it_ended():
    # The sweep looks for a result's call only back to the user row: the kept result of a is an orphan.
    held = [
        ChatMessage("user", "go"),
        _assistant_calls(["a"]),
        _tool("a"),
        ChatMessage("user", "again"),
        _tool("a"),
        ChatMessage("assistant", "ok"),
    ]
    assert trim_history(held, 4).history == (held[0], held[3], held[5])
    assert legacy_cut(_history(held), 4, SweepWatch()) is None


def test_a_system_row_after_the_first_is_merged_so_the_runtime_function_runs():
    held = [ChatMessage("user", "go"), ChatMessage("system", "late"), *[ChatMessage("user", "x")] * 4]
    assert legacy_cut(_history(held), 2, SweepWatch()) is None


def test_an_empty_leading_system_row_disappears_in_the_merge_so_the_runtime_function_runs():
    held = [ChatMessage("system", ""), *[ChatMessage("user", "x")] * 4]
    assert legacy_cut(_history(held), 2, SweepWatch()) is None


@settings(max_examples=300, deadline=None)
@given(rows=HISTORY, cap=st.integers(0, 8), arrivals=st.lists(st.integers(1, 4), min_size=1))
def test_every_cut_it_allows_is_exactly_what_trim_history_keeps_call_after_call(rows, cap, arrivals):
    """Rows arrive a few at a time and the cap runs before each call, as in a replay: one watch throughout."""
    history = History(len(rows), RecountedFacts(len(rows), is_turn_boundary))
    watch = SweepWatch()
    entered = call = 0
    while entered < len(rows):
        call += 1
        for index in range(entered, min(len(rows), entered + arrivals[call % len(arrivals)])):
            history.enter(index, rows[index])
            entered = index + 1
        if history.non_system <= cap:
            continue
        held = list(history.held)
        runtime = trim_history(held, cap)
        cut = legacy_cut(history, cap, watch)
        if cut is None:
            sources = _legacy_sources(runtime.history, runtime.kept_indices, history.held, history.src)
            history.adopt(runtime.history, sources, call, "cap")
            continue
        start, stop = cut
        assert (*held[:start], *held[stop:]) == runtime.history
        kept = [i for i in (*range(start), *range(stop, len(held))) if held[i].role != "system"]
        assert tuple(kept) == runtime.kept_indices
        history.cut(start, stop, None, call, "cap")
        watch.after_cut(history)
        assert history.held == list(runtime.history)


def test_a_cut_that_leaves_only_the_anchor_is_left_to_the_runtime_function():
    """Its watch would go on judging arrivals against a run that no longer exists."""
    held = [ChatMessage("user", "go"), _assistant_calls(["a"]), _tool("a"), _tool("a"), _tool("a")]
    assert trim_history(held, 3).history == (held[0],)
    assert legacy_cut(_history(held), 3, SweepWatch()) is None


def _chat(rows: list[dict[str, object]]) -> str:
    return json.dumps(rows)


CHAT_ROWS = st.one_of(
    st.just({"role": "user", "content": "do it"}),
    st.just({"role": "assistant", "content": "done"}),
    st.sampled_from(["", "be brief"]).map(lambda c: {"role": "system", "content": c}),
    st.lists(st.sampled_from(IDS), min_size=1, max_size=2).map(
        lambda ids: {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": i, "type": "function", "function": {"name": "read", "arguments": "{}"}} for i in ids
            ],
        }
    ),
    st.sampled_from(IDS).map(lambda i: {"role": "tool", "tool_call_id": i, "content": "result " * 20}),
)
CHAT_TURN = st.sampled_from(IDS).map(
    lambda i: [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": i, "type": "function", "function": {"name": "read", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": i, "content": "x" * 300},
        {"role": "assistant", "content": "ok"},
    ]
)


@settings(max_examples=120, deadline=None)
@given(
    parts=st.lists(st.one_of(CHAT_ROWS.map(lambda r: [r]), CHAT_TURN), min_size=1, max_size=40),
    cap=st.integers(1, 8),
    budget=st.sampled_from([0, 400, 3_000]),
    truncate=st.sampled_from([0, 40]),
)
def test_released_replays_cut_by_the_bookkeeping_match_the_runtime_functions(parts, cap, budget, truncate):
    """Whole replays: the cap cuts at nearly every call, between token-budget trims and truncated results."""
    text = _chat([row for part in parts for row in part])
    doc = {
        "trimscope": {"version": "upstream"},
        "runtime_profiles": {
            "d": {
                "max_context_tokens": budget,
                "max_history_messages": cap,
                "max_tool_result_chars": truncate,
            }
        },
    }
    transcript = parse_transcript(text)
    profile = profile_from_document(doc, name="p")
    assert simulate(transcript, profile) == simulate(transcript, profile, reference=True)
