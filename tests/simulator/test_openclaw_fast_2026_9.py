"""OpenClaw 2026.9.6's fast transforms answer exactly what the reference answers, call by call.

Every call of a generated session runs both ways: the outcome (every field, ``changed`` as a mapping), the
state after it, and each attempt's start must be equal; the replays' records too. Fallbacks are counted
so the tests also show the fast path is what answered.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
from collections.abc import Iterator
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
from simulator.replay.openclaw_transforms import Outcome, reference_outcome, start_on_history
from simulator.replay.openclaw_transforms_2026_9 import FastTransforms2026_9, KeptChanges
from simulator.runtimes.openclaw.estimate import estimate_message_chars
from simulator.runtimes.openclaw.v2026_9_6.cache_ttl import source_texts
from simulator.synthetic import synthetic_openclaw_session

T0 = 1_772_960_000_000
_FIELDS = (
    "overflow",
    "gate",
    "pruned",
    "cache_ttl",
    "guard",
    "images",
    "policy",
    "budget",
    "compaction",
    "compacted_through",
    "last_touch_before",
    "sent_delta",
)


def _differs(fast: Outcome, ref: Outcome) -> str | None:
    for name in _FIELDS:
        if name == "sent_delta":
            continue  # the reference leaves it unset; the records (compared below) check the sizes
        if getattr(fast, name) != getattr(ref, name):
            return name
    return None if dict(fast.changed) == dict(ref.changed) else "changed"


class _Checked(FastTransforms2026_9):
    """The fast transforms, each answer checked against the reference's on the same inputs."""

    made: list[_Checked] = []

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.kept_calls: list[bool] = []
        """Per call ``kept_call`` answered: whether with :class:`KeptChanges` (else with the outcome)."""
        _Checked.made.append(self)

    def start(self, config, route, markers, state, version, end):  # type: ignore[no-untyped-def]
        got = super().start(config, route, markers, state, version, end)
        assert got == start_on_history(self._natives, config, route, markers, state, version, end)
        return got

    def call(self, setup, state, now, end):  # type: ignore[no-untyped-def]
        got, after = super().call(setup, state, now, end)
        self._check(got, after, setup, state, now, end)
        return got, after

    def _check(self, got, after, setup, state, now, end):  # type: ignore[no-untyped-def]
        ref, ref_after = reference_outcome(self._natives, setup, state, now, end)
        assert _differs(got, ref) is None, (self.calls, _differs(got, ref))
        # The lazy views' sizes are counted from sums, not from their items: both must agree.
        assert len(got.changed) == len(list(got.changed))
        views = [
            *(got.sticky or ()),
            *((got.cache_ttl.replayed, got.cache_ttl.messages) if got.cache_ttl else ()),
        ]
        assert all(len(view) == len(tuple(view)) for view in views)
        assert after == ref_after, self.calls

    def kept_call(self, setup, state, now, end):  # type: ignore[no-untyped-def]
        answer = super().kept_call(setup, state, now, end)
        if answer is None:
            return None
        got, after = answer
        self.kept_calls.append(type(got) is KeptChanges)
        if type(got) is not KeptChanges:
            self._check(got, after, setup, state, now, end)  # the outcome kept_call ran the call to
            return answer
        ref, ref_after = reference_outcome(self._natives, setup, state, now, end)
        differs = _kept_differs(got, ref, state.clock.last_cache_touch_at, self._natives)
        assert differs is None, (self.calls, differs)
        assert after == ref_after, self.calls
        return answer

    def quiet_state(self, setup, state, now, end):  # type: ignore[no-untyped-def]
        after = super().quiet_state(setup, state, now, end)
        if after is not None:
            ref, ref_after = reference_outcome(self._natives, setup, state, now, end)
            differs = _quiet_differs(ref, state.clock.last_cache_touch_at)
            assert differs is None, (self.calls, differs)
            assert after == ref_after, self.calls
        return after


def _quiet_differs(ref: Outcome, touched: float | None) -> str | None:
    """The field in which the reference's outcome is not one that changed and replayed nothing with the
    pass on and its last touch ``touched`` (all a quiet call's record reads: ``quiet_state``)."""
    expected = {
        "overflow": False,
        "gate": None,
        "pruned": None,
        "guard": (),
        "images": (),
        "policy": (),
        "budget": (),
        "compaction": None,
        "compacted_through": None,
        "last_touch_before": touched,
    }
    for name, value in expected.items():
        if getattr(ref, name) != value:
            return name
    ttl = ref.cache_ttl
    if (
        ttl is None
        or ttl.pruned
        or ttl.soft_trimmed
        or ttl.hard_cleared
        or tuple(ttl.replayed)
        or ttl.ratio is not None
    ):
        return "cache_ttl"
    return "changed" if dict(ref.changed) else None


def _kept_differs(kept: KeptChanges, ref: Outcome, touched: float | None, natives: Any) -> str | None:
    """The field in which the reference's outcome is not the one ``kept`` stands for: nothing guarded,
    cut, compacted or replayed, the pass quiet, its last touch ``touched``, the same messages cleaned and
    assistants stripped, the same messages sent changed, and ``sent_delta`` the sum of their changes."""
    differs = _quiet_differs(_with(ref, images=(), policy=(), changed={}), touched)
    if differs is not None:
        return differs
    if tuple(kept.images) != tuple(ref.images) or tuple(kept.policy) != tuple(ref.policy):
        return "images" if tuple(kept.images) != tuple(ref.images) else "policy"
    if dict(kept.changed) != dict(ref.changed) or len(kept.changed) != len(list(kept.changed)):
        return "changed"
    delta = sum(
        estimate_message_chars(m) - estimate_message_chars(natives[i]) for i, m in ref.changed.items()
    )
    return None if kept.sent_delta == delta else "sent_delta"


def _with(outcome: Outcome, **fields: Any) -> Outcome:
    return dataclasses.replace(outcome, **fields)


@contextmanager
def _checked() -> Iterator[list[_Checked]]:
    original = replay_module.FastTransforms2026_9
    _Checked.made = []
    replay_module.FastTransforms2026_9 = _Checked  # type: ignore[misc]
    try:
        yield _Checked.made
    finally:
        replay_module.FastTransforms2026_9 = original  # type: ignore[misc]


def _iso(ms: int) -> str:
    stamp = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


ROUTES = {
    "anthropic": ("anthropic", "claude-sonnet-4-6", "anthropic-messages"),
    "vertex": ("anthropic-vertex", "claude-3-5-sonnet", "anthropic-messages"),
    "openai": ("openai", "gpt-5.4", "openai-responses"),
    "gemini": ("google", "gemini-2.5-pro", "google-generative-ai"),
    "other": ("mistral", "mistral-large", "mistral-conversations"),
}

_TEXT = "line {i}: value={v} ok\n"


def _append_entry(lines: list[dict[str, Any]], message: dict[str, Any], stamp: int) -> None:
    """A ``message`` entry chained to the entry before it."""
    lines.append(
        {
            "type": "message",
            "id": f"e{len(lines)}",
            "parentId": f"e{len(lines) - 1}" if len(lines) > 1 else None,
            "timestamp": _iso(stamp),
            "message": message,
        }
    )


def _append_result(lines: list[dict[str, Any]], call_id: str, tool: str, content: Any, stamp: int) -> None:
    """A tool result ``message`` entry (``isError`` false) chained to the entry before it."""
    message = {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": tool,
        "content": content,
        "isError": False,
        "timestamp": stamp,
    }
    _append_entry(lines, message, stamp)


def _text(size: int, seed: int) -> str:
    out = "".join(_TEXT.format(i=i, v=seed * 7 + i) for i in range(size // 20 + 1))
    return out[:size]


@st.composite
def sessions(draw: st.DrawFn) -> tuple[str, str]:
    """A session's JSONL and the route it mostly uses."""
    route = draw(st.sampled_from(sorted(ROUTES)))
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "s", "timestamp": _iso(T0), "cwd": "/"}
    ]
    now = T0

    def add(message: dict[str, Any], stamp: int) -> None:
        _append_entry(lines, message, stamp)

    # Drawn values: hypothesis favours the first/simplest, so the rare cases are not the simplest ones.
    rarely = st.integers(0, 39).map(lambda v: v == 17)
    sometimes = st.integers(0, 5).map(lambda v: v == 3)
    sizes = st.sampled_from([1_500, 12, 0, 4_500, 1_500, 4_500, 9_000, 1_500, 20_000, 70_000])
    gaps = st.sampled_from([2_000, 30_000, 240_000, 360_000, 1_500_000])
    for turn in range(draw(st.integers(1, 16))):
        now += draw(gaps)
        provider, model, api = ROUTES[
            route if not draw(sometimes) else draw(st.sampled_from(["other", "vertex"]))
        ]
        user: Any = f"turn {turn}"
        if draw(rarely):
            user = [
                {"type": "text", "text": user},
                {"type": "image", "data": "aGk=", "mimeType": "image/png"},
            ]
        add({"role": "user", "content": user, "timestamp": now}, now)
        for call in range(draw(st.integers(0, 3))):
            now += draw(st.sampled_from([500, 1_000, 400_000]))
            content: list[dict[str, Any]] = []
            if draw(rarely):
                content.append({"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig"})
            tool = draw(st.sampled_from(["read", "exec", "grep"]))
            content.append({"type": "toolCall", "id": f"c{turn}_{call}", "name": tool, "arguments": {}})
            meta = {"provider": provider, "model": model, "api": api, "stopReason": "toolUse"}
            add({"role": "assistant", "content": content, **meta, "timestamp": now}, now)
            result: list[dict[str, Any]] = [{"type": "text", "text": _text(draw(sizes), turn * 5 + call)}]
            if draw(rarely):
                result.append({"type": "image", "data": "aGk=", "mimeType": "image/png"})
            message = {
                "role": "toolResult",
                "toolCallId": f"c{turn}_{call}",
                "toolName": tool,
                "content": result,
                "isError": False,
                "timestamp": now + 200,
            }
            add(message, now + 200)
        now += 1_000
        meta = {"provider": provider, "model": model, "api": api, "stopReason": "stop"}
        add(
            {"role": "assistant", "content": [{"type": "text", "text": "done"}], **meta, "timestamp": now},
            now,
        )
    return "\n".join(json.dumps(line) for line in lines) + "\n", route


@st.composite
def profiles(draw: st.DrawFn, route: str) -> dict[str, Any]:
    provider, model, api = ROUTES[route]
    pruning: dict[str, Any] = {"mode": draw(st.sampled_from(["cache-ttl", "cache-ttl", "off"]))}
    if draw(st.booleans()):
        pruning["ttl"] = draw(st.sampled_from(["1m", "5m", "0"]))
    if draw(st.booleans()):
        pruning["tools"] = {"deny": ["exec"]}
    if draw(st.booleans()):
        pruning["hardClear"] = {"enabled": draw(st.booleans()), "placeholder": "[gone]"}
    trimscope: dict[str, Any] = {"runtime": "openclaw", "version": "2026.9.6"}
    budget = draw(st.sampled_from([None, 60_000, 20_000]))
    if budget is not None:
        trimscope["contextTokenBudget"] = budget
    trimscope["modelCompaction"] = draw(st.booleans())
    trimscope["compactionSummaryTokens"] = draw(st.sampled_from([10, 2_000]))
    model_block: dict[str, Any] = {"provider": provider, "id": model, "api": api}
    model_block["contextWindow"] = draw(st.sampled_from([200_000, 40_000, 12_000]))
    if route == "openai":
        model_block["baseUrl"] = "https://api.openai.com/v1"
    if draw(st.booleans()):
        model_block["params"] = {"anthropicServerCompaction": True, "responsesCompactThreshold": 3_000}
    return {"trimscope": trimscope, "agents": {"defaults": {"contextPruning": pruning}}, "model": model_block}


def _both(text: str, document: dict[str, Any]) -> tuple[list[_Checked], Any, Any]:
    transcript = parse_transcript(text, format="openclaw")
    profile = profile_from_document(document, name="p")
    with _checked() as made:
        fast = replay_openclaw(transcript, profile.settings, profile_name="p")
    slow = replay_openclaw(transcript, profile.settings, profile_name="p", reference=True)
    return made, fast, slow


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_call_and_state_equals_the_reference(data: st.DataObject) -> None:
    text, route = data.draw(sessions())
    document = data.draw(profiles(route))
    _, fast, slow = _both(text, document)
    assert fast.calls == slow.calls


def test_the_fast_path_answers_the_plain_calls_of_both_presets() -> None:
    text = synthetic_openclaw_session(3, tool_result_chars=70_000)
    for key in ("openclaw-2026.9.6", "openclaw-2026.9.6-openai"):
        made, fast, slow = _both(text, dict(PRESETS_BY_KEY[key].document))
        assert fast.calls == slow.calls
        assert made[0].calls == len(fast.calls) and made[0].fallbacks == 0
        assert any(group.rule.startswith("provider-bound") for call in fast.calls for group in call.fated)


def _plain_session(turns: int, sizes: list[int], route: str, pause_every: int = 3) -> str:
    """One user → tool call → result → answer per turn, a pause past the TTL every few turns."""
    provider, model, api = ROUTES[route]
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "s", "timestamp": _iso(T0), "cwd": "/"}
    ]
    now = T0
    for turn in range(turns):
        now += 400_000 if turn % pause_every == 0 else 3_000
        meta = {"provider": provider, "model": model, "api": api}
        call = {"type": "toolCall", "id": f"c{turn}", "name": "read", "arguments": {"n": turn}}
        text = _text(sizes[turn % len(sizes)], turn)
        for message in (
            {"role": "user", "content": f"turn {turn}", "timestamp": now},
            {"role": "assistant", "content": [call], **meta, "stopReason": "toolUse", "timestamp": now + 1},
            {
                "role": "toolResult",
                "toolCallId": f"c{turn}",
                "toolName": "read",
                "content": [{"type": "text", "text": text}],
                "isError": False,
                "timestamp": now + 2,
            },
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "ok"}],
                **meta,
                "stopReason": "stop",
                "timestamp": now + 3,
            },
        ):
            _append_entry(lines, message, int(message["timestamp"]))  # type: ignore[call-overload]
        now += 10
    return "\n".join(json.dumps(line) for line in lines) + "\n"


def _rules(calls: Any) -> set[str]:
    return {group.rule.split(":")[0].split(" (")[0] for call in calls for group in call.fated}


def test_soft_trims_hard_clears_and_their_replays_take_the_fast_path() -> None:
    # Gemini: cache-TTL eligible, no server-side clearing, no dropped thinking; a 40k-token window.
    text = _plain_session(40, [1_500, 6_000, 300, 9_000, 18_000], "gemini")
    document = {
        "trimscope": {"runtime": "openclaw", "version": "2026.9.6"},
        "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}},
        "model": {"provider": "google", "id": "gemini-2.5-pro", "contextWindow": 40_000},
    }
    made, fast, slow = _both(text, document)
    assert fast.calls == slow.calls
    assert made[0].fallbacks == 0 and made[0].calls == len(fast.calls)
    rules = _rules(fast.calls)
    assert {
        "soft trim",
        "hard clear",
        "soft-trimmed at an earlier call",
        "cleared at an earlier call",
    } <= rules
    assert "provider-bound tool-result budget" in rules


COMPACTING_OPENAI = {
    "provider": "openai",
    "id": "gpt-5.4",
    "api": "openai-responses",
    "baseUrl": "https://api.openai.com/v1",
    "contextWindow": 60_000,
    "params": {"responsesCompactThreshold": 12_000},
}
"""An OpenAI Responses route whose provider compacts past 12,000 tokens."""


def test_a_provider_compaction_and_the_calls_after_it_take_the_fast_path() -> None:
    text = _plain_session(30, [1_500, 6_000, 300], "openai")
    for apply in (True, False):
        document = {
            "trimscope": {"runtime": "openclaw", "version": "2026.9.6", "modelCompaction": apply},
            "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "2m"}}},
            "model": dict(COMPACTING_OPENAI),
        }
        made, fast, slow = _both(text, document)
        assert fast.calls == slow.calls
        assert made[0].fallbacks == 0
        assert any("compaction" in call.marks for call in fast.calls)
        assert any(call.sent and call.sent[0][0] > 0 for call in fast.calls) == apply


# -- calls that change nothing ------------------------------------------------------------------------------


def test_most_calls_of_a_long_plain_session_are_answered_quietly() -> None:
    # The benchmark's session: the cache stays warm or the server clears, nothing is over a budget.
    text = synthetic_openclaw_session(40)
    for key in ("openclaw-2026.9.6", "openclaw-2026.9.6-openai"):
        made, fast, slow = _both(text, dict(PRESETS_BY_KEY[key].document))
        assert fast.calls == slow.calls
        assert made[0].fallbacks == 0 and made[0].quiet_calls == made[0].calls == len(fast.calls)


def test_quiet_calls_and_the_pipeline_share_a_session_that_prunes_cuts_and_compacts() -> None:
    # TTL expiries (the pass runs), results over the per-result cap, soft trims replayed later, and a
    # provider compaction: each call takes one path or the other, and both equal the reference.
    text = _plain_session(40, [1_500, 6_000, 300, 9_000, 18_000], "openai", pause_every=5)
    document = {
        "trimscope": {"runtime": "openclaw", "version": "2026.9.6"},
        "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}},
        "model": dict(COMPACTING_OPENAI),
    }
    made, fast, slow = _both(text, document)
    assert fast.calls == slow.calls
    assert made[0].fallbacks == 0
    assert 0 < made[0].quiet_calls < made[0].calls
    assert any("compaction" in call.marks for call in fast.calls)
    assert {"soft trim", "soft-trimmed at an earlier call", "provider-bound tool-result budget"} <= _rules(
        fast.calls
    )


def test_an_old_image_is_cleaned_on_the_fast_path() -> None:
    text = _plain_session(12, [1_500], "anthropic")
    lines = [json.loads(line) for line in text.splitlines()]
    # An image in the second turn's result, and thinking in the tenth turn's tool call.
    lines[7]["message"]["content"].append({"type": "image", "data": "aGk=", "mimeType": "image/png"})
    lines[38]["message"]["content"].insert(0, {"type": "thinking", "thinking": "t", "thinkingSignature": "s"})
    text = "\n".join(json.dumps(line) for line in lines) + "\n"
    document = {
        "trimscope": {"runtime": "openclaw", "version": "2026.9.6"},
        "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}},
        "model": {"provider": "anthropic", "id": "claude-3-7-sonnet", "api": "anthropic-messages"},
    }
    made, fast, slow = _both(text, document)
    assert fast.calls == slow.calls
    assert made[0].quiet_calls > 0 and made[0].fallbacks == 0
    # The image's turn is older than the last three completed turns from the sixth turn on.
    cleaned = [i for i, call in enumerate(fast.calls) if "image-cleanup" in call.marks]
    assert cleaned == list(range(cleaned[0], len(fast.calls))) and 0 < cleaned[0] < len(fast.calls) - 1


class _Loud(_Checked):
    """A broken quiet path: it answers every call its first checks let through, whatever the budget."""

    def _budget_quiet(self, window, lo, end):  # type: ignore[no-untyped-def]
        return True


class _Blind(_Checked):
    """A broken quiet path: it answers calls whose older images the cleanup would change."""

    def _quiet(self, setup, state, now, end):  # type: ignore[no-untyped-def]
        cleanable, self._n.cleanable = self._n.cleanable, []
        try:
            return super()._quiet(setup, state, now, end)
        finally:
            self._n.cleanable = cleanable


def test_a_quiet_path_that_answers_a_call_something_changes_is_noticed() -> None:
    over = _plain_session(10, [1_500, 70_000], "openai")
    images = _plain_session(10, [1_500], "openai")
    lines = [json.loads(line) for line in images.splitlines()]
    lines[3]["message"]["content"].append({"type": "image", "data": "aGk=", "mimeType": "image/png"})
    images = "\n".join(json.dumps(line) for line in lines) + "\n"
    document = {
        "trimscope": {"runtime": "openclaw", "version": "2026.9.6"},
        "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}},
        "model": {"provider": "openai", "id": "gpt-5.4", "api": "openai-responses", "contextWindow": 200_000},
    }
    for broken, text, field in ((_Loud, over, "budget"), (_Blind, images, "images")):
        transcript = parse_transcript(text, format="openclaw")
        profile = profile_from_document(document, name="p")
        original = replay_module.FastTransforms2026_9
        replay_module.FastTransforms2026_9 = broken  # type: ignore[misc]
        try:
            with pytest.raises(AssertionError, match=f"'{field}'"):  # the field the reference differs in
                replay_openclaw(transcript, profile.settings, profile_name="p")
        finally:
            replay_module.FastTransforms2026_9 = original  # type: ignore[misc]


# -- a quiet call that sends one new result ------------------------------------------------------------------


class _CountedOne(_Checked):
    """Counts the calls :meth:`_quiet_log_one` answers (the shortcut for one new result)."""

    ones = 0

    def _quiet_log_one(self, p):  # type: ignore[no-untyped-def]
        _CountedOne.ones += 1
        return super()._quiet_log_one(p)

    def _quiet_log_one_final(self, p):  # type: ignore[no-untyped-def]
        _CountedOne.ones += 1
        return super()._quiet_log_one_final(p)


class _Unfrozen(_Checked):
    """A broken shortcut: it logs the new result's source but never freezes its key."""

    def _quiet_log_one(self, p):  # type: ignore[no-untyped-def]
        self._frozen.add(self._n.keys[p])  # as if frozen, but no event: the state misses the key
        return super()._quiet_log_one(p)

    def _quiet_log_one_final(self, p):  # type: ignore[no-untyped-def]
        self._frozen.add(self._n.keys[p])
        return super()._quiet_log_one_final(p)


class _Misquoted(_Checked):
    """A broken facts column: the source texts of every one-block result are read as empty."""

    def _feed(self, end):  # type: ignore[no-untyped-def]
        super()._feed(end)
        self._n.texts = [None if t is None else ("",) for t in self._n.texts]


def test_a_quiet_call_sending_one_new_result_logs_it_as_the_general_path_does() -> None:
    text = synthetic_openclaw_session(30)
    _CountedOne.ones = 0
    transcript = parse_transcript(text, format="openclaw")
    for key in ("openclaw-2026.9.6", "openclaw-2026.9.6-openai"):
        profile = profile_from_document(dict(PRESETS_BY_KEY[key].document), name="p")
        original = replay_module.FastTransforms2026_9
        replay_module.FastTransforms2026_9 = _CountedOne  # type: ignore[misc]
        try:
            fast = replay_openclaw(transcript, profile.settings, profile_name="p")
        finally:
            replay_module.FastTransforms2026_9 = original  # type: ignore[misc]
        slow = replay_openclaw(transcript, profile.settings, profile_name="p", reference=True)
        assert fast.calls == slow.calls
    assert _CountedOne.ones >= 30  # every tool result of both replays took the shortcut


class _Unfed(_Checked):
    """A broken feed shortcut: after the first call it takes every later history end for one with
    nothing new (no new result is ever sourced or frozen)."""

    def _feed(self, end):  # type: ignore[no-untyped-def]
        super()._feed(end)
        self._feed_due = len(self._natives)


def test_a_broken_one_result_log_source_column_or_feed_shortcut_is_noticed() -> None:
    transcript = parse_transcript(synthetic_openclaw_session(6), format="openclaw")
    profile = profile_from_document(dict(PRESETS_BY_KEY["openclaw-2026.9.6"].document), name="p")
    for broken in (_Unfrozen, _Misquoted, _Unfed):
        original = replay_module.FastTransforms2026_9
        replay_module.FastTransforms2026_9 = broken  # type: ignore[misc]
        try:
            with pytest.raises(AssertionError):  # the state after a call differs from the reference's
                replay_openclaw(transcript, profile.settings, profile_name="p")
        finally:
            replay_module.FastTransforms2026_9 = original  # type: ignore[misc]


def test_the_one_block_source_column_is_source_texts() -> None:
    transcript = parse_transcript(synthetic_openclaw_session(8), format="openclaw")
    profile = profile_from_document(dict(PRESETS_BY_KEY["openclaw-2026.9.6"].document), name="p")
    with _checked() as made:
        replay_openclaw(transcript, profile.settings, profile_name="p")
    facts = made[0]._n
    filled = [(i, t) for i, t in enumerate(facts.texts) if t is not None]
    assert filled
    assert all(t == source_texts(facts.natives[i]) for i, t in filled)


@pytest.mark.python_only
def test_the_session_facts_are_made_by_the_first_replay_and_read_by_every_later_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A knob change replays the kept preparation: its 2026.9.6 facts (keys, sizes, cleaned screenshots and
    what each weighs cleaned) come from the first replay, and every replay gives what a fresh one does."""
    from simulator.replay import openclaw_facts_2026_9 as facts_module
    from simulator.replay.openclaw_session import prepare_openclaw

    made: list[int] = []
    original = facts_module.session_facts

    def counted(*args: Any) -> Any:
        made.append(1)
        return original(*args)

    monkeypatch.setattr(facts_module, "session_facts", counted)
    text = synthetic_openclaw_session(
        60, screenshot_every=2, thinking=True, model="claude-3-7-sonnet-20250219"
    )
    transcript = parse_transcript(text, format="openclaw")
    prepared = prepare_openclaw(transcript)
    older = profile_from_document(dict(PRESETS_BY_KEY["openclaw"].document), name="p")
    replay_openclaw(transcript, older.settings, profile_name="p", prepared=prepared)
    assert prepared.kept_2026_9 == [] and made == []  # 2026.7.1 never reads them
    document = dict(PRESETS_BY_KEY["openclaw-2026.9.6"].document)
    results = []
    for tokens in (None, 120_000, 60_000):
        edited = json.loads(json.dumps(document))
        if tokens is not None:
            edited["agents"]["defaults"]["contextTokens"] = tokens
        profile = profile_from_document(edited, name="p")
        kept = replay_openclaw(transcript, profile.settings, profile_name="p", prepared=prepared)
        fresh = replay_openclaw(
            transcript, profile.settings, profile_name="p", prepared=prepare_openclaw(transcript)
        )
        assert repr(kept) == repr(fresh)
        results.append(kept)
    assert len(prepared.kept_2026_9) == 1
    assert len(made) == 1 + 3  # the kept preparation's first replay, then one per fresh preparation
    assert prepared.kept_2026_9[0].cleanable, "the session has old screenshots to clean"
    assert any(c.fated for r in results for c in r.calls), "screenshots cleaned or thinking stripped"
