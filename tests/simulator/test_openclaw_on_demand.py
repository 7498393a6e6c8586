"""What an OpenClaw call sent, recomputed on demand, equals the reference's answer for that call.

The cost model asks for every call whose messages a rule changed, in call order; pages ask for one call.
Both go through the replay's shared :class:`~simulator.replay.openclaw.OnDemand`, which answers from the
fast transforms' per-message facts (2026.7.1; 2026.9.6 runs the reference for the call); the reference runs
every transform over the call's history.
"""

from __future__ import annotations

import math
import random

import pytest

from simulator.importers import parse_transcript
from simulator.profiles import profile_from_document
from simulator.replay.openclaw import message_text, pruned_contents, replay_openclaw, sent_messages
from simulator.replay.openclaw_session import native_messages
from simulator.runtimes.openclaw.estimate import estimate_message_chars
from simulator.synthetic import synthetic_openclaw_session

DOCUMENTS = [
    {
        "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "5m"}}},
        "model": {"contextWindow": 30000},
    },
    {
        "agents": {
            "defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "5m", "keepLastAssistants": 1}}
        },
        "model": {"contextWindow": 9000},
    },
]


@pytest.mark.parametrize("document", DOCUMENTS, ids=["default", "tight"])
@pytest.mark.parametrize("order", ["calls", "shuffled"])
def test_every_call_recomputed_on_demand_equals_the_reference(document, order):
    transcript = parse_transcript(synthetic_openclaw_session(40, tool_result_chars=6000, pause_every=2))
    profile = profile_from_document(document, name="p")
    result = replay_openclaw(transcript, profile.settings, profile_name="p")
    natives = native_messages(transcript)
    numbers = [c.number for c in result.calls]
    if order == "shuffled":
        random.Random(7).shuffle(numbers)
    changed_calls = 0
    for number in numbers:
        fast = dict(sent_messages(transcript, profile.settings, result, number))
        reference = dict(sent_messages(transcript, profile.settings, result, number, natives))
        assert fast == reference, number
        call = result.calls[number - 1]
        assert pruned_contents(transcript, profile.settings, result, call) == {
            i: (math.ceil(estimate_message_chars(m) / 4), message_text(m)) for i, m in reference.items()
        }
        changed_calls += bool(fast)
    assert changed_calls > 5  # the session prunes after its pauses
