"""The session replay engine: one record per model call, each runtime's state carried forward."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.assumed_times import DEFAULT_GAP_SECONDS
from simulator.importers import parse_transcript
from simulator.presets import PRESETS
from simulator.profiles import profile_from_document
from simulator.replay import Fate, simulate
from simulator.replay.compare import compare, message_diff, sent_transcript_spans
from simulator.replay.events import wire_shapes
from simulator.synthetic import synthetic_openclaw_session
from simulator.transcript import Role
from tests.support import SAMPLES_DIR

SAMPLES = sorted(p for p in SAMPLES_DIR.iterdir() if p.is_file() and p.suffix in {".json", ".jsonl"})


def _profile(doc, name="p"):
    return profile_from_document(doc, name=name)


def _chat(turns: int, result_chars: int = 2000) -> str:
    messages = [{"role": "system", "content": "You are a coding agent."}]
    for t in range(turns):
        messages.append({"role": "user", "content": f"task {t}"})
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"c{t}", "type": "function", "function": {"name": "read", "arguments": "{}"}}
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": f"c{t}", "content": "x" * result_chars})
        messages.append({"role": "assistant", "content": f"done {t}"})
    return json.dumps(messages)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.key)
def test_every_sample_replays_through_every_preset(sample, preset):
    transcript = parse_transcript(sample.read_text(encoding="utf-8"))
    result = simulate(transcript, _profile(dict(preset.document), preset.key))
    assistants = [i for i, m in enumerate(transcript.messages) if m.role is Role.ASSISTANT]
    assert [c.message_index for c in result.calls] == assistants
    for call in result.calls:
        assert all(0 <= s < e <= call.available for s, e in call.sent)
        assert call.tokens_sent <= call.tokens_full + 32  # a breadcrumb note may add a few tokens


def test_zeroclaw_forgets_trimmed_turns_and_reports_why():
    transcript = parse_transcript(_chat(30))
    result = simulate(
        transcript, _profile({"runtime_profiles": {"d": {"max_context_tokens": 4000}}, "provider": {}})
    )
    trimmed = [c for c in result.calls if c.trimmed]
    assert trimmed, "a 4,000-token budget must trim a 30-turn session of 2 KB results"
    first = trimmed[0]
    assert first.tokens_sent <= 4000 < first.tokens_full
    assert first.breadcrumb_at is not None
    (trim,) = first.events
    assert trim.cause == "token_budget"
    ws, sse, rpc, acp = wire_shapes(trim).all()  # the four wire shapes of one HistoryTrimmed
    assert ws == {
        "type": "history_trimmed",
        "dropped_messages": ws["dropped_messages"],
        "kept_turns": ws["kept_turns"],
        "reason": "context token budget exceeded",
    }
    # This transcript names no session and has no timestamps: the shapes say so instead of inventing them.
    assert sse["source"] == "observability" and sse["timestamp"] is None
    assert rpc["session_id"] is None and acp["params"]["sessionId"] is None
    assert acp["method"] == "_zeroclaw/history_trimmed"
    dropped = [i for i, call in enumerate(result.dropped_at) if call]
    assert dropped and all(result.drop_rules[i].startswith("token budget 4,000") for i in dropped)
    # once dropped, never sent again
    for call in result.calls:
        sent = set(call.sent_indices())
        assert not any(
            result.dropped_at[i] and result.dropped_at[i] < call.number and i in sent for i in sent
        )


def test_zeroclaw_trim_events_carry_the_transcripts_session_id_and_time():
    transcript = parse_transcript(synthetic_openclaw_session(12, tool_result_chars=2000))
    doc = {"runtime_profiles": {"d": {"max_context_tokens": 4000}}}
    result = simulate(transcript, _profile(doc))
    call = next(c for c in result.calls if c.events)
    ws, sse, rpc, acp = wire_shapes(call.events[0]).all()
    assert transcript.session_id == "synthetic-session"
    assert rpc["session_id"] == acp["params"]["sessionId"] == "synthetic-session"
    stamp = transcript.messages[call.message_index].timestamp_ms
    assert stamp is not None and call.events[0].timestamp_ms == stamp
    assert isinstance(sse["timestamp"], str) and sse["timestamp"].endswith("Z")
    assert not sse["timestamp"].startswith("1970")


def test_zeroclaw_budget_zero_never_trims_by_tokens():
    transcript = parse_transcript(_chat(20))
    doc = {"runtime_profiles": {"d": {"max_context_tokens": 0, "max_history_messages": 1000}}}
    result = simulate(transcript, _profile(doc))
    assert not any(c.trimmed for c in result.calls)
    assert all(c.sent_count == c.available for c in result.calls)


def test_zeroclaw_turn_cap_keeps_whole_turns_and_the_newest_turn():
    transcript = parse_transcript(_chat(12, result_chars=10))
    doc = {"runtime_profiles": {"d": {"max_history_messages": 3}}}
    result = simulate(transcript, _profile(doc))
    messages = transcript.messages
    for call in result.calls:
        sent = {t for n in call.sent_indices() for t in result.origins[n]}
        last_user = max(i for i in range(call.message_index) if messages[i].role is Role.USER)
        assert last_user in sent
        for i in sent:  # a sent tool result always travels with the call that asked for it
            if messages[i].role is Role.TOOL:
                assert i - 1 in sent
        assert sum(1 for i in sent if messages[i].role is Role.USER) <= 3
    assert any(e.event.reason == "history message limit exceeded" for c in result.calls for e in c.events)


def test_zeroclaw_overflow_is_recovered_at_two_thirds():
    transcript = parse_transcript(_chat(10))
    doc = {
        "trimscope": {"version": "upstream"},
        "runtime_profiles": {"d": {"max_context_tokens": 100_000, "max_history_messages": 1000}},
        "provider": {"context_window": 3000},
    }
    result = simulate(transcript, _profile(doc))
    recovered = [c for c in result.calls if c.overflow == "recovered"]
    assert recovered
    retry = recovered[0].retries[0]
    assert retry.budget == retry.tokens_before * 2 // 3
    assert recovered[0].tokens_sent <= 3000


def test_ai_profile_reinserts_the_task_and_retries_on_overflow():
    transcript = parse_transcript(_chat(20))
    trimmed = simulate(
        transcript, _profile({"limits": {"preset": {"contextWindow": 20000}}, "max_tokens": 1000})
    )
    call = trimmed.calls[-1]
    assert call.trimmed and call.tokens_sent <= trimmed.budget.value
    assert any(g.fate is Fate.REINSERTED for g in call.fated)
    blind = simulate(
        transcript,
        _profile(
            {"trimscope": {"runtime": "ai_profile"}, "max_tokens": 1000, "provider": {"context_window": 6000}}
        ),
    )
    assert blind.budget.value is None
    over = [c for c in blind.calls if c.retries]
    assert over and all(len(c.retries) <= 3 for c in over)
    assert any(c.overflow == "recovered" for c in over)
    for c in over:
        budgets = [r.budget for r in c.retries]
        assert budgets == sorted(budgets, reverse=True)


def test_openclaw_prunes_only_after_the_ttl_and_never_drops_messages():
    transcript = parse_transcript(synthetic_openclaw_session(40, tool_result_chars=6000, pause_every=5))
    doc = {
        "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "5m"}}},
        "model": {"contextWindow": 30000},
    }
    result = simulate(transcript, _profile(doc))
    pruned = [c for c in result.calls if c.trimmed]
    assert pruned
    for call in result.calls:
        assert call.sent == (((0, call.available),) if call.available else ())
        if call.trimmed:
            assert any("expired" in n for n in call.notes)
            for group in call.fated:
                assert group.fate in {Fate.SOFT_TRIMMED, Fate.HARD_CLEARED, Fate.IMAGE_REPLACED}
                for native in group.indices:
                    assert transcript.messages[result.origins[native][0]].role is Role.TOOL
        else:
            assert call.tokens_sent == call.tokens_full


def test_openclaw_without_timestamps_replays_calls_the_default_gap_apart():
    transcript = parse_transcript(_chat(30, result_chars=9000))
    profile = _profile({"contextPruning": {"mode": "cache-ttl"}, "model": {"contextWindow": 40000}})
    result = simulate(transcript, profile)
    explicit = simulate(transcript, profile, assumed_gap_seconds=DEFAULT_GAP_SECONDS)
    assert result.calls == explicit.calls
    assert "no timestamps: calls assumed 30 s apart (the default)" in result.warnings
    # 30 s is inside the 5-minute TTL: OpenClaw's gate stays closed, as it does with no time to read.
    assert result.trims == 0
    # Past the TTL, the same transcript prunes.
    assert simulate(transcript, profile, assumed_gap_seconds=3600).trims > 0


def test_compare_finds_the_first_call_where_profiles_differ():
    transcript = parse_transcript(_chat(20))
    tight = simulate(transcript, _profile({"runtime_profiles": {"d": {"max_context_tokens": 5000}}}, "tight"))
    loose = simulate(
        transcript, _profile({"runtime_profiles": {"d": {"max_context_tokens": 500000}}}, "loose")
    )
    same = compare(transcript, [tight, tight])
    assert same.first_difference is None
    diff = compare(transcript, [tight, loose])
    first_trim = next(c.number for c in tight.calls if c.trimmed)
    assert diff.first_difference == first_trim
    assert diff.summaries[0].messages_lost > 0 and diff.summaries[1].messages_lost == 0
    rows = message_diff(transcript, [tight, loose], first_trim)
    assert rows and all(r.fates == ("not sent", "sent") for r in rows)
    assert rows[0].index == 1  # the first user turn went first (index 0 is the system prompt)


@settings(max_examples=25, deadline=None)
@given(
    turns=st.integers(1, 12),
    budgets=st.lists(st.integers(0, 8000), min_size=2, max_size=3),
    order=st.randoms(use_true_random=False),
)
def test_comparison_rows_are_the_same_in_any_order_they_are_read(turns, budgets, order):
    """Rows are made when first read: read shuffled, by slices and from the end, each is the row read in
    order in a fresh comparison, and the first difference is the first row that differs."""
    transcript = parse_transcript(_chat(turns, result_chars=400))
    results = [
        simulate(transcript, _profile({"runtime_profiles": {"d": {"max_context_tokens": b}}}, f"p{i}"))
        for i, b in enumerate(budgets)
    ]
    in_order = list(compare(transcript, results).rows)
    assert len(in_order) == min(len(r.calls) for r in results)
    assert [row.number for row in in_order] == list(range(1, len(in_order) + 1))
    for row in in_order:
        calls = [r.calls[row.number - 1] for r in results]
        assert row.tokens_sent == tuple(c.tokens_sent for c in calls)
        spans = [sent_transcript_spans(r, c, transcript) for r, c in zip(results, calls, strict=True)]
        if len(set(spans)) > 1:
            assert row.differs
    lazy = compare(transcript, results)
    shuffled = list(range(len(in_order)))
    order.shuffle(shuffled)
    assert all(lazy.rows[k] == in_order[k] for k in shuffled)
    again = compare(transcript, results)
    assert again.rows[-1] == in_order[-1]
    assert again.rows[1:3] == in_order[1:3]
    assert again.first_difference == next((r.number for r in in_order if r.differs), None)
    with pytest.raises(IndexError):
        again.rows[len(in_order)]


@settings(max_examples=40, deadline=None)
@given(turns=st.integers(1, 15), budget=st.integers(0, 6000), size=st.integers(0, 3000))
def test_zeroclaw_replay_never_splits_tool_pairs_and_keeps_the_newest_turn(turns, budget, size):
    transcript = parse_transcript(_chat(turns, result_chars=size))
    result = simulate(transcript, _profile({"runtime_profiles": {"d": {"max_context_tokens": budget}}}))
    messages = transcript.messages
    for call in result.calls:
        sent = {t for n in call.sent_indices() for t in result.origins[n]}
        last_user = max(i for i in range(call.message_index) if messages[i].role is Role.USER)
        assert set(range(last_user, call.message_index)) <= sent
        for i in sent:
            if messages[i].role is Role.TOOL:
                assert i - 1 in sent
        spans = sent_transcript_spans(result, call, transcript)
        assert spans and spans[-1][1] == call.message_index


def _claude_code_with_usage(turns: int, reported: int) -> str:
    lines = []
    parent = None
    for t in range(turns):
        for kind, content, usage in (
            ("user", f"question {t} " + "y" * 400, None),
            (
                "assistant",
                [{"type": "text", "text": f"answer {t}"}],
                {"input_tokens": reported, "output_tokens": 5},
            ),
        ):
            uid = f"u{t}{kind}"
            message = {"role": kind, "content": content}
            if usage:
                message["usage"] = usage
            lines.append(
                json.dumps(
                    {
                        "type": kind,
                        "uuid": uid,
                        "parentUuid": parent,
                        "sessionId": "s",
                        "timestamp": f"2026-01-01T00:{t:02d}:00Z",
                        "message": message,
                    }
                )
            )
            parent = uid
    return "\n".join(lines)


def test_zeroclaw_trims_again_when_the_provider_reports_more_than_the_budget():
    transcript = parse_transcript(_claude_code_with_usage(6, reported=50_000))
    doc = {"runtime_profiles": {"d": {"max_context_tokens": 20_000, "max_history_messages": 100}}}
    result = simulate(transcript, _profile(doc))
    assert all(c.provider_input_tokens == 50_000 for c in result.calls)
    enforced = [
        c for c in result.calls if any("after the reply: provider-reported 50,000" in n for n in c.notes)
    ]
    assert enforced, [c.notes for c in result.calls]
    first = enforced[0]
    # The trim comes after the call's request: that call dropped nothing, the next one sends less.
    assert first.trimmed and first.drop_rule == ""
    assert list(first.sent_indices()) == list(range(first.available))
    gone = [n for n, at in enumerate(result.dropped_at) if at == first.number]
    assert gone and all("provider-reported 50,000" in result.drop_rules[n] for n in gone)
    following = result.calls[first.number]
    assert not set(gone) & set(following.sent_indices())


def test_upstream_legacy_cap_below_the_history_keeps_the_system_prompt_and_the_anchor():
    transcript = parse_transcript(_chat(12, result_chars=10))
    doc = {"trimscope": {"version": "upstream"}, "runtime_profiles": {"d": {"max_history_messages": 6}}}
    result = simulate(transcript, _profile(doc))
    last = result.calls[-1]
    sent = list(last.sent_indices())
    assert sent[0] == 0  # the (merged) system prompt
    assert 1 in sent  # the first user message is the legacy path's anchor
    assert last.sent_count <= 7
    assert any(c.trimmed for c in result.calls) and not any(c.events for c in result.calls)
