"""ZeroClaw's token-trim rules at their exact boundaries (spec §5), with literal numbers.

Every message is sized so its estimate is known by hand: ``ceil(bytes / 4) + 4`` tokens, so a
content of ``4 * k`` ASCII bytes costs ``k + 4``.
"""

from __future__ import annotations

import pytest

from simulator.runtimes import zeroclaw as zc
from simulator.runtimes.zeroclaw import ChatMessage
from simulator.runtimes.zeroclaw.trim import round_half_away
from simulator.runtimes.zeroclaw.turns import count_turns, is_conversation_turn_boundary

CRUMB = zc.breadcrumb()


def sys(tokens: int) -> ChatMessage:
    return ChatMessage("system", "s" * 4 * (tokens - 4))


def user(tokens: int, tag: str = "u") -> ChatMessage:
    return ChatMessage("user", tag * 4 * (tokens - 4))


def asst(tokens: int, tag: str = "a") -> ChatMessage:
    return ChatMessage("assistant", tag * 4 * (tokens - 4))


# 5 + (6 + 6) + (6 + 6) + (6 + 6) = 41 tokens; probes: from turn 2 = 29, from turn 3 = 17.
THREE_TURNS = [sys(5), user(6, "o"), asst(6, "p"), user(6, "m"), asst(6, "q"), user(6, "n"), asst(6, "r")]


def test_the_helpers_size_messages_as_the_estimator_does():
    assert zc.estimate_history_tokens([sys(5)]) == 5
    assert zc.estimate_history_tokens([user(6)]) == 6
    assert zc.estimate_history_tokens(THREE_TURNS) == 41


def test_a_history_whose_estimate_equals_the_budget_is_left_alone():
    result = zc.trim_to_recent_turns(THREE_TURNS, 41)
    assert not result.trimmed
    assert result.history == tuple(THREE_TURNS)
    assert (result.tokens_before, result.tokens_after) == (41, 41)
    assert (result.dropped_messages, result.dropped_turns, result.kept_turns) == (0, 0, 3)
    assert result.kept_indices == (0, 1, 2, 3, 4, 5, 6)


def test_one_token_over_the_budget_trims():
    result = zc.trim_to_recent_turns(THREE_TURNS, 40)
    assert result.trimmed
    assert result.tokens_after == 29


def test_a_probe_that_fits_exactly_keeps_its_turn():
    result = zc.trim_to_recent_turns(THREE_TURNS, 29)
    assert result.trimmed
    assert result.history == (THREE_TURNS[0], *THREE_TURNS[3:])
    assert (result.dropped_messages, result.dropped_turns, result.kept_turns) == (2, 1, 2)
    assert (result.tokens_before, result.tokens_after) == (41, 29)
    assert result.kept_indices == (0, 3, 4, 5, 6)


def test_a_probe_one_token_over_the_budget_loses_its_turn():
    result = zc.trim_to_recent_turns(THREE_TURNS, 28)
    assert result.history == (THREE_TURNS[0], *THREE_TURNS[5:])
    assert (result.dropped_messages, result.dropped_turns, result.kept_turns) == (4, 2, 1)
    assert result.tokens_after == 17
    assert result.kept_indices == (0, 5, 6)


def test_a_preface_before_the_only_user_turn_is_never_dropped_on_its_own():
    history = [sys(5), asst(40, "p"), user(6), asst(6)]
    result = zc.trim_to_recent_turns(history, 1)
    assert not result.trimmed
    assert result.history == tuple(history)
    assert (result.dropped_messages, result.dropped_turns, result.kept_turns) == (0, 0, 1)


def test_a_preface_goes_with_the_first_turn_and_is_not_counted_as_a_turn():
    history = [sys(5), asst(6, "p"), *THREE_TURNS[1:]]
    result = zc.trim_to_recent_turns(history, 29)
    assert result.history == (history[0], *history[4:])
    assert (result.dropped_messages, result.dropped_turns, result.kept_turns) == (3, 1, 2)


def test_a_preface_with_no_user_turn_at_all_is_never_trimmed():
    history = [sys(5), asst(40), asst(40)]
    result = zc.trim_to_recent_turns(history, 1)
    assert not result.trimmed
    assert (result.dropped_turns, result.kept_turns) == (0, 0)


def test_a_flagged_breadcrumb_and_a_preface_are_neither_turns_nor_dropped_turns():
    history = [sys(5), CRUMB, asst(6, "p"), *THREE_TURNS[1:]]
    result = zc.trim_to_recent_turns_pr9368(history, 1, has_leading_breadcrumb=True)
    assert result.history == (sys(5), CRUMB, *THREE_TURNS[5:])
    assert (result.dropped_messages, result.dropped_turns, result.kept_turns) == (5, 2, 1)


def test_pr9368_counts_an_unflagged_breadcrumb_as_a_turn_by_default():
    history = [sys(5), CRUMB, *THREE_TURNS[1:]]
    result = zc.trim_to_recent_turns_pr9368(history, 10_000)
    assert result.kept_turns == 4
    trimmed = zc.trim_to_recent_turns_pr9368(history, 1)
    assert CRUMB not in trimmed.history
    assert trimmed.dropped_turns == 3


@pytest.mark.parametrize(
    ("value", "rounded"),
    [(0.0, 0), (0.49, 0), (0.5, 1), (2.5, 3), (28.5, 29), (28.25, 28), (7.75, 8), (3.0, 3)],
)
def test_round_half_away_rounds_halves_up_unlike_bankers_rounding(value, rounded):
    assert round_half_away(value) == rounded


# 4 + (15 + 6) + (5 + 10) = 40 tokens; the newest turn with the system prompt is 19.
REPORTED = [sys(4), user(15, "o"), asst(6), user(5, "n"), asst(10, "b")]


def test_the_reported_budget_scales_by_estimate_over_reported_and_rounds_half_away():
    assert zc.estimate_history_tokens(REPORTED) == 40
    # scaled = 30 * 40 // 60 = 20; the newest turn (19) fits; 19 * 60 / 40 = 28.5 reports as 29.
    result = zc.trim_to_reported_budget(REPORTED, 30, 60)
    assert result.trimmed
    assert result.history == (REPORTED[0], *REPORTED[3:])
    assert (result.tokens_before, result.tokens_after) == (60, 29)
    assert (result.dropped_messages, result.dropped_turns, result.kept_turns) == (2, 1, 1)


def test_the_reported_budget_floors_the_scaled_budget():
    # 58 * 41 // 82 = 29 exactly: the turn-2 probe (29) fits; 57 * 41 // 82 = 28 (28.5 floored) does not.
    fits = zc.trim_to_reported_budget(THREE_TURNS, 58, 82)
    assert fits.history == (THREE_TURNS[0], *THREE_TURNS[3:])
    assert (fits.tokens_before, fits.tokens_after) == (82, 58)
    floored = zc.trim_to_reported_budget(THREE_TURNS, 57, 82)
    assert floored.history == (THREE_TURNS[0], *THREE_TURNS[5:])
    assert (floored.tokens_before, floored.tokens_after) == (82, 34)


def test_the_reported_tokens_after_round_down_below_a_half():
    # scaled = 40 * 40 // 50 = 32 keeps only the newest turn (19); 19 * 50 / 40 = 23.75 reports as 24,
    # and with 45 reported, 19 * 45 / 40 = 21.375 reports as 21.
    assert zc.trim_to_reported_budget(REPORTED, 40, 50).tokens_after == 24
    assert zc.trim_to_reported_budget(REPORTED, 35, 45).tokens_after == 21


def test_a_scaled_budget_below_one_is_floored_to_one_and_still_trims():
    # 1 * 40 // 60 = 0, floored to 1 (not 0, which would disable trimming).
    result = zc.trim_to_reported_budget(REPORTED, 1, 60)
    assert result.trimmed
    assert result.history == (REPORTED[0], *REPORTED[3:])
    assert (result.tokens_before, result.tokens_after) == (60, 29)


def test_a_report_equal_to_the_budget_is_left_alone_in_the_provider_scale():
    result = zc.trim_to_reported_budget(REPORTED, 60, 60)
    assert not result.trimmed
    assert result.history == tuple(REPORTED)
    assert (result.tokens_before, result.tokens_after) == (60, 60)
    assert result.kept_turns == 2


def test_a_reported_budget_of_zero_disables_trimming():
    result = zc.trim_to_reported_budget(REPORTED, 0, 60)
    assert not result.trimmed
    assert (result.tokens_before, result.tokens_after, result.kept_turns) == (60, 60, 2)


def test_an_empty_history_is_never_trimmed_against_a_report():
    result = zc.trim_to_reported_budget([], 10, 20)
    assert not result.trimmed
    assert result.history == ()
    assert (result.tokens_before, result.tokens_after) == (20, 20)
    assert (result.dropped_messages, result.dropped_turns, result.kept_turns) == (0, 0, 0)
    assert result.kept_indices == ()
    assert not zc.trim_to_reported_budget_pr9368([], 10, 20, has_leading_breadcrumb=True).trimmed


def test_pr9368_reported_budget_keeps_a_flagged_breadcrumb_and_does_not_count_it():
    history = [sys(4), CRUMB, *REPORTED[1:]]
    crumb_tokens = zc.estimate_history_tokens([CRUMB])
    estimate = 40 + crumb_tokens
    unchanged = zc.trim_to_reported_budget_pr9368(history, 100, 100, has_leading_breadcrumb=True)
    assert (unchanged.trimmed, unchanged.kept_turns, unchanged.tokens_after) == (False, 2, 100)
    result = zc.trim_to_reported_budget_pr9368(history, 1, 2 * estimate, has_leading_breadcrumb=True)
    assert result.history == (sys(4), CRUMB, *REPORTED[3:])
    assert (result.dropped_messages, result.dropped_turns, result.kept_turns) == (2, 1, 1)
    assert (result.tokens_before, result.tokens_after) == (2 * estimate, 2 * (19 + crumb_tokens))


def test_pr9368_reported_budget_counts_an_unflagged_breadcrumb_as_a_turn_by_default():
    history = [sys(4), CRUMB, *REPORTED[1:]]
    unchanged = zc.trim_to_reported_budget_pr9368(history, 100, 100)
    assert unchanged.kept_turns == 3
    result = zc.trim_to_reported_budget_pr9368(history, 1, 1000)
    assert CRUMB not in result.history
    assert (result.dropped_turns, result.kept_turns) == (2, 1)


def test_count_turns_counts_user_boundaries_only():
    history = [sys(5), ChatMessage("user", "[Tool results] x"), *THREE_TURNS[1:], ChatMessage("user", "late")]
    assert count_turns(history) == 4
    assert count_turns([]) == 0


def test_a_structured_user_message_is_a_boundary_unless_flagged_as_the_breadcrumb():
    message = zc.Chat(ChatMessage("user", "hello"))
    assert is_conversation_turn_boundary(message)
    assert not is_conversation_turn_boundary(message, is_breadcrumb=True)
