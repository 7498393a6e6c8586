"""The numbers a call's view shows agree with each other, for every runtime, on several transcripts.

One source (``simulator/replay/counts.py``) gives the sentence and the JSON counts; the chips and the
window's segments come from the rows. These tests hold them against each other call by call.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulator import (
    Fate,
    Transcript,
    call_counts,
    call_view,
    changed_contents,
    parse_transcript,
    profile_from_document,
    result_to_json,
    simulate,
)
from simulator.estimates import ai_profile_system_tokens
from simulator.replay.view import NOT_HELD_FATES
from simulator.transcript import Message, Role, TextPart, ToolCall, ToolResult
from tests.support import tool_heavy_chat

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = Path("/work/shared/samples/sweagent_marshmallow-1867_function_calling.traj.json")
FIXTURES = ROOT / "tests" / "fixtures" / "transcripts"

PROFILES = {
    "zeroclaw turn cap": {
        "trimscope": {"runtime": "zeroclaw", "version": "documented"},
        "runtime_profiles": {"default": {"max_history_messages": 2}},
    },
    "zeroclaw token budget": {
        "trimscope": {"runtime": "zeroclaw", "version": "documented"},
        "runtime_profiles": {"default": {"max_context_tokens": 1500}},
    },
    "zeroclaw released, message cap": {
        "trimscope": {"runtime": "zeroclaw", "version": "upstream"},
        "runtime_profiles": {"default": {"max_history_messages": 8}},
    },
    "ai-profile small window": {
        "trimscope": {"runtime": "ai_profile"},
        "max_tokens": 1024,
        "limits": {"preset": {"contextWindow": 11000}},
    },
    "ai-profile preset": {
        "trimscope": {"runtime": "ai_profile"},
        "limits": {"preset": {"contextWindow": 200000}},
    },
    "openclaw pruning": {
        "trimscope": {"runtime": "openclaw"},
        "agents": {
            "defaults": {
                "contextPruning": {"mode": "cache-ttl", "minPrunableToolChars": 500},
                "model": {"contextWindow": 4000},
            }
        },
    },
}


def _transcripts() -> dict[str, str]:
    texts = {
        "tool-heavy chat": tool_heavy_chat(10),
        "codex developer instructions": (FIXTURES / "codex_rollout_developer.jsonl").read_text(),
        "pi session with a failed call": (FIXTURES / "pi_session_v1.jsonl").read_text(),
        "claude code with an api error": (FIXTURES / "claude_code_loglines.json").read_text(),
        "swe-agent demo": (FIXTURES / "swe_agent_demo.yaml").read_text(),
    }
    if SAMPLE.exists():
        texts["swe-agent trajectory"] = SAMPLE.read_text()
    return texts


TRANSCRIPTS = _transcripts()


def _check_every_call(transcript: Transcript, name: str) -> None:
    profile = profile_from_document(PROFILES[name], name=name)
    result = simulate(transcript, profile)
    report = result_to_json(result)
    assert isinstance(report["calls"], list)
    for call, reported in zip(result.calls, report["calls"], strict=True):
        view = call_view(
            transcript,
            result,
            call.number,
            changed=changed_contents(transcript, profile, result, call.number),
        )
        k = view.counts
        chips = dict(view.fate_counts)
        # the sentence's numbers
        assert k.sent + k.dropped == k.held
        assert k.held + k.not_held == k.listed == call.message_index
        # the chips add up to what the sentence says
        assert sum(chips.values()) == k.listed
        assert sum(n for fate, n in chips.items() if Fate(fate) not in NOT_HELD_FATES) == k.sent
        assert chips.get("dropped", 0) == k.dropped
        assert chips.get("failed", 0) + chips.get("not held", 0) == k.not_held
        assert "breadcrumb" not in chips and k.breadcrumb == (call.breadcrumb_at is not None)
        # the rows say the same thing
        assert sum(r.count for r in view.rows if r.kind == "message" and r.sent) == k.sent
        assert sum(r.count for r in view.rows if r.kind == "dropped-run") == k.dropped
        assert k.breadcrumb == any(r.kind == "breadcrumb" for r in view.rows)
        # the JSON reports the same counts
        assert isinstance(reported, dict) and reported["counts"] == k.to_json()
        # the window bar counts everything that is sent
        if result.runtime == "openclaw":
            # chars / 4 rounds up per message in the rows and once per call in the total
            assert 0 <= view.sent_tokens - call.tokens_sent <= k.sent
        else:
            assert view.sent_tokens == call.tokens_sent
        assert k.sentence.startswith(f"{k.sent:,} of {k.held:,} message")


@pytest.mark.parametrize("name", sorted(PROFILES))
@pytest.mark.parametrize("transcript_name", sorted(TRANSCRIPTS))
def test_sentence_chips_rows_and_json_agree_at_every_call(transcript_name, name):
    _check_every_call(parse_transcript(TRANSCRIPTS[transcript_name]), name)


def _sessions() -> st.SearchStrategy[Transcript]:
    """Sessions of user turns with tool calls, some replies failed (error turns), a system prompt or none."""
    turn = st.tuples(
        st.integers(min_value=1, max_value=400),  # user text length
        st.integers(min_value=0, max_value=2),  # tool calls
        st.integers(min_value=0, max_value=3000),  # tool result length
        st.sampled_from([None, None, "fetch failed", "prompt is too long: 210000 tokens > 200000 maximum"]),
    )

    def build(system: bool, turns: list[tuple[int, int, int, str | None]]) -> Transcript:
        messages: list[Message] = [Message(Role.SYSTEM, (TextPart("s" * 900),))] if system else []
        for t, (chars, tools, result, error) in enumerate(turns):
            messages.append(Message(Role.USER, (TextPart("u" * chars),)))
            for k in range(tools):
                call = ToolCall(f"c{t}-{k}", "read", "{}")
                messages.append(Message(Role.ASSISTANT, tool_calls=(call,)))
                messages.append(
                    Message(Role.TOOL, (TextPart("r" * result),), tool_result=ToolResult(call.id, "read"))
                )
            if error is not None:
                messages.append(Message(Role.ASSISTANT, stop_reason="error", error=error))
            messages.append(Message(Role.ASSISTANT, (TextPart(f"done {t}"),)))
        return Transcript("openai", tuple(messages), session_id="s-1")

    return st.builds(build, st.booleans(), st.lists(turn, min_size=1, max_size=8))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_sessions(), st.sampled_from(sorted(PROFILES)))
def test_counts_agree_on_generated_sessions_with_failed_calls(transcript, name):
    _check_every_call(transcript, name)


def _reference_counts(transcript: Transcript, name: str) -> list[tuple[int, int, int]]:
    result = simulate(transcript, profile_from_document(PROFILES[name], name=name))
    return [(c.number, call_counts(result, c).sent, call_counts(result, c).held) for c in result.calls]


def test_the_reported_examples_now_agree():
    """ZeroClaw's turn cap with a breadcrumb: the sentence no longer counts the note as a message."""
    transcript = parse_transcript(TRANSCRIPTS["tool-heavy chat"])
    profile = profile_from_document(PROFILES["zeroclaw turn cap"], name="cap")
    result = simulate(transcript, profile)
    crumbed = [c for c in result.calls if c.breadcrumb_at is not None]
    assert crumbed
    view = call_view(transcript, result, crumbed[-1].number)
    chips = dict(view.fate_counts)
    assert view.counts.sent == chips["kept"] and view.counts.dropped == chips["dropped"] > 0
    assert view.counts.sentence.endswith(", plus the breadcrumb note.")
    # the record's own native count still includes the note; the page no longer shows it as messages
    assert crumbed[-1].sent_count == sum(e - s for s, e in crumbed[-1].sent) + 1


def test_a_system_prompt_sent_beside_the_history_is_counted_in_the_runtimes_estimator():
    transcript = parse_transcript(tool_heavy_chat(3))
    system = transcript.messages[0]
    for name in ("ai-profile preset", "openclaw pruning"):
        result = simulate(transcript, profile_from_document(PROFILES[name], name=name))
        view = call_view(transcript, result, 1)
        segments = {s.css: s.tokens for s in view.segments}
        assert segments["system"] > 0 and segments["system"] == view.call.tokens_outside
        assert view.rows[0].role == "system" and view.rows[0].tokens_after == segments["system"]
        assert view.call.tokens_sent == view.sent_tokens or result.runtime == "openclaw"
    aip = simulate(transcript, profile_from_document(PROFILES["ai-profile preset"], name="a"))
    assert aip.calls[0].tokens_outside == ai_profile_system_tokens(system)


def test_developer_instructions_are_labelled_as_such_in_every_runtime():
    transcript = parse_transcript(TRANSCRIPTS["codex developer instructions"])
    developer = [i for i, m in enumerate(transcript.messages) if m.variant == "developer_instructions"]
    assert developer
    for name in sorted(set(PROFILES) - {"zeroclaw turn cap"}):  # (the cap drops the instructions)
        result = simulate(transcript, profile_from_document(PROFILES[name], name=name))
        view = call_view(transcript, result, len(result.calls))
        rows = [r for r in view.rows if r.index in developer and r.kind == "message"]
        assert rows and all(r.role_label == "developer instructions" for r in rows), name
        assert any(s.css == "developer" and s.tokens > 0 for s in view.segments), name


def test_generated_session_counts_do_not_depend_on_the_reference_implementation():
    transcript = parse_transcript(tool_heavy_chat(6))
    for name in PROFILES:
        fast = _reference_counts(transcript, name)
        profile = profile_from_document(PROFILES[name], name=name)
        reference = simulate(transcript, profile, reference=True)
        assert fast == [
            (c.number, call_counts(reference, c).sent, call_counts(reference, c).held)
            for c in reference.calls
        ]


def test_a_call_with_nothing_dropped_has_no_dropped_count_even_when_a_rule_was_recorded():
    """ai-profile's fallback keeps the one message there is: nothing dropped, so nothing to head."""
    transcript = parse_transcript(
        json.dumps([{"role": "user", "content": "x" * 5000}, {"role": "assistant", "content": "ok"}])
    )
    doc = {
        "trimscope": {"runtime": "ai_profile"},
        "max_tokens": 4096,
        "limits": {"preset": {"contextWindow": 12000}},
    }
    result = simulate(transcript, profile_from_document(doc, name="a"))
    view = call_view(transcript, result, 1)
    assert view.counts.dropped == 0 and not result.calls[0].trimmed
    assert view.counts.sent == view.counts.held == 1
    assert "dropped" not in dict(view.fate_counts)
