"""Whole-turn token-budget trimming (``agent/history_trim.rs``).

``trim_to_recent_turns`` (master 15d28660) keeps the leading system prefix and drops the oldest whole
turns until the estimate fits the budget, never the newest turn; budget 0 disables it. Messages
between the system prefix and the first boundary go with the first turn (counted in
``dropped_messages``, not in ``dropped_turns``). Late system messages are ordinary body messages.

``trim_to_recent_turns_pr9368`` (PR 9368 head 101231e1) adds ``has_leading_breadcrumb``: the flagged
message right after the system prefix is not a boundary, stays in every probe and in the output, and
is never counted as dropped; boundaries ignore message text (any ``user`` row).

``trim_to_reported_budget`` rescales the budget by ``estimate / reported`` when the provider reported
more input tokens than the budget, and reports tokens in the provider's scale.

Every result also carries ``kept_indices`` (positions in the input of the surviving messages, in
output order), which upstream does not have.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from simulator.jsonvalue import JSON
from simulator.runtimes.zeroclaw.estimate import estimate_history_tokens, estimate_message_tokens
from simulator.runtimes.zeroclaw.messages import ChatMessage
from simulator.runtimes.zeroclaw.turns import (
    is_turn_boundary,
    is_turn_boundary_pr9368,
    leading_system_count,
)


@dataclass(frozen=True, slots=True)
class TrimResult:
    """Outcome of a token-budget trim; ``trimmed`` is true only when a whole turn was dropped."""

    history: tuple[ChatMessage, ...]
    dropped_messages: int
    dropped_turns: int
    kept_turns: int
    tokens_before: int
    tokens_after: int
    trimmed: bool
    kept_indices: tuple[int, ...]

    def to_json(self) -> JSON:
        """The vector shape (``kept_indices`` is not part of upstream's result)."""
        return {
            "history": [m.to_json() for m in self.history],
            "dropped_messages": self.dropped_messages,
            "dropped_turns": self.dropped_turns,
            "kept_turns": self.kept_turns,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "trimmed": self.trimmed,
        }


def _unchanged(history: tuple[ChatMessage, ...], kept_turns: int, tokens: int) -> TrimResult:
    return TrimResult(history, 0, 0, kept_turns, tokens, tokens, False, tuple(range(len(history))))


def _trim(
    history: Sequence[ChatMessage],
    budget_tokens: int,
    prefix_len: int,
    is_boundary: Callable[[ChatMessage], bool],
) -> TrimResult:
    messages = tuple(history)
    tokens_before = estimate_history_tokens(messages)
    body = messages[prefix_len:]
    bounds = [i for i, m in enumerate(body) if is_boundary(m)]
    total_turns = len(bounds)
    if budget_tokens == 0 or tokens_before <= budget_tokens or len(bounds) <= 1:
        return _unchanged(messages, total_turns, tokens_before)

    prefix_tokens = estimate_history_tokens(messages[:prefix_len])
    # suffix[i] = estimate of body[i:]; each probe is prefix + body[start:].
    suffix = [0] * (len(body) + 1)
    for i in range(len(body) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + estimate_message_tokens(body[i])
    start = 0
    for b in bounds[1:]:
        start = b
        if prefix_tokens + suffix[b] <= budget_tokens:
            break

    kept_indices = tuple(range(prefix_len)) + tuple(range(prefix_len + start, len(messages)))
    dropped_turns = sum(1 for b in bounds if b < start)
    return TrimResult(
        history=messages[:prefix_len] + body[start:],
        dropped_messages=start,
        dropped_turns=dropped_turns,
        kept_turns=total_turns - dropped_turns,
        tokens_before=tokens_before,
        tokens_after=prefix_tokens + suffix[start],
        trimmed=True,
        kept_indices=kept_indices,
    )


def trim_to_recent_turns(history: Sequence[ChatMessage], budget_tokens: int) -> TrimResult:
    """Master ``trim_to_recent_turns``: drop the oldest whole turns until the history fits.

    Args:
        history: Provider-facing messages.
        budget_tokens: Token budget; 0 disables trimming.

    Returns:
        The trim result. A history with at most one boundary is never trimmed, and the newest turn is
        kept even when it alone exceeds the budget.
    """
    return _trim(history, budget_tokens, leading_system_count(history), is_turn_boundary)


def _pr9368_prefix_len(history: Sequence[ChatMessage], has_leading_breadcrumb: bool) -> int:
    leading = leading_system_count(history)
    return leading + (1 if has_leading_breadcrumb and len(history) > leading else 0)


def trim_to_recent_turns_pr9368(
    history: Sequence[ChatMessage], budget_tokens: int, has_leading_breadcrumb: bool = False
) -> TrimResult:
    """PR 9368 ``trim_to_recent_turns`` with breadcrumb provenance.

    Args:
        history: Provider-facing messages.
        budget_tokens: Token budget; 0 disables trimming.
        has_leading_breadcrumb: The owner's record that the message right after the leading system
            messages is the synthetic breadcrumb (never inferred from text).

    Returns:
        The trim result; a flagged breadcrumb is kept and not counted as a turn or as dropped.
    """
    prefix_len = _pr9368_prefix_len(history, has_leading_breadcrumb)
    return _trim(history, budget_tokens, prefix_len, is_turn_boundary_pr9368)


def round_half_away(value: float) -> int:
    """Rust ``f64::round`` for non-negative values: halves round away from zero."""
    floor = int(value)
    return floor + 1 if value - floor >= 0.5 else floor


def _rescale(result: TrimResult, reported: int, estimated: int) -> TrimResult:
    ratio = reported / estimated
    return TrimResult(
        history=result.history,
        dropped_messages=result.dropped_messages,
        dropped_turns=result.dropped_turns,
        kept_turns=result.kept_turns,
        tokens_before=reported,
        tokens_after=round_half_away(result.tokens_after * ratio),
        trimmed=result.trimmed,
        kept_indices=result.kept_indices,
    )


def _reported(
    history: Sequence[ChatMessage],
    budget_tokens: int,
    reported_input_tokens: int,
    trim: Callable[[Sequence[ChatMessage], int], TrimResult],
    total_turns: int,
) -> TrimResult:
    messages = tuple(history)
    estimated = estimate_history_tokens(messages)
    if budget_tokens == 0 or reported_input_tokens <= budget_tokens or estimated == 0:
        return _unchanged(messages, total_turns, reported_input_tokens)
    scaled = max(1, budget_tokens * estimated // reported_input_tokens)
    return _rescale(trim(messages, scaled), reported_input_tokens, estimated)


def trim_to_reported_budget(
    history: Sequence[ChatMessage], budget_tokens: int, reported_input_tokens: int
) -> TrimResult:
    """Master ``trim_to_reported_budget``: trim against the provider's own input-token count.

    Args:
        history: Provider-facing messages that produced the report.
        budget_tokens: Token budget; 0 disables trimming.
        reported_input_tokens: Input tokens the provider reported for this history.

    Returns:
        The trim result with ``tokens_before``/``tokens_after`` in the provider's scale.
    """
    total = sum(1 for m in history if is_turn_boundary(m))
    return _reported(history, budget_tokens, reported_input_tokens, trim_to_recent_turns, total)


def trim_to_reported_budget_pr9368(
    history: Sequence[ChatMessage],
    budget_tokens: int,
    reported_input_tokens: int,
    has_leading_breadcrumb: bool = False,
) -> TrimResult:
    """PR 9368 ``trim_to_reported_budget``: as master, with breadcrumb provenance.

    Args:
        history: Provider-facing messages that produced the report.
        budget_tokens: Token budget; 0 disables trimming.
        reported_input_tokens: Input tokens the provider reported for this history.
        has_leading_breadcrumb: Whether the message after the system prefix is the breadcrumb.

    Returns:
        The trim result with tokens in the provider's scale.
    """
    prefix_len = _pr9368_prefix_len(history, has_leading_breadcrumb)
    total = sum(1 for m in history[prefix_len:] if is_turn_boundary_pr9368(m))

    def trim(h: Sequence[ChatMessage], budget: int) -> TrimResult:
        return trim_to_recent_turns_pr9368(h, budget, has_leading_breadcrumb)

    return _reported(history, budget_tokens, reported_input_tokens, trim, total)
