"""ai-profile's documented overflow retry loop, every round literal.

A message costs ``(content JSON bytes + role bytes) // 2 + 8``: the first user message (20 ``q``) 21,
a user row of 40 digits 31, an assistant row 33; the last two rows hold 80 digits (51 and 53).
"""

from __future__ import annotations

from simulator.runtimes.ai_profile.messages import Message
from simulator.runtimes.ai_profile.retry import RetryAttempt, caller_retry_loop

HISTORY = [Message("user", "q" * 20)] + [
    Message("assistant" if i % 2 else "user", str(i) * 40) for i in range(1, 12)
]


def test_three_rounds_that_each_drop_something_do_not_give_up():
    result = caller_retry_loop(HISTORY)
    assert result.attempts == (
        RetryAttempt(1, 207, 414, 189, 7, (0, 8, 9, 10, 11), 0, False),
        RetryAttempt(2, 94, 189, 74, 3, (0, 11), 0, False),
        RetryAttempt(3, 37, 74, 53, 1, (11,), None, True),
    )
    assert (result.messages, result.kept_indices, result.estimate_before, result.gave_up) == (
        (HISTORY[11],),
        (11,),
        414,
        False,
    )


def test_a_round_that_drops_nothing_gives_up_and_is_recorded():
    only = [Message("user", "q")]
    result = caller_retry_loop(only)
    assert result.attempts == (RetryAttempt(1, 5, 11, 11, 0, (0,), None, True),)
    assert (result.messages, result.kept_indices, result.gave_up) == (tuple(only), (0,), True)
