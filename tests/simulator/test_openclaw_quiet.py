"""A call the fast transforms answer without its outcome (``quiet_gate``, 2026.7.1; ``quiet_state``,
2026.9.6: tests/simulator/test_openclaw_fast_2026_9.py) is one the reference changes nothing at.

Each 2026.7.1 quiet answer is checked against ``reference_outcome`` on the same inputs: the same gate,
nothing guarded, cleaned, dropped or changed, no overflow, the state as it was; the replays' records and
resume inputs must equal the reference replay's too.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simulator.replay.openclaw as replay_module
from simulator.conformance.openclaw_replay_sessions import profile_document, session_jsonl
from simulator.importers import parse_transcript
from simulator.profiles import profile_from_document
from simulator.replay.openclaw import replay_openclaw
from simulator.replay.openclaw_transforms import FastTransforms, Outcome, QuietChanges, reference_outcome
from simulator.runtimes.openclaw.estimate import estimate_message_chars
from simulator.runtimes.openclaw.messages import AgentMessage
from simulator.runtimes.openclaw.ttl_gate import TtlGateOutcome
from simulator.synthetic import synthetic_openclaw_session
from simulator.transcript import Transcript

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "openclaw"
QuietAnswer = tuple[TtlGateOutcome, bool, QuietChanges | None]


def quiet_differs(natives: Sequence[AgentMessage], ref: Outcome, answer: QuietAnswer) -> str | None:
    """The field in which the reference's outcome is not the quiet answer's: its gate, no pass, nothing
    guarded, the overflow as told, the old messages cleaned and the assistants stripped as told, nothing
    else changed, and the change of the estimate as told."""
    gate, overflow, changes = answer
    images, policy, delta = (changes.images, changes.policy, changes.sent_delta) if changes else ((), (), 0)
    assert changes is None or images or policy  # a quiet answer that changed nothing says so
    expected = {
        "overflow": overflow,
        "gate": gate,
        "pruned": None,
        "guard": (),
        "images": images,
        "policy": policy,
    }
    for name, value in expected.items():
        if getattr(ref, name) != value:
            return name
    changed = dict(ref.changed)
    if set(changed) != {*images, *policy}:
        return "changed"
    sizes = sum(estimate_message_chars(m) - estimate_message_chars(natives[i]) for i, m in changed.items())
    return "sent_delta" if sizes != delta else None


class _Checked(FastTransforms):
    """The 2026.7.1 fast transforms, each quiet answer checked against the reference's."""

    made: list[_Checked] = []

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.quiet = 0
        self.overflows = 0
        self.cleaned = 0
        """Quiet answers that sent old images cleaned or thinking stripped."""
        _Checked.made.append(self)

    def quiet_gate(self, setup, state, now, end):  # type: ignore[no-untyped-def]
        answer = super().quiet_gate(setup, state, now, end)
        if answer is not None:
            self.quiet += 1
            self.overflows += answer[1]
            self.cleaned += answer[2] is not None
            ref, ref_after = reference_outcome(self._natives, setup, state, now, end)
            differs = quiet_differs(self._natives, ref, answer)
            assert differs is None, (end, differs)
            assert ref_after == state, end
        return answer


class _Blind(_Checked):
    """A broken quiet path: it never looks for a result over the guard's share, or for an overflow."""

    def quiet_gate(self, setup, state, now, end):  # type: ignore[no-untyped-def]
        facts = self._guards.get(setup.guard_window_tokens)
        if facts is not None and len(facts.chars) > end:
            over, facts.over = facts.over, []
            limit, facts.max_context = facts.max_context, 10**12
            try:
                return super().quiet_gate(setup, state, now, end)
            finally:
                facts.over, facts.max_context = over, limit
        return super().quiet_gate(setup, state, now, end)


@contextmanager
def _fast(cls: type[_Checked]) -> Iterator[list[_Checked]]:
    original = replay_module.FastTransforms
    _Checked.made = []
    replay_module.FastTransforms = cls  # type: ignore[misc]
    try:
        yield _Checked.made
    finally:
        replay_module.FastTransforms = original  # type: ignore[misc]


def _both(transcript: Transcript, document: dict[str, Any], cls: type[_Checked] = _Checked) -> int:
    """Both replays equal; how many calls the quiet path answered."""
    profile = profile_from_document(document, name="p")
    with _fast(cls) as made:
        fast = replay_openclaw(transcript, profile.settings, profile_name="p")
    slow = replay_openclaw(transcript, profile.settings, profile_name="p", reference=True)
    assert fast.calls == slow.calls
    assert fast.resume == slow.resume
    return sum(m.quiet for m in made)


def _document(ttl: str, window: int | None) -> dict[str, Any]:
    document: dict[str, Any] = {
        "trimscope": {"runtime": "openclaw", "version": "2026.7.1"},
        "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": ttl}}},
    }
    if window is not None:
        document["model"] = {"contextWindow": window}
    return document


@settings(max_examples=15, deadline=None)
@given(
    st.integers(1, 30),
    st.sampled_from(["1m", "5m", "0"]),
    st.sampled_from([None, 2_000, 8_000, 40_000]),
    st.integers(0, 5),
    st.sampled_from([300, 1_500, 9_000]),
)
def test_quiet_answers_equal_the_reference(turns, ttl, window, pause_every, size):
    # Small windows: results over the guard's share and overflowing calls, which are not quiet.
    text = synthetic_openclaw_session(turns, tool_result_chars=size, pause_every=pause_every)
    quiet = _both(parse_transcript(text, format="openclaw"), _document(ttl, window))
    assert quiet > 0 or ttl == "0" or window == 2_000


def test_quiet_answers_equal_the_reference_on_the_session_vectors():
    # Inactive routes, images, thinking: what the synthetic sessions do not hold.
    vectors = json.loads(gzip.decompress((VECTORS / "2026.7.1" / "sessions.json.gz").read_bytes()))
    quiet = 0
    for vector in vectors:
        transcript = parse_transcript(session_jsonl(vector, write_markers=False), format="openclaw")
        quiet += _both(transcript, profile_document(vector, "2026.7.1"))
    assert quiet > 0  # few: most of their calls hold an image, a result over the share, or run a pass


def test_most_calls_of_a_long_plain_session_are_quiet():
    transcript = parse_transcript(synthetic_openclaw_session(60), format="openclaw")
    with _fast(_Checked) as made:
        profile = profile_from_document(_document("5m", None), name="p")
        result = replay_openclaw(transcript, profile.settings, profile_name="p")
    assert made[0].quiet > len(result.calls) * 3 // 4


def test_overflowing_calls_of_a_long_session_are_quiet():
    # The default preset's window fills up: every later call is a preemptive overflow, answered quietly.
    transcript = parse_transcript(synthetic_openclaw_session(80, tool_result_chars=4_000), format="openclaw")
    profile = profile_from_document(_document("5m", 40_000), name="p")
    with _fast(_Checked) as made:
        fast = replay_openclaw(transcript, profile.settings, profile_name="p")
    slow = replay_openclaw(transcript, profile.settings, profile_name="p", reference=True)
    assert fast == slow
    assert made[0].overflows > 40


def test_a_quiet_path_blind_to_the_guard_is_noticed():
    text = synthetic_openclaw_session(12, tool_result_chars=9_000)
    with pytest.raises(AssertionError, match="guard|overflow"):
        _both(parse_transcript(text, format="openclaw"), _document("5m", 8_000), _Blind)


_SHAPES = {
    "screenshots": {"screenshot_every": 2},
    "thinking": {"thinking": True},
    "both": {"screenshot_every": 3, "thinking": True},
}


def _shaped(shape: str, turns: int) -> Transcript:
    """The synthetic session on Claude 3.7 (a route that drops thinking), with screenshots or thinking."""
    text = synthetic_openclaw_session(turns, model="claude-3-7-sonnet-20250219", **_SHAPES[shape])
    return parse_transcript(text, format="openclaw")


@pytest.mark.parametrize("shape", sorted(_SHAPES))
def test_quiet_answers_that_clean_or_strip_equal_the_reference(shape: str):
    # Old screenshots cleaned, thinking stripped, nothing else changed: answered quietly, each answer the
    # reference's outcome (what it cleaned and stripped, every message it changed, the estimate's change).
    transcript = _shaped(shape, 50)
    profile = profile_from_document(_document("5m", None), name="p")
    with _fast(_Checked) as made:
        fast = replay_openclaw(transcript, profile.settings, profile_name="p")
    slow = replay_openclaw(transcript, profile.settings, profile_name="p", reference=True)
    assert fast.calls == slow.calls
    assert fast.resume == slow.resume
    assert made[0].cleaned > len(fast.calls) // 2


class _Unstripped(_Checked):
    """A broken quiet path: it sends the thinking the route drops."""

    def _cleaned_and_stripped(self, end: int, policy: int) -> QuietChanges | None:
        return super()._cleaned_and_stripped(end, 0)


class _Unsized(_Checked):
    """A broken quiet path: the change of the estimate leaves out what the cleanup changed."""

    def _cleaned_and_stripped(self, end: int, policy: int) -> QuietChanges | None:
        changes = super()._cleaned_and_stripped(end, policy)
        if changes is None:
            return None
        left_out = self._cleanup.delta_to(len(changes.images))
        return QuietChanges(changes.images, changes.policy, changes.sent_delta - left_out)


@pytest.mark.parametrize(
    ("shape", "broken", "field"),
    [("thinking", _Unstripped, "policy"), ("screenshots", _Unsized, "sent_delta")],
)
def test_a_quiet_path_blind_to_strips_or_cleanups_is_noticed(shape: str, broken: type[_Checked], field: str):
    profile = profile_from_document(_document("5m", None), name="p")
    with _fast(broken), pytest.raises(AssertionError, match=field):
        replay_openclaw(_shaped(shape, 20), profile.settings, profile_name="p")
