"""OpenClaw 2026.7.1's fast transforms on a route that drops thinking answer as the reference does.

The transcript policy strips the thinking of every assistant but the latest with array content, after pruning,
the guard and image cleanup; the pruning pass sizes its context with the same strips. The fast path strips
each assistant once, from the call a newer one arrives on, and counts both size changes from sums. Sessions
here hold thinking in tool calls and final answers, thinking-only assistants (sent as the omission notice),
redacted thinking, an assistant with plain string content now and then (the policy then keeps an earlier
one whole: left to the reference), images and media references, results large enough to be soft-trimmed,
hard-cleared and cut by the guard, TTL pauses and routes that change between dropping and keeping thinking;
every call is checked against the reference, and the replays' records must be equal too.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import simulator.replay.openclaw_transforms as transforms_module
from simulator.importers import parse_transcript
from simulator.presets import PRESETS_BY_KEY
from simulator.profiles import profile_from_document
from simulator.replay.model import Fate
from simulator.replay.openclaw import replay_openclaw
from simulator.replay.openclaw_strips_2026_7 import ThinkingStrips
from simulator.runtimes.openclaw.estimate import estimate_message_chars
from simulator.synthetic import synthetic_openclaw_session
from tests.simulator.test_openclaw_fast_2026_9 import T0, _append_entry, _append_result, _iso, _text
from tests.simulator.test_openclaw_fast_2026_9_images import IMAGE, MEDIA_TEXTS
from tests.simulator.test_openclaw_fast_images import _both, _Checked

CLAUDE_37 = "claude-3-7-sonnet-20250219"
ROUTES = {
    "claude-3.7": ("anthropic", CLAUDE_37),
    "vertex": ("anthropic-vertex", "claude-3-5-sonnet"),
    "copilot": ("github-copilot", "claude-sonnet-4"),
    "keeps": ("anthropic", "claude-sonnet-4-6"),
}
THOUGHTS = st.sampled_from(
    [
        {"type": "thinking", "thinking": "Checking the plan first.", "thinkingSignature": "sig"},
        {"type": "thinking", "thinking": "考虑 " * 400, "thinkingSignature": "s" * 300},
        {"type": "redacted_thinking", "data": "x" * 2_000, "thinkingSignature": "sig"},
        {"type": "thinking", "thinking": "t" * 9_000},
    ]
)


class _Sized(_Checked):
    """Checked, and the change of the estimate it hands out equal to the one its changes make."""

    def call(self, setup, state, now, end):  # type: ignore[no-untyped-def]
        got, after = super().call(setup, state, now, end)
        if got.sent_delta is not None:
            natives = self._natives
            expected = sum(
                estimate_message_chars(m) - estimate_message_chars(natives[i]) for i, m in got.changed.items()
            )
            assert got.sent_delta == expected, end
        return got, after


def _assistant(draw: st.DrawFn, content: list[Any], route: str, now: int, stop: str) -> dict[str, Any]:
    provider, model = ROUTES[route]
    shape = draw(st.sampled_from(["thought", "plain", "thought", "two", "only", "string"]))
    body: Any = content
    if shape in ("thought", "two"):
        body = [draw(THOUGHTS), *content]
    if shape == "two":
        body.append(draw(THOUGHTS))
    if shape == "only" and stop == "stop":  # a thinking-only answer: sent as the omission notice
        body = [draw(THOUGHTS)]
    if shape == "string" and stop == "stop" and draw(st.booleans()):
        body = "plain answer"  # not an array: the policy keeps an earlier assistant whole
    meta = {"provider": provider, "model": model, "api": "anthropic-messages", "stopReason": stop}
    return {"role": "assistant", "content": body, **meta, "timestamp": now}


@st.composite
def thinking_sessions(draw: st.DrawFn) -> str:
    """A session's JSONL: thinking in most assistants, images and media now and then, results of all sizes."""
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "s", "timestamp": _iso(T0), "cwd": "/"}
    ]
    now = T0
    route = draw(st.sampled_from(["claude-3.7", "claude-3.7", "vertex", "copilot"]))
    rarely = st.integers(0, 9).map(lambda v: v == 4)
    sizes = st.sampled_from([300, 1_500, 4_500, 9_000, 1_500, 20_000, 4_500, 70_000])
    gaps = st.sampled_from([2_000, 30_000, 360_000, 1_500_000])
    for turn in range(draw(st.integers(2, 14))):
        now += draw(gaps)
        user: Any = f"turn {turn}"
        if draw(rarely):
            user = [{"type": "text", "text": f"turn {turn} {draw(st.sampled_from(MEDIA_TEXTS))}"}, IMAGE]
        _append_entry(lines, {"role": "user", "content": user, "timestamp": now}, now)
        turn_route = draw(st.sampled_from(["keeps", "vertex"])) if draw(rarely) else route
        for call in range(draw(st.integers(0, 3))):
            now += draw(st.sampled_from([500, 400_000]))
            tool = draw(st.sampled_from(["read", "exec", "browser"]))
            content = [{"type": "toolCall", "id": f"c{turn}_{call}", "name": tool, "arguments": {"n": call}}]
            _append_entry(lines, _assistant(draw, content, turn_route, now, "toolUse"), now)
            result: Any = [{"type": "text", "text": _text(draw(sizes), turn * 5 + call)}]
            if draw(rarely):
                result.append(IMAGE)
            _append_result(lines, f"c{turn}_{call}", tool, result, now + 200)
        if draw(rarely):
            continue  # a turn left open (no reply yet)
        now += 1_000
        answer = _assistant(draw, [{"type": "text", "text": "done"}], turn_route, now, "stop")
        _append_entry(lines, answer, now)
    return "\n".join(json.dumps(line) for line in lines) + "\n"


@st.composite
def profiles(draw: st.DrawFn) -> dict[str, Any]:
    pruning: dict[str, Any] = {"mode": draw(st.sampled_from(["cache-ttl", "cache-ttl", "cache-ttl", "off"]))}
    pruning["ttl"] = draw(st.sampled_from(["1m", "5m", "0"]))
    if draw(st.booleans()):
        pruning["tools"] = {"deny": ["exec"]}
    if draw(st.booleans()):
        pruning["hardClear"] = {"enabled": draw(st.booleans()), "placeholder": "[gone]"}
    if draw(st.booleans()):
        pruning["softTrim"] = {"maxChars": 2_000, "headChars": 500, "tailChars": 500}
    if draw(st.integers(0, 2)) > 0:  # eager: hard clears in short sessions too
        pruning.update(minPrunableToolChars=0, softTrimRatio=0.1, hardClearRatio=0.2)
    window = draw(st.sampled_from([200_000, 60_000, 40_000, 12_000]))
    return {
        "trimscope": {"runtime": "openclaw", "version": "2026.7.1"},
        "agents": {"defaults": {"contextPruning": pruning}},
        "model": {"provider": "anthropic", "id": CLAUDE_37, "contextWindow": window},
    }


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(thinking_sessions(), profiles())
def test_every_call_of_a_thinking_session_on_a_dropping_route_equals_the_reference(
    text: str, document: dict
) -> None:
    _both(text, document, _Sized)


def _paused_thinking_session(turns: int, thought: int) -> str:
    """The synthetic session on Claude 3.7 with large thinking and large results, paused every other turn."""
    text = synthetic_openclaw_session(
        turns, pause_every=2, tool_result_chars=6_000, thinking=True, model=CLAUDE_37
    )
    lines = [json.loads(line) for line in text.splitlines()]
    for k, entry in enumerate(lines):
        message = entry.get("message") if entry.get("type") == "message" else None
        if message is not None and message["role"] == "assistant":
            message["content"][0]["thinking"] = _text(thought, k)
    return "\n".join(json.dumps(line) for line in lines) + "\n"


_WINDOW_40K = {
    "trimscope": {"runtime": "openclaw", "version": "2026.7.1"},
    "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "5m"}}},
    "model": {"contextWindow": 40_000},
}


def test_a_long_thinking_session_on_claude_3_7_never_runs_the_reference() -> None:
    # Every call strips thinking (all but the first few): none is left to the reference or to the policy
    # over the whole history, and the records are the reference replay's.
    calls: list[int] = []
    original = transforms_module.reference_outcome

    def counted(natives, setup, state, now, end):  # type: ignore[no-untyped-def]
        calls.append(end)
        return original(natives, setup, state, now, end)

    text = synthetic_openclaw_session(150, thinking=True, model=CLAUDE_37)
    transcript = parse_transcript(text, format="openclaw")
    profile = profile_from_document(dict(PRESETS_BY_KEY["openclaw"].document), name="p")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(transforms_module, "reference_outcome", counted)
        fast = replay_openclaw(transcript, profile.settings, profile_name="p")
    assert calls == []
    slow = replay_openclaw(transcript, profile.settings, profile_name="p", reference=True)
    assert fast.calls == slow.calls
    dropped = [c for c in fast.calls if any(g.fate is Fate.THINKING_DROPPED for g in c.fated)]
    assert len(dropped) > len(fast.calls) * 0.9
    made, _ = _both(_paused_thinking_session(40, 3_000), _WINDOW_40K, _Sized)
    assert made.whole == 0


class _KeepsNoLatest(ThinkingStrips):
    """A broken policy: the latest assistant is stripped too."""

    def count(self, end: int) -> int | None:
        count = super().count(end)
        if count is not None and count < len(self.thinking) and self.thinking[count] < end:
            count += 1
            self._grow(count)
        return count


class _LatestStripped(_Checked):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._strips = _KeepsNoLatest(self._natives, self._thinking)


class _SizedWithThinking(_Checked):
    """A broken pruning pass: its estimate counts the thinking the route drops."""

    def _prune(self, setup, state, now, end, extra):  # type: ignore[no-untyped-def]
        return super()._prune(setup, state, now, end, 0)


def test_a_policy_that_strips_the_latest_assistant_is_noticed() -> None:
    text = synthetic_openclaw_session(12, thinking=True, model=CLAUDE_37)
    document = dict(PRESETS_BY_KEY["openclaw"].document)
    _both(text, document)
    with pytest.raises(AssertionError):
        _both(text, document, _LatestStripped)


def test_a_pruning_pass_sized_with_the_dropped_thinking_is_noticed() -> None:
    # Large thinking: the pass's ratio counts it stripped, and the hard clear stops at another result.
    text = _paused_thinking_session(40, 3_000)
    made, fast = _both(text, _WINDOW_40K)
    rules = {group.rule.split(":")[0].split(" (")[0] for call in fast.calls for group in call.fated}
    assert {"soft trim", "hard clear", "transcript policy dropThinkingBlocks"} <= rules, rules
    with pytest.raises(AssertionError):
        _both(text, _WINDOW_40K, _SizedWithThinking)


def test_the_contents_sent_told_per_call_equal_the_references() -> None:
    # What a call sent, asked after the replay (the cost model's changed contents): the fast view's stripped
    # assistants are told with the cleared run and the other rewrites, as the reference sends them.
    from tests.simulator.test_openclaw_fast_images import assert_contents_as_reference

    transcript = parse_transcript(_paused_thinking_session(40, 3_000), format="openclaw")
    profile = profile_from_document(_WINDOW_40K, name="p")
    result = replay_openclaw(transcript, profile.settings, profile_name="p")

    def dropped(call: Any) -> bool:
        return any(group.fate is Fate.THINKING_DROPPED for group in call.fated)

    assert assert_contents_as_reference(transcript, profile, result, dropped) > 10
