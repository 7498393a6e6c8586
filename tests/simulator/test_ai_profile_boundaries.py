"""ai-profile's ``trim_history`` at its boundaries, with every field of the result literal (spec §4).

Sizes are passed as ``tokens`` so each case states its own numbers; one case checks that the given
sizes are the ones used.
"""

from __future__ import annotations

import pytest

from simulator.runtimes.ai_profile import Block, Message, message_tokens, trim_history
from simulator.runtimes.ai_profile.trim import TrimResult

FIRST = Message("user", "q")
A = Message("assistant", "a")
B = Message("assistant", "b")
C = Message("assistant", "c")
RESULT = Message("user", (Block.tool_result("t1", "r"),))
CALL = Message("assistant", (Block.tool_use("t2", "run", {}),))


def result(history, kept, *, reinserted=None, fallback=False, budget, before, after) -> TrimResult:
    messages = tuple(history[i] for i in kept)
    return TrimResult(
        messages, len(history) - len(messages), kept, reinserted, fallback, budget, before, after
    )


def test_a_history_within_budget_is_returned_whole_with_its_numbers():
    history = [FIRST, A]
    expected = result(history, (0, 1), budget=10, before=10, after=10)
    assert trim_history(history, 10, tokens=[5, 5]) == expected


def test_the_given_token_sizes_are_used_instead_of_the_estimate():
    assert message_tokens(FIRST) + message_tokens(A) > 10
    assert trim_history([FIRST, A], 10, tokens=[5, 5]).dropped == 0


def test_token_sizes_must_match_the_messages():
    with pytest.raises(ValueError, match="tokens has 1 entries for 2 messages"):
        trim_history([FIRST, A], 10, tokens=[5])


def test_a_single_message_over_the_budget_is_kept_by_the_fallback():
    assert trim_history([A], 10, tokens=[20]) == result(
        [A], (0,), fallback=True, budget=10, before=20, after=20
    )


def test_a_one_token_first_user_is_reserved_and_prepended():
    history = [FIRST, A, B]
    # 11 > 10; reserve 1 (<= 10 // 2), so the walk has 9: the newest (5) fits, the next would make 10.
    expected = result(history, (0, 2), reinserted=0, budget=10, before=11, after=6)
    assert trim_history(history, 10, tokens=[1, 5, 5]) == expected


def test_a_reserved_first_user_inside_the_window_is_not_added_twice():
    history = [A, FIRST, B]
    # Reserve 2, walk budget 8: 3 + 2 fit, the oldest (10) does not; the window starts at the first user.
    expected = result(history, (1, 2), budget=10, before=15, after=5)
    assert trim_history(history, 10, tokens=[10, 2, 3]) == expected


def test_one_leading_tool_result_is_skipped_and_the_next_message_kept():
    history = [FIRST, RESULT, A, B]
    expected = result(history, (2, 3), budget=20, before=115, after=10)
    assert trim_history(history, 20, tokens=[100, 5, 5, 5]) == expected


def test_a_leading_tool_result_later_in_the_history_is_skipped_forwards():
    history = [FIRST, A, RESULT, B]
    expected = result(history, (3,), budget=20, before=160, after=5)
    assert trim_history(history, 20, tokens=[100, 50, 5, 5]) == expected


def test_only_the_trailing_tool_use_is_cut():
    history = [FIRST, A, B, CALL]
    expected = result(history, (1, 2), budget=20, before=115, after=10)
    assert trim_history(history, 20, tokens=[100, 5, 5, 5]) == expected


def test_an_unreserved_window_reports_the_budget_and_both_estimates():
    history = [FIRST, A, B, C]
    # The first user (12) is above 20 // 2, so nothing is reserved.
    expected = result(history, (2, 3), budget=20, before=42, after=20)
    assert trim_history(history, 20, tokens=[12, 10, 10, 10]) == expected
