"""What an OpenClaw call sent, recomputed on demand, equals the reference's answer for that call.

The cost model asks for every call whose messages a rule changed, in call order; pages ask for one call.
Both go through the replay's shared :class:`~simulator.replay.openclaw.OnDemand`, which answers from the
fast transforms' per-message facts (2026.7.1: the replay's own) or from the view the replay kept for the call
(2026.9.6; the reference for a call that fell back); the reference runs every transform over the call's
history.
"""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

import simulator.replay.openclaw as replay_module
from simulator.importers import parse_transcript
from simulator.presets import PRESETS_BY_KEY
from simulator.profiles import profile_from_document
from simulator.replay.openclaw import (
    CallInput,
    message_text,
    pruned_contents,
    replay_openclaw,
    sent_messages,
)
from simulator.replay.openclaw_session import native_messages
from simulator.replay.openclaw_transforms import FastTransforms
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


def _gemini_session() -> str:
    """The synthetic session on a Gemini route: cache-TTL pruning runs locally (on the Anthropic route of
    the synthetic session, 2026.9.6 leaves tool rounds to the server's clearing)."""
    text = synthetic_openclaw_session(40, tool_result_chars=6000, pause_every=2)
    return (
        text.replace('"anthropic-messages"', '"google-generative-ai"')
        .replace('"anthropic"', '"google"')
        .replace("claude-sonnet-4-6", "gemini-2.5-pro")
    )


CASES_2026_9 = {
    # The fast transforms answer every call (soft trims, hard clears, their sticky replays).
    "gemini-40k": ("gemini", 40_000),
    "gemini-20k": ("gemini", 20_000),
    # The guard cuts results: nearly every call falls back to the reference (nothing kept for it).
    "anthropic-9k": ("anthropic", 9_000),
}


@pytest.mark.parametrize("case", list(CASES_2026_9))
@pytest.mark.parametrize("order", ["calls", "shuffled"])
def test_every_2026_9_call_read_from_the_view_its_replay_kept_equals_the_reference(case, order):
    """2026.9.6 calls answered by the fast transforms keep the view the replay made for them; read after
    the replay has gone on to the end, each still gives what the reference sends at that call."""
    route, window = CASES_2026_9[case]
    text = (
        _gemini_session()
        if route == "gemini"
        else synthetic_openclaw_session(40, tool_result_chars=6000, pause_every=2)
    )
    transcript = parse_transcript(text)
    document = {
        "trimscope": {"version": "2026.9.6"},
        "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "5m"}}},
        "model": {"contextWindow": window},
    }
    profile = profile_from_document(document, name="p")
    result = replay_openclaw(transcript, profile.settings, profile_name="p")
    natives = native_messages(transcript)
    numbers = [c.number for c in result.calls]
    if order == "shuffled":
        random.Random(7).shuffle(numbers)
    kept = changed_calls = 0
    for number in numbers:
        item = result.resume[number - 1]
        assert isinstance(item, CallInput)
        kept += item.changed is not None
        fast = dict(sent_messages(transcript, profile.settings, result, number))
        reference = dict(sent_messages(transcript, profile.settings, result, number, natives))
        assert fast == reference, number
        call = result.calls[number - 1]
        assert pruned_contents(transcript, profile.settings, result, call) == {
            i: (math.ceil(estimate_message_chars(m) / 4), message_text(m)) for i, m in reference.items()
        }
        changed_calls += bool(fast)
    if route == "gemini":
        assert kept == len(numbers)  # never falls back: every call is read from its view
    else:
        assert kept < len(numbers) // 2
    assert changed_calls > 5


def test_a_2026_7_replay_hands_its_fast_transforms_to_its_calls_on_demand():
    """The replay's own fast transforms (facts grown over the whole session) answer its calls on demand:
    a late call does not grow them again from the first message."""
    transcript = parse_transcript(synthetic_openclaw_session(20, tool_result_chars=6000, pause_every=2))
    profile = profile_from_document(DOCUMENTS[0], name="p")
    result = replay_openclaw(transcript, profile.settings, profile_name="p")
    item = result.resume[-1]
    assert isinstance(item, CallInput) and item.on_demand is not None
    fast = item.on_demand._fast
    assert isinstance(fast, FastTransforms)
    assert len(fast._guards[item.setup.guard_window_tokens].chars) > item.end  # grown by the replay


@pytest.mark.parametrize(
    "options",
    [{"screenshot_every": 3}, {"thinking": True, "model": "claude-3-7-sonnet-20250219"}],
    ids=["screenshots", "thinking"],
)
def test_every_2026_9_call_that_sends_kept_cleanups_or_strips_reads_back_as_the_reference(
    options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
):
    """Calls answered with their kept changes alone (``kept_call``: old screenshots cleaned, old thinking
    stripped) keep the view ``changed`` of the call; read in any order after the replay, each gives what
    the reference sends at that call."""
    transcript = parse_transcript(synthetic_openclaw_session(30, **options))
    profile = profile_from_document(dict(PRESETS_BY_KEY["openclaw-2026.9.6"].document), name="p")
    record, kept = replay_module._kept_record, []

    def counted(*args: Any) -> Any:
        kept.append(args[1].call.number)
        return record(*args)

    monkeypatch.setattr(replay_module, "_kept_record", counted)
    result = replay_openclaw(transcript, profile.settings, profile_name="p")
    natives = native_messages(transcript)
    numbers = [c.number for c in result.calls]
    random.Random(11).shuffle(numbers)
    for number in numbers:
        item = result.resume[number - 1]
        assert isinstance(item, CallInput) and item.changed is not None
        fast = dict(sent_messages(transcript, profile.settings, result, number))
        reference = dict(sent_messages(transcript, profile.settings, result, number, natives))
        assert fast == reference, number
        assert pruned_contents(transcript, profile.settings, result, result.calls[number - 1]) == {
            i: (math.ceil(estimate_message_chars(m) / 4), message_text(m)) for i, m in reference.items()
        }
        assert bool(fast) == (number in kept), number  # every call that sends a change is a kept one
    assert len(kept) > len(numbers) // 2
