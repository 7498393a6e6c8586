"""A transcript prepared once per runtime replays every profile exactly as a fresh replay does."""

from __future__ import annotations

import gc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator import PreparedReplay, prepare_replay, replay_prepared
from simulator.importers import parse_transcript
from simulator.long_lived import collector_paused
from simulator.presets import PRESETS
from simulator.profiles import profile_from_document
from simulator.replay import simulate
from simulator.synthetic import synthetic_openclaw_session
from tests.simulator.test_replay_reference import AI_PROFILE, OPENCLAW, ZEROCLAW, _chat

TRANSCRIPTS = {
    "clocked": parse_transcript(synthetic_openclaw_session(24, tool_result_chars=1500, pause_every=3)),
    "unclocked": parse_transcript(_chat(24, 1500, 2)),
}
PREPARED: dict[tuple[str, str], PreparedReplay] = {}


def _prepared(name: str, runtime: str) -> PreparedReplay:
    """One preparation per transcript and runtime, shared by every example (as a page's cache would)."""
    key = (name, runtime)
    if key not in PREPARED:
        PREPARED[key] = prepare_replay(TRANSCRIPTS[name], runtime)
    return PREPARED[key]


@settings(max_examples=60, deadline=None)
@given(doc=st.one_of(ZEROCLAW, AI_PROFILE, OPENCLAW), name=st.sampled_from(sorted(TRANSCRIPTS)))
def test_one_preparation_serves_every_profile_of_its_runtime(doc, name):
    profile = profile_from_document(doc, name="p")
    prepared = _prepared(name, profile.runtime)
    fresh = simulate(TRANSCRIPTS[name], profile)
    assert replay_prepared(prepared, profile) == fresh
    assert replay_prepared(prepared, profile, reference=True) == fresh


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.key)
def test_every_preset_replays_the_same_from_a_shared_preparation(preset):
    profile = profile_from_document(dict(preset.document), name=preset.key)
    for name, transcript in TRANSCRIPTS.items():
        assert replay_prepared(_prepared(name, profile.runtime), profile) == simulate(transcript, profile)


def test_assumed_times_are_prepared_into_the_transcript_and_said_in_the_warnings():
    transcript = TRANSCRIPTS["unclocked"]
    profile = profile_from_document(
        {"contextPruning": {"mode": "cache-ttl", "ttl": "1m", "minPrunableToolChars": 0}}, name="p"
    )
    prepared = prepare_replay(transcript, "openclaw", assumed_gap_seconds=600)
    result = replay_prepared(prepared, profile)
    assert result == simulate(transcript, profile, assumed_gap_seconds=600)
    assert result.warnings[-1] == "no timestamps: calls assumed 600 s apart"
    assert prepared.transcript.messages[0].timestamp_ms is not None


def test_a_clocked_transcript_is_prepared_as_it_is_whatever_gap_is_assumed():
    transcript = TRANSCRIPTS["clocked"]
    prepared = prepare_replay(transcript, "zeroclaw", assumed_gap_seconds=600)
    assert prepared.transcript is transcript
    assert prepared.note is None


def test_a_preparation_for_another_runtime_is_refused_by_name():
    prepared = _prepared("clocked", "zeroclaw")
    profile = profile_from_document({"limits": {"preset": {"contextWindow": 12_000}}}, name="mine")
    with pytest.raises(ValueError, match="prepared for zeroclaw, not for ai_profile \\(profile 'mine'\\)"):
        replay_prepared(prepared, profile)


def test_the_collector_is_paused_during_a_replay_and_restored_after_it():
    assert gc.isenabled()
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer replay is still running
    assert gc.isenabled()


def test_a_collector_left_off_by_the_caller_stays_off():
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_is_restored_when_a_replay_raises():
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_an_unclocked_transcript_is_prepared_with_the_default_gap_when_none_is_given():
    transcript = TRANSCRIPTS["unclocked"]
    prepared = prepare_replay(transcript, "openclaw")
    assert prepared.note == "no timestamps: calls assumed 30 s apart (the default)"
    assert prepared.transcript.messages[0].timestamp_ms is not None
    # ZeroClaw never reads the clock: nothing is stamped or said.
    assert prepare_replay(transcript, "zeroclaw").note is None
