"""A call no rule changed gets the same record from the plain path as from the reference record builder; so
does a 2026.9.6 call whose only changes are old screenshots cleaned and old thinking stripped (the kept
record of ``kept_call``, checked call by call against the reference's outcome in
test_openclaw_fast_2026_9.py)."""

from __future__ import annotations

import dataclasses
import gzip
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulator.conformance.openclaw_replay_sessions import profile_document, session_jsonl
from simulator.importers import parse_transcript
from simulator.presets import PRESETS_BY_KEY
from simulator.profiles import profile_from_document
from simulator.replay import openclaw as replay_module
from simulator.replay.model import SimulationResult
from simulator.replay.openclaw import replay_openclaw
from simulator.replay.openclaw_transforms import FastTransforms, QuietChanges
from simulator.replay.openclaw_transforms_2026_9 import FastTransforms2026_9, KeptChanges
from simulator.runtimes.openclaw.route import OPENCLAW_VERSIONS, OpenClawVersion
from simulator.synthetic import synthetic_openclaw_session
from simulator.transcript import Transcript
from tests.simulator.test_openclaw_fast_2026_9 import profiles
from tests.simulator.test_openclaw_fast_2026_9_images import image_sessions as image_sessions_2026_9
from tests.simulator.test_openclaw_fast_images import image_sessions
from tests.simulator.test_openclaw_fast_thinking import CLAUDE_37, thinking_sessions

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "openclaw"


@contextmanager
def _plain(on: bool, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Records made with the plain paths on or off; yields the numbers of the calls they answered (the
    plain record of an outcome, and the quiet record of a call answered without one)."""
    answered: list[int] = []
    plain, quiet, kept = replay_module._plain_record, replay_module._quiet_record, replay_module._kept_record

    def counted(*args: Any) -> Any:
        answered.append(args[2].number)
        return plain(*args)

    def counted_quiet(*args: Any) -> Any:
        answered.append(args[1].call.number)
        return quiet(*args)

    def counted_kept(*args: Any) -> Any:
        answered.append(args[1].call.number)
        return kept(*args)

    with monkeypatch.context() as patched:
        patched.setattr(replay_module, "PLAIN_RECORDS", on)
        patched.setattr(replay_module, "_plain_record", counted)
        patched.setattr(replay_module, "_quiet_record", counted_quiet)
        patched.setattr(replay_module, "_kept_record", counted_kept)
        yield answered


def _both(
    transcript: Transcript, document: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> tuple[SimulationResult, SimulationResult, list[int]]:
    profile = profile_from_document(document, name="p")
    with _plain(True, monkeypatch) as answered:
        plain = replay_openclaw(transcript, profile.settings, profile_name="p")
    with _plain(False, monkeypatch) as none:
        full = replay_openclaw(transcript, profile.settings, profile_name="p")
    assert none == []
    return plain, full, answered


def _document(version: OpenClawVersion, ttl: str, window: int | None) -> dict[str, Any]:
    document: dict[str, Any] = {
        "trimscope": {"runtime": "openclaw", "version": version},
        "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": ttl}}},
    }
    if window is not None:
        document["model"] = {"contextWindow": window}
    return document


@settings(max_examples=20, deadline=None)
@given(
    st.integers(1, 30),
    st.sampled_from(OPENCLAW_VERSIONS),
    st.sampled_from(["1m", "5m", "0"]),
    st.sampled_from([None, 8_000, 40_000]),
    st.integers(0, 5),
)
def test_plain_records_equal_the_reference_records(turns, version, ttl, window, pause_every):
    transcript = parse_transcript(
        synthetic_openclaw_session(turns, tool_result_chars=1500, pause_every=pause_every), format="openclaw"
    )
    with pytest.MonkeyPatch.context() as monkeypatch:
        plain, full, answered = _both(transcript, _document(version, ttl, window), monkeypatch)
    assert plain == full
    assert answered  # an attempt's calls that changed nothing (every session has some)


@pytest.mark.parametrize("version", OPENCLAW_VERSIONS)
def test_plain_records_equal_the_reference_records_on_the_session_vectors(
    version: OpenClawVersion, monkeypatch: pytest.MonkeyPatch
):
    # The vectors hold what the synthetic sessions do not: inactive routes, images, thinking, compaction.
    vectors = json.loads(gzip.decompress((VECTORS / version / "sessions.json.gz").read_bytes()))
    answered = 0
    for vector in vectors[::3]:
        transcript = parse_transcript(session_jsonl(vector, write_markers=False), format="openclaw")
        plain, full, numbers = _both(transcript, profile_document(vector, version), monkeypatch)
        assert plain.calls == full.calls, vector["name"]
        answered += len(numbers)
    assert answered > 50


def test_a_broken_plain_path_is_noticed(monkeypatch: pytest.MonkeyPatch):
    transcript = parse_transcript(synthetic_openclaw_session(12, tool_result_chars=1500), format="openclaw")
    document = _document("2026.7.1", "5m", 8_000)
    plain = replay_module._plain_record

    def one_token_more(*args: Any) -> Any:
        record = plain(*args)
        return msgspec.structs.replace(record, tokens_sent=record.tokens_sent + 1)

    monkeypatch.setattr(replay_module, "_plain_record", one_token_more)
    broken, full, answered = _both(transcript, document, monkeypatch)
    assert answered
    assert broken.calls != full.calls


@pytest.mark.parametrize("version", OPENCLAW_VERSIONS)
def test_a_broken_quiet_record_is_noticed(version: OpenClawVersion, monkeypatch: pytest.MonkeyPatch):
    # The record of a call answered without its outcome (most calls of a long session).
    transcript = parse_transcript(synthetic_openclaw_session(12, tool_result_chars=1500), format="openclaw")
    quiet = replay_module._quiet_record

    def no_notes(*args: Any) -> Any:
        return msgspec.structs.replace(quiet(*args), notes=())

    monkeypatch.setattr(replay_module, "_quiet_record", no_notes)
    broken, full, answered = _both(transcript, _document(version, "5m", 8_000), monkeypatch)
    assert answered
    assert broken.calls != full.calls


@pytest.mark.parametrize("version", OPENCLAW_VERSIONS)
def test_most_calls_of_a_long_session_get_the_quiet_record(
    version: OpenClawVersion, monkeypatch: pytest.MonkeyPatch
):
    transcript = parse_transcript(synthetic_openclaw_session(60), format="openclaw")
    profile = profile_from_document(_document(version, "5m", None), name="p")
    quiet = replay_module._quiet_record
    answered: list[int] = []

    def counted(*args: Any) -> Any:
        answered.append(args[1].call.number)
        return quiet(*args)

    monkeypatch.setattr(replay_module, "_quiet_record", counted)
    fast = replay_openclaw(transcript, profile.settings, profile_name="p")
    slow = replay_openclaw(transcript, profile.settings, profile_name="p", reference=True)
    assert fast.calls == slow.calls
    assert fast.resume == slow.resume  # what recomputing each call needs, too
    assert len(answered) > len(fast.calls) * 3 // 4


@contextmanager
def _cleaned_counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Yields the numbers of the calls answered quietly with old images cleaned or thinking stripped: those
    whose record the replay leaves to be made when read (by :func:`_cleaned_record`)."""
    answered: list[int] = []
    made = replay_module._made_when_read

    def counted(session: Any, records: list[object]) -> Any:
        pending = [item for item in records if type(item) is tuple]
        answered.extend(item[0].call.number for item in pending if isinstance(item[3], QuietChanges))
        return made(session, records)

    with monkeypatch.context() as patched:
        patched.setattr(replay_module, "_made_when_read", counted)
        yield answered


def _cleaning_document(ttl: str, window: int | None) -> dict[str, Any]:
    document = _document("2026.7.1", ttl, window)
    document["model"] = {**document.get("model", {}), "provider": "anthropic", "id": CLAUDE_37}
    return document


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(image_sessions(), thinking_sessions()),
    st.sampled_from(["1m", "5m", "0"]),
    st.sampled_from([None, 40_000, 12_000]),
)
def test_records_of_calls_that_only_clean_or_strip_equal_the_reference_records(text, ttl, window):
    # Screenshots and media references, thinking on a route that drops it: a call whose only changes are
    # old messages cleaned and assistants stripped is answered quietly, its record the reference's.
    transcript = parse_transcript(text, format="openclaw")
    with pytest.MonkeyPatch.context() as monkeypatch, _cleaned_counted(monkeypatch) as cleaned:
        plain, full, _ = _both(transcript, _cleaning_document(ttl, window), monkeypatch)
    assert plain == full
    # Only calls the reference gives fates (a call with the gate open, which prunes, is not answered so).
    assert set(cleaned) <= {call.number for call in full.calls if call.fated and call.overflow == "none"}


@pytest.mark.parametrize("shape", ["screenshots", "thinking"])
def test_most_calls_that_clean_or_strip_get_the_cleaned_record(shape: str, monkeypatch: pytest.MonkeyPatch):
    options: dict[str, Any] = {"screenshot_every": 2} if shape == "screenshots" else {"thinking": True}
    text = synthetic_openclaw_session(60, model=CLAUDE_37, **options)
    transcript = parse_transcript(text, format="openclaw")
    with _cleaned_counted(monkeypatch) as cleaned:
        plain, full, _ = _both(transcript, _cleaning_document("5m", None), monkeypatch)
    assert plain.calls == full.calls
    assert plain.resume == full.resume  # what recomputing each call needs, too
    changing = [call for call in full.calls if call.fated and call.overflow == "none"]
    assert len(cleaned) > len(changing) // 2


def _unsized(part: str) -> Any:
    """A broken quiet answer: the change of the estimate leaves out the cleanups' or the strips' part."""
    answer = FastTransforms._cleaned_and_stripped

    def broken(self: FastTransforms, end: int, policy: int) -> Any:
        changes = answer(self, end, policy)
        if changes is None:
            return None
        if part == "cleanups":
            left_out = self._cleanup.delta_to(len(changes.images))
        else:
            left_out = self._strips.delta(len(changes.policy))
        return dataclasses.replace(changes, sent_delta=changes.sent_delta - left_out)

    return broken


@pytest.mark.parametrize(
    ("part", "options"), [("cleanups", {"screenshot_every": 2}), ("strips", {"thinking": True})]
)
def test_a_quiet_answer_that_leaves_out_a_size_change_is_noticed(
    part: str, options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
):
    transcript = parse_transcript(
        synthetic_openclaw_session(30, model=CLAUDE_37, **options), format="openclaw"
    )
    monkeypatch.setattr(FastTransforms, "_cleaned_and_stripped", _unsized(part))
    with _cleaned_counted(monkeypatch) as cleaned:
        broken, full, _ = _both(transcript, _cleaning_document("5m", None), monkeypatch)
    assert cleaned
    assert broken.calls != full.calls


@pytest.mark.parametrize("field", ["fated", "notes", "marks", "trimmed"])
def test_a_broken_cleaned_record_is_noticed(field: str, monkeypatch: pytest.MonkeyPatch):
    transcript = parse_transcript(
        synthetic_openclaw_session(30, model=CLAUDE_37, screenshot_every=2, thinking=True), format="openclaw"
    )
    cleaned = replay_module._cleaned_record

    def broken(*args: Any) -> Any:
        record = cleaned(*args)
        return msgspec.structs.replace(record, **{field: False if field == "trimmed" else ()})

    monkeypatch.setattr(replay_module, "_cleaned_record", broken)
    broken_result, full, _ = _both(transcript, _cleaning_document("5m", None), monkeypatch)
    assert broken_result.calls != full.calls


def _kept_counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The numbers of the calls ``kept_call`` answers from now on: those whose record the replay leaves to
    be made when read (by :func:`_kept_record`)."""
    made = replay_module._made_when_read
    answered: list[int] = []

    def counted(session: Any, records: list[object]) -> Any:
        pending = [item for item in records if type(item) is tuple]
        answered.extend(item[0].call.number for item in pending if isinstance(item[3], KeptChanges))
        return made(session, records)

    monkeypatch.setattr(replay_module, "_made_when_read", counted)
    return answered


SHAPES: dict[str, dict[str, Any]] = {
    "screenshots": {"screenshot_every": 4},
    "screenshots, thinking": {"screenshot_every": 3, "thinking": True, "model": "claude-3-7-sonnet-20250219"},
    "thinking": {"thinking": True, "model": "claude-3-7-sonnet-20250219"},
}
"""Sessions whose calls send old screenshots cleaned or old thinking stripped, call after call."""


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("key", ["openclaw-2026.9.6", "openclaw-2026.9.6-openai"])
def test_kept_records_of_cleaned_and_stripped_sessions_equal_the_reference_records(
    shape: str, key: str, monkeypatch: pytest.MonkeyPatch
):
    transcript = parse_transcript(synthetic_openclaw_session(40, **SHAPES[shape]), format="openclaw")
    document = dict(PRESETS_BY_KEY[key].document)
    kept = _kept_counted(monkeypatch)
    plain, full, _ = _both(transcript, document, monkeypatch)
    assert plain.calls == full.calls
    assert plain.resume == full.resume
    profile = profile_from_document(document, name="p")
    slow = replay_openclaw(transcript, profile.settings, profile_name="p", reference=True)
    assert plain.calls == slow.calls
    # Every call after the first cleanup or strip (the thinking route: the OpenAI preset keeps thinking).
    changed = [c.number for c in plain.calls if c.trimmed]
    assert changed and (kept == changed or (shape == "thinking" and not kept and key.endswith("openai")))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_kept_records_of_image_heavy_sessions_equal_the_reference_records(data: st.DataObject):
    # Images and media references in user messages and tool results, thinking now and then, routes that
    # drop it, TTL pauses, soft trims, hard clears and compaction: kept records among the others.
    text, route = data.draw(image_sessions_2026_9())
    document = data.draw(profiles(route))
    transcript = parse_transcript(text, format="openclaw")
    with pytest.MonkeyPatch.context() as monkeypatch:
        kept = _kept_counted(monkeypatch)
        plain, full, _ = _both(transcript, document, monkeypatch)
    assert plain.calls == full.calls
    assert plain.resume == full.resume
    for number in kept:
        assert full.calls[number - 1].fated  # a kept call sends a cleaned message or a stripped assistant


THINKING_MODEL = "claude-3-7-sonnet-20250219"


@pytest.mark.parametrize("field", ["sent_delta", "policy", "images"])
def test_a_kept_answer_that_leaves_out_the_kept_changes_is_noticed(
    field: str, monkeypatch: pytest.MonkeyPatch
):
    # A kept answer blind to what earlier calls cleaned or stripped: its size as stored, or no fates.
    options = {"screenshot_every": 2} if field == "images" else {"thinking": True, "model": THINKING_MODEL}
    transcript = parse_transcript(synthetic_openclaw_session(12, **options), format="openclaw")
    kept_call = FastTransforms2026_9.kept_call

    def blind(self: FastTransforms2026_9, *args: Any) -> Any:
        answer = kept_call(self, *args)
        if answer is not None and isinstance(answer[0], KeptChanges):
            blank = 0 if field == "sent_delta" else ()
            return dataclasses.replace(answer[0], **{field: blank}), answer[1]
        return answer

    monkeypatch.setattr(FastTransforms2026_9, "kept_call", blind)
    kept = _kept_counted(monkeypatch)
    broken, full, _ = _both(transcript, dict(PRESETS_BY_KEY["openclaw-2026.9.6"].document), monkeypatch)
    assert kept
    assert broken.calls != full.calls
