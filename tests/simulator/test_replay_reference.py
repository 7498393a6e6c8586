"""Every runtime's fast replay and its reference replay (the runtime's own functions at every call) agree."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.importers import parse_transcript
from simulator.profiles import profile_from_document
from simulator.replay import simulate
from simulator.synthetic import synthetic_openclaw_session
from tests.support import SAMPLES_DIR


def _chat(turns: int, result_chars: int, usage_every: int) -> str:
    """An OpenAI chat session: a tool call and its result per turn, provider usage on some replies."""
    messages: list[dict[str, object]] = [{"role": "system", "content": "You are a coding agent."}]
    for t in range(turns):
        messages.append({"role": "user", "content": f"task {t} " + "y" * (t % 7) * 40})
        call = {"id": f"c{t}", "type": "function", "function": {"name": "read", "arguments": "{}"}}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        result = "x" * (result_chars * (1 + t % 3))
        messages.append({"role": "tool", "tool_call_id": f"c{t}", "content": result})
        messages.append({"role": "assistant", "content": f"done {t}"})
    return json.dumps(messages)


ZEROCLAW = st.fixed_dictionaries(
    {
        "trimscope": st.fixed_dictionaries({"version": st.sampled_from(["documented", "upstream"])}),
        "runtime_profiles": st.fixed_dictionaries(
            {
                "d": st.fixed_dictionaries(
                    {
                        "max_context_tokens": st.integers(0, 20_000),
                        "max_history_messages": st.integers(1, 40),
                        "max_tool_result_chars": st.sampled_from([0, 300, 3000]),
                    }
                )
            }
        ),
        "provider": st.fixed_dictionaries(
            {"model": st.just("m"), "context_window": st.sampled_from([0, 3_000, 9_000, 50_000])}
        ),
    }
)
AI_PROFILE = st.fixed_dictionaries(
    {
        "max_tokens": st.integers(0, 4096),
        "limits": st.fixed_dictionaries(
            {"preset": st.fixed_dictionaries({"contextWindow": st.integers(9_000, 60_000)})}
        ),
        "provider": st.fixed_dictionaries({"context_window": st.integers(2_000, 40_000)}),
    }
)
OPENCLAW = st.fixed_dictionaries(
    {
        "agents": st.fixed_dictionaries(
            {
                "defaults": st.fixed_dictionaries(
                    {
                        "contextPruning": st.fixed_dictionaries(
                            {
                                "mode": st.just("cache-ttl"),
                                "ttl": st.sampled_from(["1m", "5m", "0"]),
                                "minPrunableToolChars": st.sampled_from([0, 2000, 50_000]),
                                "keepLastAssistants": st.integers(0, 4),
                            }
                        )
                    }
                )
            }
        ),
        "model": st.fixed_dictionaries({"contextWindow": st.sampled_from([8_000, 20_000, 60_000])}),
    }
)


@settings(max_examples=60, deadline=None)
@given(
    doc=st.one_of(ZEROCLAW, AI_PROFILE, OPENCLAW),
    turns=st.integers(0, 30),
    result_chars=st.sampled_from([200, 1500, 4000]),
    clocked=st.booleans(),
    pause_every=st.integers(0, 5),
)
def test_fast_and_reference_replays_give_the_same_result(doc, turns, result_chars, clocked, pause_every):
    text = (
        synthetic_openclaw_session(turns, tool_result_chars=result_chars, pause_every=pause_every)
        if clocked
        else _chat(turns, result_chars, pause_every)
    )
    transcript = parse_transcript(text)
    profile = profile_from_document(doc, name="p")
    assert simulate(transcript, profile) == simulate(transcript, profile, reference=True)


@pytest.mark.parametrize("sample", sorted(SAMPLES_DIR.glob("*.json*")), ids=lambda p: p.name)
@pytest.mark.parametrize(
    "doc",
    [
        {"runtime_profiles": {"d": {"max_context_tokens": 3000, "max_history_messages": 4}}},
        {"trimscope": {"version": "upstream"}, "runtime_profiles": {"d": {"max_context_tokens": 3000}}},
        {"limits": {"preset": {"contextWindow": 12_000}}, "provider": {"context_window": 9_000}},
        {"contextPruning": {"mode": "cache-ttl", "ttl": "1m", "minPrunableToolChars": 0}},
    ],
    ids=["zeroclaw-proposed", "zeroclaw-released", "ai-profile", "openclaw"],
)
def test_samples_replay_the_same_fast_and_reference(sample, doc):
    transcript = parse_transcript(sample.read_text(encoding="utf-8"))
    profile = profile_from_document(doc, name="p")
    assert simulate(transcript, profile) == simulate(transcript, profile, reference=True)


@settings(max_examples=40, deadline=None)
@given(
    version=st.sampled_from(["documented", "upstream"]),
    cap=st.integers(1, 8),
    budget=st.sampled_from([0, 2_000, 6_000, 20_000]),
    window=st.sampled_from([0, 4_000, 12_000]),
    truncate=st.sampled_from([0, 500]),
    turns=st.integers(10, 60),
    usage_every=st.integers(0, 4),
    clocked=st.booleans(),
)
def test_zeroclaw_caps_told_from_the_bookkeeping_match_the_runtime_functions_over_long_sessions(
    version, cap, budget, window, truncate, turns, usage_every, clocked
):
    """Many trims per session, caps and budgets interleaved: the held history is cut again and again."""
    text = (
        synthetic_openclaw_session(turns, tool_result_chars=900, pause_every=usage_every)
        if clocked
        else _chat(turns, 900, usage_every)
    )
    doc = {
        "trimscope": {"version": version},
        "runtime_profiles": {
            "d": {
                "max_context_tokens": budget,
                "max_history_messages": cap,
                "max_tool_result_chars": truncate,
            }
        },
        "provider": {"model": "m", "context_window": window},
    }
    transcript = parse_transcript(text)
    profile = profile_from_document(doc, name="p")
    fast = simulate(transcript, profile)
    assert fast == simulate(transcript, profile, reference=True)
    assert fast.trims > 0
