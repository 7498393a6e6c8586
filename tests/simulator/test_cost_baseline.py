"""The as-recorded baseline made once for a transcript and runtime gives the same cost as the baseline
each pricing makes itself, for every runtime; one made for other inputs is refused."""

from __future__ import annotations

import json

import pytest

from simulator import profile_cost, recorded_baseline
from simulator.importers import parse_transcript
from simulator.presets import PRESETS
from simulator.profiles import profile_from_document
from simulator.replay import simulate
from simulator.synthetic import synthetic_openclaw_session
from tests.support import tool_heavy_chat


def _anthropic_log(turns: int) -> str:
    """An Anthropic Messages log whose replies record cache writes and reads (the prediction is compared
    with them)."""
    messages: list[dict[str, object]] = []
    for n in range(turns):
        messages.append({"role": "user", "content": f"look at file {n}.py " * 40})
        messages.append(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": f"file {n} has a bug " * 30}],
                "usage": {
                    "input_tokens": 12,
                    "output_tokens": 9,
                    "cache_creation_input_tokens": 300 * n,
                    "cache_read_input_tokens": 250 * n,
                },
            }
        )
    return json.dumps(
        {"model": "claude-sonnet-4-5-20250929", "system": "review " * 600, "messages": messages}
    )


TRANSCRIPTS = {
    "anthropic log with cache usage": lambda: parse_transcript(_anthropic_log(12)),
    "OpenAI chat": lambda: parse_transcript(tool_heavy_chat(30)),
    "OpenClaw session": lambda: parse_transcript(synthetic_openclaw_session(20), format="openclaw"),
}


def _profiles():
    seen: dict[str, object] = {}
    for preset in PRESETS:  # the first preset of each runtime, and both OpenClaw versions
        profile = profile_from_document(dict(preset.document), name=preset.key)
        key = f"{profile.runtime}:{profile.spec.version}"
        seen.setdefault(key, profile)
    return list(seen.values())


@pytest.mark.parametrize("name", sorted(TRANSCRIPTS))
@pytest.mark.parametrize("gap, ttl", [(None, "5m"), (45.0, "1h")])
def test_a_baseline_made_once_prices_as_each_replay_makes_it(name, gap, ttl):
    transcript = TRANSCRIPTS[name]()
    profiles = _profiles()
    assert len({p.runtime for p in profiles}) >= 3
    for profile in profiles:
        result = simulate(transcript, profile)
        own = profile_cost(transcript, profile, result, assumed_gap_seconds=gap, ttl=ttl)
        if profile.runtime == "as_recorded":
            continue
        baseline = recorded_baseline(transcript, profile.runtime, assumed_gap_seconds=gap, ttl=ttl)
        shared = profile_cost(
            transcript, profile, result, assumed_gap_seconds=gap, ttl=ttl, baseline=baseline
        )
        assert shared == own, profile.name
        assert shared.baseline is baseline.session and shared.recorded is baseline.recorded
        if name == "anthropic log with cache usage":
            assert own.recorded is not None and own.recorded.recorded_calls == 12


@pytest.mark.parametrize(
    "other",
    [{"assumed_gap_seconds": 99.0}, {"ttl": "1h"}, {"pricing": "openai/gpt-5.5"}, {"runtime": "other"}],
)
def test_a_baseline_made_for_other_inputs_is_refused(other):
    transcript = TRANSCRIPTS["OpenAI chat"]()
    profile = next(p for p in _profiles() if p.runtime == "zeroclaw")
    result = simulate(transcript, profile)
    runtime = other.pop("runtime", "zeroclaw")
    if runtime == "other":
        runtime = next(p.runtime for p in _profiles() if p.runtime not in {"zeroclaw", "as_recorded"})
    baseline = recorded_baseline(transcript, runtime, **other)
    if runtime != "zeroclaw" and baseline.key[0] == recorded_baseline(transcript, "zeroclaw").key[0]:
        pytest.skip("the other runtime shares ZeroClaw's breakpoint policy")
    with pytest.raises(ValueError, match="a baseline made for"):
        profile_cost(transcript, profile, result, baseline=baseline)
