"""ZeroClaw's HistoryTrimmed event: both reasons and every key of the SSE frame (spec section 8)."""

from __future__ import annotations

from simulator.runtimes import zeroclaw as zc


def test_a_message_cap_event_keeps_its_counts_and_names_the_message_limit():
    event = zc.HistoryTrimmed.message_cap(5, 3)
    assert (event.dropped_messages, event.kept_turns, event.reason) == (
        5,
        3,
        "history message limit exceeded",
    )
    assert event.to_ws() == {
        "type": "history_trimmed",
        "dropped_messages": 5,
        "kept_turns": 3,
        "reason": "history message limit exceeded",
    }


def test_a_budget_event_keeps_its_counts_and_names_the_token_budget():
    event = zc.HistoryTrimmed.budget(7, 1)
    assert (event.dropped_messages, event.kept_turns, event.reason) == (7, 1, "context token budget exceeded")


def test_the_sse_frame_from_the_turn_loop_has_exactly_six_keys():
    frame = zc.HistoryTrimmed(4, 2, "context token budget exceeded").to_sse("2026-08-22T10:00:00Z")
    assert frame == {
        "type": "history_trimmed",
        "source": "observability",
        "dropped_messages": 4,
        "kept_turns": 2,
        "reason": "context token budget exceeded",
        "timestamp": "2026-08-22T10:00:00Z",
    }


def test_the_sse_frame_adds_channel_agent_alias_and_turn_id_when_given():
    frame = zc.HistoryTrimmed(1, 1, "history message limit exceeded").to_sse(
        None, channel="web", agent_alias="helper", turn_id="t-9"
    )
    assert frame == {
        "type": "history_trimmed",
        "source": "observability",
        "dropped_messages": 1,
        "kept_turns": 1,
        "reason": "history message limit exceeded",
        "timestamp": None,
        "channel": "web",
        "agent_alias": "helper",
        "turn_id": "t-9",
    }
