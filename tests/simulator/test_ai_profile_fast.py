"""The prefix trimmer the replay uses answers exactly what ai-profile's ``trim_history`` answers."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.replay.ai_profile_fast import PrefixTrimmer
from simulator.runtimes.ai_profile import message_tokens, trim_history
from tests.simulator.test_ai_profile_properties import budgets, histories


@settings(max_examples=300, deadline=None)
@given(histories(), budgets)
def test_every_prefix_trims_like_the_reference(history, budget):
    messages, _ = history
    sizes = [message_tokens(m) for m in messages]
    trimmer = PrefixTrimmer(messages, sizes)
    for end in range(len(messages) + 1):
        ref = trim_history(messages[:end], budget)
        got = trimmer.trim(end, budget)
        kept = tuple(i for start, stop in got.spans for i in range(start, stop))
        assert kept == ref.kept_indices
        assert got.reinserted_first_user == ref.reinserted_first_user
        assert got.used_fallback == ref.used_fallback
        assert got.estimate_after == ref.estimate_after
        assert got.dropped == ref.dropped


@settings(max_examples=100, deadline=None)
@given(histories(), st.integers(0, 400))
def test_small_budgets_hit_the_fallback_the_same_way(history, budget):
    messages, _ = history
    sizes = [message_tokens(m) for m in messages]
    trimmer = PrefixTrimmer(messages, sizes)
    ref = trim_history(messages, budget)
    got = trimmer.trim(len(messages), budget)
    assert (got.used_fallback, got.dropped) == (ref.used_fallback, ref.dropped)
