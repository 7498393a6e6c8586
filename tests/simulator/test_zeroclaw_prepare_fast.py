"""Preparing a ZeroClaw replay converts, sizes and finds the calls in one pass (``prepare_zeroclaw``); the
answer is exactly the reference's (``zeroclaw_chat_rows``, the estimator, ``model_calls``), and so is the
error when the reference refuses a message.

Compared on generated transcripts around the common shapes (and odd ones, down to fields of the wrong
type), the fixtures, the shared samples and synthetic sessions; a synthetic session is checked to take the
one pass, so the comparison is not the reference against itself.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulator.errors import TranscriptParseError
from simulator.importers import parse_transcript
from simulator.replay import zeroclaw as replay_module
from simulator.replay.zeroclaw import prepare_zeroclaw, prepare_zeroclaw_reference
from simulator.synthetic import synthetic_openclaw_session
from simulator.transcript import Transcript
from tests.simulator.test_ai_profile_natives_fast import _transcript_files, messages


def _outcome(prepare: Any, transcript: Transcript) -> tuple[object, ...]:
    """What ``prepare`` gives, as text (types included), or what it raises."""
    try:
        p = prepare(transcript)
    except Exception as exc:  # noqa: BLE001 - the error is part of the answer
        return ("raised", type(exc), str(exc))
    fields = (p.natives, p.origins, p.tokens, p.prefix, p.calls, p.systems, p.boundaries, p.users)
    return ("prepared", repr(fields))


def _assert_same(transcript: Transcript) -> None:
    got = _outcome(prepare_zeroclaw, transcript)
    assert got == _outcome(prepare_zeroclaw_reference, transcript)
    if got[0] == "prepared":  # and equal as values, not only as text
        fast, reference = prepare_zeroclaw(transcript), prepare_zeroclaw_reference(transcript)
        assert fast.natives == reference.natives
        assert fast.calls == reference.calls


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(messages(), max_size=8))
def test_generated_transcripts_prepare_as_the_reference_does(drawn):
    _assert_same(Transcript("test", tuple(drawn)))


@pytest.mark.parametrize("path", _transcript_files(), ids=[p.name for p in _transcript_files()])
def test_fixtures_and_samples_prepare_as_the_reference_does(path):
    try:
        transcript = parse_transcript(path.read_text(encoding="utf-8"))
    except TranscriptParseError:
        pytest.skip("a fixture made to fail the import: nothing to prepare")
    _assert_same(transcript)


def _refused(*args: Any) -> Any:
    raise AssertionError(f"the one pass left a common message to the reference: {args!r}")


@pytest.mark.parametrize("turns", [1, 50, 500])
def test_synthetic_sessions_prepare_as_the_reference_does_in_one_pass(turns, monkeypatch):
    transcript = parse_transcript(synthetic_openclaw_session(turns, tool_result_chars=300))
    want = _outcome(prepare_zeroclaw_reference, transcript)
    for name in ("zeroclaw_chat_rows", "prepare_zeroclaw_reference", "model_calls"):
        monkeypatch.setattr(replay_module, name, _refused)
    assert _outcome(prepare_zeroclaw, transcript) == want
