"""OpenClaw 2026.7.1's fast transforms clean old images and media references as the reference does.

History image cleanup runs after pruning and the guard, over the guarded context, on every user message and
tool result before the third-last completed turn's start (the open turn counted once it has a reply). The
fast path sends each stored message cleaned from the call its turn comes of age (built once), cleans a
message pruning or the guard rewrote as rewritten, and counts the change of the estimate from sums. Sessions
here are heavy in images and media references, in user messages and tool results (string content too),
with results large enough to be soft-trimmed, hard-cleared and cut by the guard, and TTL pauses; every call
(and every quiet answer) is checked against the reference, and the replays' records must be equal too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import simulator.replay.openclaw as replay_module
from simulator.importers import parse_transcript
from simulator.presets import PRESETS_BY_KEY
from simulator.profiles import profile_from_document
from simulator.replay.openclaw import replay_openclaw
from simulator.replay.openclaw_cleanup_2026_7 import HistoryCleanup
from simulator.replay.openclaw_transforms import FastTransforms, Outcome, reference_outcome
from simulator.runtimes.openclaw import attempt as attempt_module
from simulator.runtimes.openclaw.context_guard import guard_message_chars
from simulator.runtimes.openclaw.estimate import estimate_message_chars
from simulator.runtimes.openclaw.image_prune import completed_turn_starts
from simulator.runtimes.openclaw.messages import AgentMessage
from simulator.synthetic import synthetic_openclaw_session
from tests.simulator.test_openclaw_fast_2026_9 import T0, _append_entry, _append_result, _iso, _text
from tests.simulator.test_openclaw_fast_2026_9_images import (
    IMAGE,
    MEDIA_TEXTS,
    _with_images,
    draw_result,
    draw_user,
)
from tests.simulator.test_openclaw_quiet import quiet_differs

_FIELDS = [name for name in Outcome.__slots__ if name not in ("changed", "sent_delta", "sticky")]


def _gate(outcome: Outcome) -> object:
    # The reference's gate keeps the pruner's own result; the pass is compared as ``pruned``.
    gate = outcome.gate
    return gate if gate is None else (gate.decision, gate.elapsed_ms)


def _differs(fast: Outcome, ref: Outcome) -> str | None:
    if _gate(fast) != _gate(ref):
        return "gate"
    for name in _FIELDS:
        if name != "gate" and getattr(fast, name) != getattr(ref, name):
            return name
    # The lazy view's size is counted, not listed: both must agree with the reference's mapping.
    if len(fast.changed) != len(ref.changed) or dict(fast.changed) != dict(ref.changed):
        return "changed"
    return None


class _Checked(FastTransforms):
    """The 2026.7.1 fast transforms, each answer (and quiet answer) checked against the reference's."""

    made: list[_Checked] = []

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.calls = 0
        self.quiet = 0
        self.cleaned = 0
        """Quiet answers that sent old images cleaned or thinking stripped (the rest of ``quiet``)."""
        self.whole = 0
        """Calls that cleaned the whole guarded history (``_cleanup_and_policy``)."""
        _Checked.made.append(self)

    def call(self, setup, state, now, end):  # type: ignore[no-untyped-def]
        self.calls += 1
        got, after = super().call(setup, state, now, end)
        ref, ref_after = reference_outcome(self._natives, setup, state, now, end)
        assert _differs(got, ref) is None, (end, _differs(got, ref))
        assert after == ref_after, end
        return got, after

    def quiet_gate(self, setup, state, now, end):  # type: ignore[no-untyped-def]
        answer = super().quiet_gate(setup, state, now, end)
        if answer is not None:
            self.quiet += 1
            self.cleaned += answer[2] is not None
            ref, ref_after = reference_outcome(self._natives, setup, state, now, end)
            assert quiet_differs(self._natives, ref, answer) is None, (
                end,
                quiet_differs(self._natives, ref, answer),
            )
            assert ref_after == state, end
        return answer

    def _cleanup_and_policy(self, final, end, needs_cleanup, needs_policy):  # type: ignore[no-untyped-def]
        self.whole += 1
        return super()._cleanup_and_policy(final, end, needs_cleanup, needs_policy)


@contextmanager
def _fast(cls: type[_Checked]) -> Iterator[list[_Checked]]:
    original = replay_module.FastTransforms
    _Checked.made = []
    replay_module.FastTransforms = cls  # type: ignore[misc]
    try:
        yield _Checked.made
    finally:
        replay_module.FastTransforms = original  # type: ignore[misc]


def _both(text: str, document: dict[str, Any], cls: type[_Checked] = _Checked) -> tuple[_Checked, Any]:
    transcript = parse_transcript(text, format="openclaw")
    profile = profile_from_document(document, name="p")
    with _fast(cls) as made:
        fast = replay_openclaw(transcript, profile.settings, profile_name="p")
    slow = replay_openclaw(transcript, profile.settings, profile_name="p", reference=True)
    assert fast.calls == slow.calls
    assert fast.resume == slow.resume
    return made[0], fast


@st.composite
def image_sessions(draw: st.DrawFn) -> str:
    """A session's JSONL: images and media references in many turns, results of every size."""
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "s", "timestamp": _iso(T0), "cwd": "/"}
    ]
    now = T0
    often = st.integers(0, 2).map(lambda v: v == 1)
    sizes = st.sampled_from([300, 1_500, 4_500, 9_000, 20_000, 70_000])
    gaps = st.sampled_from([2_000, 30_000, 360_000, 1_500_000])
    meta = {"provider": "anthropic", "model": "claude-sonnet-4-6", "api": "anthropic-messages"}
    for turn in range(draw(st.integers(3, 14))):
        now += draw(gaps)
        user = draw_user(draw, turn, often)
        _append_entry(lines, {"role": "user", "content": user, "timestamp": now}, now)
        for call in range(draw(st.integers(0, 3))):
            now += draw(st.sampled_from([500, 400_000]))
            tool = draw(st.sampled_from(["read", "exec", "browser"]))
            content = [{"type": "toolCall", "id": f"c{turn}_{call}", "name": tool, "arguments": {}}]
            _append_entry(
                lines,
                {"role": "assistant", "content": content, **meta, "stopReason": "toolUse", "timestamp": now},
                now,
            )
            result = draw_result(draw, _text(draw(sizes), turn * 5 + call))
            _append_result(lines, f"c{turn}_{call}", tool, result, now + 200)
        if draw(often):
            continue  # a turn left open (no reply yet): the cutoff counts it only once replied
        now += 1_000
        _append_entry(
            lines,
            {"role": "assistant", "content": [{"type": "text", "text": "done"}], **meta, "timestamp": now},
            now,
        )
    return "\n".join(json.dumps(line) for line in lines) + "\n"


@st.composite
def profiles(draw: st.DrawFn) -> dict[str, Any]:
    pruning: dict[str, Any] = {"mode": draw(st.sampled_from(["cache-ttl", "cache-ttl", "off"]))}
    pruning["ttl"] = draw(st.sampled_from(["1m", "5m", "0"]))
    if draw(st.booleans()):
        pruning["tools"] = {"deny": ["exec"]}
    if draw(st.booleans()):
        placeholder = draw(st.sampled_from(["[gone]", "[media attached: /tmp/x.png]"]))
        pruning["hardClear"] = {"enabled": draw(st.booleans()), "placeholder": placeholder}
    if draw(st.booleans()):
        pruning["softTrim"] = {"maxChars": 2_000, "headChars": 500, "tailChars": 500}
    if draw(st.booleans()):  # eager: hard clears in short sessions too
        pruning.update(minPrunableToolChars=0, softTrimRatio=0.1, hardClearRatio=0.2)
    window = draw(st.sampled_from([200_000, 40_000, 12_000]))
    return {
        "trimscope": {"runtime": "openclaw", "version": "2026.7.1"},
        "agents": {"defaults": {"contextPruning": pruning}},
        "model": {"provider": "anthropic", "id": "claude-sonnet-4-6", "contextWindow": window},
    }


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(image_sessions(), profiles())
def test_every_call_of_an_image_heavy_session_equals_the_reference(text: str, document: dict) -> None:
    _both(text, document)


def test_a_long_session_with_old_images_never_cleans_the_whole_history() -> None:
    # The benchmark's session with screenshots: each old message is cleaned once, as its turn comes of age;
    # no call walks the whole history (the reference's prune_processed_history_images is never run), and a
    # call that only cleans is answered without its outcome.
    calls: list[int] = []
    original = attempt_module.prune_processed_history_images

    def counted(messages, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(len(messages))
        return original(messages, **kwargs)

    text = _with_images(synthetic_openclaw_session(60), 4)
    transcript = parse_transcript(text, format="openclaw")
    profile = profile_from_document(dict(PRESETS_BY_KEY["openclaw"].document), name="p")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(attempt_module, "prune_processed_history_images", counted)
        fast = replay_openclaw(transcript, profile.settings, profile_name="p")
        assert calls == []
        slow = replay_openclaw(transcript, profile.settings, profile_name="p", reference=True)
    assert fast.calls == slow.calls
    cleaned = [call for call in fast.calls if "image-cleanup" in call.marks]
    assert len(cleaned) > len(fast.calls) // 2
    made, _ = _both(text, dict(PRESETS_BY_KEY["openclaw"].document))
    assert made.whole == 0 and made.calls + made.quiet == len(fast.calls)  # every call checked
    # Most calls that clean change nothing else: answered quietly (each checked against the reference).
    assert made.cleaned > len(cleaned) // 2


def test_pruned_and_guarded_results_are_cleaned_as_rewritten_on_the_fast_path() -> None:
    # A 40k window and TTL pauses: large results with media are soft-trimmed, hard-cleared and cut by the
    # guard, then cleaned once old; none of those calls is left to the whole-history cleanup.
    lines = [json.loads(line) for line in synthetic_openclaw_session(40, pause_every=3).splitlines()]
    results = 0
    for entry in lines:
        message = entry.get("message") if entry.get("type") == "message" else None
        if message is not None and message["role"] == "toolResult":
            results += 1
            body = _text([1_500, 6_000, 300, 9_000, 40_000][results % 5], results)
            message["content"] = [{"type": "text", "text": f"{MEDIA_TEXTS[results % 4]}\n{body}"}]
            if results % 3 == 0:
                message["content"].append(IMAGE)
    text = "\n".join(json.dumps(line) for line in lines) + "\n"
    document = {
        "trimscope": {"runtime": "openclaw", "version": "2026.7.1"},
        "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "5m"}}},
        "model": {"contextWindow": 40_000},
    }
    made, fast = _both(text, document)
    assert made.whole == 0
    rules = {group.rule.split(":")[0] for call in fast.calls for group in call.fated}
    assert {"soft trim", "hard clear", "history image cleanup"} <= {r.split(" (")[0] for r in rules}, rules


class _NineSix(HistoryCleanup):
    """A broken cutoff: the turns counted as 2026.9.6 counts them (the open turn never)."""

    def cutoff(self, end: int) -> int:
        starts = completed_turn_starts(self._natives[:end], count_open_turn=False)
        return starts[-3] if len(starts) > 3 else 0


class _Misdated(_Checked):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._cleanup = _NineSix(self._natives, self._media, self._stored_size)


class _Dirty(HistoryCleanup):
    """A broken cleanup: a message the guard or pruning rewrote is sent as rewritten, never cleaned."""

    def clean(self, message: AgentMessage) -> AgentMessage:
        return message


class _RewritesLeftDirty(_Checked):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._cleanup = _Dirty(self._natives, self._media, self._stored_size)


def test_a_cleanup_that_miscounts_the_turns_is_noticed() -> None:
    text = _with_images(synthetic_openclaw_session(12), 1)
    _both(text, dict(PRESETS_BY_KEY["openclaw"].document))
    with pytest.raises(AssertionError):
        _both(text, dict(PRESETS_BY_KEY["openclaw"].document), _Misdated)


def test_a_cleanup_that_leaves_rewritten_results_dirty_is_noticed() -> None:
    lines = [json.loads(line) for line in synthetic_openclaw_session(12).splitlines()]
    for entry in lines:
        message = entry.get("message") if entry.get("type") == "message" else None
        if message is not None and message["role"] == "toolResult":
            message["content"] = [{"type": "text", "text": f"{MEDIA_TEXTS[0]}\n{_text(30_000, 1)}"}]
    text = "\n".join(json.dumps(line) for line in lines) + "\n"
    document = {
        "trimscope": {"runtime": "openclaw", "version": "2026.7.1"},
        "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "5m"}}},
        "model": {"contextWindow": 60_000},
    }
    _both(text, document)
    with pytest.raises(AssertionError):
        _both(text, document, _RewritesLeftDirty)


def assert_contents_as_reference(
    transcript: Any, profile: Any, result: Any, chosen: Callable[[Any], bool]
) -> int:
    """The contents each ``chosen`` call sent, asked after the replay (the cost model's changed contents,
    runs kept as runs), equal the reference's; how many calls were asked."""
    from simulator.replay.openclaw import message_text, native_messages, pruned_contents, sent_messages
    from simulator.replay.openclaw_runs import pruned_runs
    from simulator.runtimes.openclaw.estimate import estimate_message_chars

    natives = native_messages(transcript)
    told = 0
    for call in result.calls:
        if not chosen(call):
            continue
        fast = dict(pruned_runs(transcript, profile.settings, result, call))
        reference = sent_messages(transcript, profile.settings, result, call.number, natives)
        assert fast == {
            i: (-(-estimate_message_chars(m) // 4), message_text(m)) for i, m in reference.items()
        }
        assert fast == pruned_contents(transcript, profile.settings, result, call)
        told += 1
    return told


def test_the_contents_sent_told_per_call_equal_the_references() -> None:
    # What a call sent, asked after the replay (the cost model's changed contents, runs kept as runs): the
    # fast view's cleaned messages are told with the cleared run, as the reference sends them.
    from simulator.cost.from_replay import requests_from_result
    from simulator.replay.openclaw import pruned_contents
    from simulator.replay.openclaw_runs import pruned_runs

    text = _with_images(synthetic_openclaw_session(80, pause_every=2, tool_result_chars=9_000), 3)
    transcript = parse_transcript(text, format="openclaw")
    profile = profile_from_document(dict(PRESETS_BY_KEY["openclaw"].document), name="p")
    result = replay_openclaw(transcript, profile.settings, profile_name="p")
    told = assert_contents_as_reference(
        transcript, profile, result, lambda call: "image-cleanup" in call.marks
    )
    assert told > 40

    def general(call):  # type: ignore[no-untyped-def]
        return pruned_contents(transcript, profile.settings, result, call)

    def runs(call):  # type: ignore[no-untyped-def]
        return pruned_runs(transcript, profile.settings, result, call)

    built = requests_from_result(transcript, result, changed=runs)
    expected = requests_from_result(transcript, result, changed=general)
    assert [tuple(r.segments) for r in built] == [tuple(r.segments) for r in expected]


class _Sized(_Checked):
    """Checked, and the change of the estimate it hands out equal to the one its changes make."""

    def call(self, setup, state, now, end):  # type: ignore[no-untyped-def]
        got, after = super().call(setup, state, now, end)
        if got.sent_delta is not None:
            natives = self._natives
            expected = sum(
                estimate_message_chars(m) - estimate_message_chars(natives[i]) for i, m in got.changed.items()
            )
            assert got.sent_delta == expected, (end, "sent_delta")
        return got, after


def _screenshots_hard_cleared() -> str:
    """The synthetic session with a screenshot in every other result, paused every other turn: on an eager
    profile, runs of old screenshots hard-cleared call after call."""
    return synthetic_openclaw_session(60, pause_every=2, tool_result_chars=3_000, screenshot_every=2)


_EAGER_40K = {
    "trimscope": {"runtime": "openclaw", "version": "2026.7.1"},
    "agents": {
        "defaults": {
            "contextPruning": {
                "mode": "cache-ttl",
                "ttl": "5m",
                "minPrunableToolChars": 0,
                "softTrimRatio": 0.1,
                "hardClearRatio": 0.2,
            }
        }
    },
    "model": {"contextWindow": 40_000},
}


def test_old_screenshots_in_a_hard_cleared_run_are_sent_cleared_and_sized_so() -> None:
    # The run's old screenshots are counted out of the cleanup by prefix sums, not visited: the messages
    # sent (cleared, so the cleanup changes none of them), which the cleanup changed and the change of the
    # estimate are the reference's.
    made, fast = _both(_screenshots_hard_cleared(), _EAGER_40K, _Sized)
    rules = [{g.rule.split(":")[0] for g in c.fated} for c in fast.calls]
    assert sum(1 for r in rules if "hard clear" in r) > 10 and made.whole == 0


class _RunCleanedToo(_Sized):
    """A broken cleanup: a hard-cleared run's old screenshots are sent cleaned, not cleared."""

    def _skipped(self, run, count, few):  # type: ignore[no-untyped-def]
        return frozenset(few), sum(self._cleanup.delta(k) for k in few)


class _RunMiscounted(_Sized):
    """A broken count: the run's screenshots are left out of the change of the estimate once too often."""

    def _cleanable_candidates(self, sums, hi):  # type: ignore[no-untyped-def]
        inside, deltas = super()._cleanable_candidates(sums, hi)
        return inside, [d * 2 for d in deltas]


@pytest.mark.parametrize("broken", [_RunCleanedToo, _RunMiscounted])
def test_a_cleanup_that_miscounts_a_hard_cleared_run_is_noticed(broken: type[_Checked]) -> None:
    with pytest.raises(AssertionError):
        _both(_screenshots_hard_cleared(), _EAGER_40K, broken)


_WHOLE_TEXT_40K = {
    "trimscope": {"runtime": "openclaw", "version": "2026.7.1"},
    "agents": {
        "defaults": {
            "contextPruning": {
                "mode": "cache-ttl",
                "ttl": "5m",
                "softTrimRatio": 0.1,
                "softTrim": {"maxChars": 100_000},
                "hardClear": {"enabled": False},
            }
        }
    },
    "model": {"contextWindow": 40_000},
}


class _PrunedUncut(_Checked):
    """A broken guard: a result the pass rewrote is never truncated (its stored size kept)."""

    def _guarded(self, message, max_single):  # type: ignore[no-untyped-def]
        return message, guard_message_chars(message)


def test_results_the_pass_rewrote_are_truncated_by_the_guard_as_the_reference_does() -> None:
    # Screenshots in results over the single-result share whose text the soft trim keeps whole: the pass
    # replaces the image and the guard truncates the rewritten result, pass after pass (kept by identity).
    text = synthetic_openclaw_session(6, pause_every=1, tool_result_chars=60_000, screenshot_every=1)
    _, fast = _both(text, _WHOLE_TEXT_40K)
    rules = [{g.rule.split(":")[0] for g in c.fated} for c in fast.calls if c.overflow == "none"]
    assert (
        sum(
            1
            for r in rules
            if {"images in tool results replaced during soft trim", "tool-result context guard"} <= r
        )
        >= 2
    )
    with pytest.raises(AssertionError):
        _both(text, _WHOLE_TEXT_40K, _PrunedUncut)
