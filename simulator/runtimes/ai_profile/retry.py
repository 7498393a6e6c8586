"""The caller's reactive retry loop after a context-overflow error.

Upstream: not a crate function but the pattern documented in ``bkywksj/ai-profile-docs``
``docs/api/history.md`` and exercised by the ``retry_budget_halves_until_nothing_left_to_drop`` test
in ``history.rs`` (0.1.7): up to 3 attempts of ``trim_history(current, Some(retry_budget(current)))``,
stopping as soon as an attempt drops nothing (there is nothing left to give up).

Deliberate divergences / unverified points: the attempt that dropped nothing is recorded as the last
attempt (its budget was computed and the trim ran); the vectors seen so far never reach it, so
whether the reference trace lists it is unverified. Sending the request is out of scope: every
attempt is assumed to overflow again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from simulator.runtimes.ai_profile.budget import retry_budget
from simulator.runtimes.ai_profile.estimate import estimate_tokens
from simulator.runtimes.ai_profile.messages import Message
from simulator.runtimes.ai_profile.trim import trim_history

DEFAULT_MAX_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class RetryAttempt:
    """One trim-and-resend round.

    Attributes:
        attempt: 1-based round number.
        budget: ``retry_budget`` of the history going into this round.
        estimate_before: Estimate of that history.
        estimate_after: Estimate after trimming.
        dropped: Messages left out in this round (0 ends the loop).
        kept_indices: Indices into the *original* history of the messages kept after this round.
        reinserted_first_user: Original index of the first user message if this round re-added it.
        used_fallback: Whether this round fell back to the newest plain message.
    """

    attempt: int
    budget: int
    estimate_before: int
    estimate_after: int
    dropped: int
    kept_indices: tuple[int, ...]
    reinserted_first_user: int | None
    used_fallback: bool


@dataclass(frozen=True, slots=True)
class RetryLoopResult:
    """Outcome of :func:`caller_retry_loop`.

    Attributes:
        attempts: Every round run, in order.
        messages: The history after the last round.
        kept_indices: Original indices of ``messages``.
        estimate_before: Estimate of the original history.
        gave_up: ``True`` when a round dropped nothing (the caller then surfaces the error).
    """

    attempts: tuple[RetryAttempt, ...]
    messages: tuple[Message, ...]
    kept_indices: tuple[int, ...]
    estimate_before: int
    gave_up: bool


def caller_retry_loop(
    messages: Sequence[Message], max_attempts: int = DEFAULT_MAX_ATTEMPTS
) -> RetryLoopResult:
    """Replay the documented overflow retry loop, assuming every resend overflows again.

    Args:
        messages: The history that was rejected with a context-overflow error.
        max_attempts: Rounds allowed (upstream's documented pattern uses 3).

    Returns:
        Each round's budget and outcome, and the final history.
    """
    current = tuple(messages)
    origin = tuple(range(len(current)))
    attempts: list[RetryAttempt] = []
    gave_up = False
    for number in range(1, max_attempts + 1):
        budget = retry_budget(current)
        result = trim_history(current, budget)
        kept = tuple(origin[index] for index in result.kept_indices)
        reinserted = None if result.reinserted_first_user is None else origin[result.reinserted_first_user]
        attempts.append(
            RetryAttempt(
                attempt=number,
                budget=budget,
                estimate_before=result.estimate_before,
                estimate_after=result.estimate_after,
                dropped=result.dropped,
                kept_indices=kept,
                reinserted_first_user=reinserted,
                used_fallback=result.used_fallback,
            )
        )
        if result.dropped == 0:
            gave_up = True
            break
        current, origin = result.messages, kept
    return RetryLoopResult(
        attempts=tuple(attempts),
        messages=current,
        kept_indices=origin,
        estimate_before=estimate_tokens(messages),
        gave_up=gave_up,
    )
