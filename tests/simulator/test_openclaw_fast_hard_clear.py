"""Hard clear's count, found from a guess, is the first count the ratio test itself accepts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.replay import openclaw_fast
from simulator.replay.openclaw_fast import IncrementalPruner
from simulator.runtimes.openclaw.messages import AssistantMessage, TextContent, ToolResultMessage, UserMessage
from simulator.runtimes.openclaw.pruner import HardCleared, prune_context_messages
from simulator.runtimes.openclaw.settings import compute_effective_settings


def _pruner(sizes: list[int], hard: float, window: int) -> tuple[IncrementalPruner, list]:
    effective = compute_effective_settings(
        {
            "mode": "cache-ttl",
            "softTrimRatio": 0,
            "hardClearRatio": hard,
            "keepLastAssistants": 0,
            "minPrunableToolChars": 0,
        }
    )
    assert effective is not None
    messages: list = [UserMessage("q")]
    for n, size in enumerate(sizes):
        messages.append(AssistantMessage((TextContent(f"a{n}"),)))
        messages.append(ToolResultMessage((TextContent("r" * size),), "read", f"c{n}", False))
    pruner = IncrementalPruner(effective, context_window=None, context_window_tokens_override=window)
    pruner.extend(messages)
    return pruner, messages


def _linear(pruner: IncrementalPruner, soft_total: int, base: int, lo: int, hi: int) -> int:
    hard, gain_max = pruner.settings.hard_clear_ratio, pruner._gain_max
    for m in range(1, hi - lo + 1):
        if (soft_total - (gain_max[lo + m] - base)) / pruner.char_window < hard:
            return m
    return hi - lo + 1


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 3000), max_size=25),
    st.sampled_from([0.0, 0.1, 1 / 3, 0.5, 0.9, 2.0]),
    st.sampled_from([100, 777, 5_000]),
    st.integers(-20_000, 200_000),
    st.data(),
)
def test_the_count_is_the_first_the_ratio_test_accepts(sizes, hard, window, soft_total, data):
    pruner, _ = _pruner(sizes, hard, window)
    count = len(pruner.candidates)
    lo = data.draw(st.integers(0, count))
    hi = data.draw(st.integers(lo, count))
    base = pruner._clear_gain[lo]
    assert pruner._first_under(soft_total, base, lo, hi) == _linear(pruner, soft_total, base, lo, hi)


def test_a_wrong_count_is_noticed_against_the_reference(monkeypatch):
    pruner, messages = _pruner([2000] * 12, 0.5, 2_000)
    reference = prune_context_messages(messages, pruner.settings, context_window_tokens_override=2_000)
    cleared = tuple(f.index for f in reference.fates if isinstance(f, HardCleared))
    assert 0 < len(cleared) < 12
    assert tuple(pruner.prune(len(messages)).hard_cleared) == cleared
    first_under = IncrementalPruner._first_under
    monkeypatch.setattr(IncrementalPruner, "_first_under", lambda self, *a: first_under(self, *a) + 1)
    assert tuple(pruner.prune(len(messages)).hard_cleared) != cleared


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 3000), max_size=25),
    st.sampled_from([0.1, 1 / 3, 0.5]),
    st.sampled_from([100, 777, 5_000]),
    st.integers(-20_000, 200_000),
    st.data(),
)
def test_any_guess_is_moved_to_the_first_count_the_ratio_test_accepts(sizes, hard, window, soft_total, data):
    # The guess is off only by rounding in practice: here it may be anywhere, and the answer is the same.
    pruner, _ = _pruner(sizes, hard, window)
    count = len(pruner.candidates)
    lo = data.draw(st.integers(0, count))
    hi = data.draw(st.integers(lo, count))
    guess = data.draw(st.integers(lo + 1, hi + 1))
    base = pruner._clear_gain[lo]
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(openclaw_fast, "bisect_right", lambda *args: guess)
        found = pruner._first_under(soft_total, base, lo, hi)
    assert found == _linear(pruner, soft_total, base, lo, hi)
