"""What truncation left of each message a ZeroClaw call sent, found by bisection over the replay's changes,
is what a pass over every change gives (the changes ascend by native index: each is made as its message
enters, in order)."""

from __future__ import annotations

import pytest

from simulator.convert import to_zeroclaw_chat
from simulator.importers import parse_transcript
from simulator.profiles import profile_from_document
from simulator.replay import simulate
from simulator.replay.zeroclaw import _truncate, truncated_contents
from simulator.runtimes.zeroclaw import ChatMessage
from simulator.synthetic import synthetic_openclaw_session

PROFILES = [
    {
        "runtime_profiles": {
            "d": {"max_context_tokens": 3000, "max_history_messages": 4, "max_tool_result_chars": 500}
        }
    },
    {"runtime_profiles": {"d": {"max_context_tokens": 20000, "max_tool_result_chars": 800}}},
    {
        "trimscope": {"version": "upstream"},
        "runtime_profiles": {"d": {"max_context_tokens": 6000, "max_tool_result_chars": 300}},
    },
]


def _every_change(transcript, settings, result, call):
    out = {}
    for change in result.content_changes:
        if not any(start <= change.native_index < end for start, end in call.sent):
            continue
        sources = [transcript.messages[i] for i in result.origins[change.native_index]]
        converted = to_zeroclaw_chat(sources).messages
        if len(converted) != 1:
            continue
        message = _truncate(ChatMessage.from_json(converted[0]), settings.max_tool_result_chars)
        out[change.native_index] = (change.tokens_after, message.content)
    return out


@pytest.mark.parametrize("document", PROFILES)
@pytest.mark.parametrize("turns", [30, 400])
def test_the_contents_found_by_bisection_are_those_of_every_change(document, turns):
    transcript = parse_transcript(synthetic_openclaw_session(turns, tool_result_chars=2000, session_id="t"))
    profile = profile_from_document(document, name="t")
    result = simulate(transcript, profile)
    indices = [c.native_index for c in result.content_changes]
    assert indices == sorted(indices) and len(set(indices)) == len(indices)
    assert result.content_changes  # truncation is on: the path under test is taken
    for call in result.calls:
        found = truncated_contents(transcript, profile.settings, result, call)
        assert found == _every_change(transcript, profile.settings, result, call)
