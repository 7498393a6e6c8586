"""Reactive context-overflow recovery (``turn/context_recovery.rs``) and the overflow matcher.

When a provider call fails and ``is_context_window_exceeded`` (``providers/reliable.rs``) recognises
the error text, the turn loop trims to two thirds of the *current estimate* (not of the configured
budget or model capacity), inserts the breadcrumb after the leading systems without the dedupe check,
emits ``HistoryTrimmed`` with the budget reason and retries. When nothing can be dropped the history
is left alone, no event is emitted, a remediation line is logged (the floor message when the system
floor meets the configured budget, else "only one turn left") and the turn fails.

The ``documented`` version runs the same arithmetic through PR 9368's flagged trim and flag-based
breadcrumb dedupe; upstream vectors cover only master.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from simulator.jsonvalue import JSON
from simulator.runtimes.zeroclaw.breadcrumb import insert_breadcrumb, insert_breadcrumb_flagged
from simulator.runtimes.zeroclaw.estimate import estimate_history_tokens, estimate_system_floor_tokens
from simulator.runtimes.zeroclaw.events import HistoryTrimmed
from simulator.runtimes.zeroclaw.messages import ChatMessage
from simulator.runtimes.zeroclaw.settings import Version
from simulator.runtimes.zeroclaw.texts import context_floor_remediation, only_one_turn_left
from simulator.runtimes.zeroclaw.trim import trim_to_recent_turns, trim_to_recent_turns_pr9368

CONTEXT_OVERFLOW_PHRASES: tuple[str, ...] = (
    "exceeds the context window",
    "exceeds the available context size",
    "context window of this model",
    "maximum context length",
    "context length exceeded",
    "too many tokens",
    "token limit exceeded",
    "prompt is too long",
    "input is too long",
    "prompt exceeds max length",
)
"""Lower-case substrings ``is_context_window_exceeded`` looks for; ``context_length_exceeded`` (with
underscores) deliberately matches none of them."""


def is_context_window_exceeded(error: str) -> bool:
    """Whether a provider error text means the request overflowed the model's context window.

    Args:
        error: The error's display text.

    Returns:
        True when the lower-cased text contains one of ``CONTEXT_OVERFLOW_PHRASES``.
    """
    lowered = error.lower()
    return any(phrase in lowered for phrase in CONTEXT_OVERFLOW_PHRASES)


@dataclass(frozen=True, slots=True)
class RecoveryResult:
    """Outcome of one recovery attempt.

    ``recovery_budget`` is ``None`` when the error was not an overflow; ``tokens_before`` and
    ``tokens_after_trim`` are set only when something was dropped; ``system_floor`` and
    ``floor_exceeds_budget`` only when an overflow could not be reduced.
    """

    recovered: bool
    history: tuple[ChatMessage, ...]
    event: HistoryTrimmed | None
    recovery_budget: int | None
    tokens_before: int | None = None
    tokens_after_trim: int | None = None
    system_floor: int | None = None
    floor_exceeds_budget: bool | None = None
    log: str | None = None
    kept_indices: tuple[int, ...] = ()
    """Input positions of the surviving messages (the inserted breadcrumb has none)."""
    has_leading_breadcrumb: bool = False

    def to_json(self) -> JSON:
        """The vector shape; optional figures appear only on their branch."""
        out: dict[str, JSON] = {
            "recovered": self.recovered,
            "recovery_budget": self.recovery_budget,
            "history": [m.to_json() for m in self.history],
            "event": None if self.event is None else self.event.to_ws(),
        }
        if self.tokens_before is not None and self.tokens_after_trim is not None:
            out["tokens_before"] = self.tokens_before
            out["tokens_after_trim"] = self.tokens_after_trim
        if self.system_floor is not None and self.floor_exceeds_budget is not None:
            out["system_floor"] = self.system_floor
            out["floor_exceeds_budget"] = self.floor_exceeds_budget
        return out


def recover_context_overflow(
    history: Sequence[ChatMessage],
    error: str,
    context_token_budget: int,
    *,
    version: Version = "upstream",
    has_leading_breadcrumb: bool = False,
) -> RecoveryResult:
    """Try to recover from a provider error by trimming to 2/3 of the current estimate.

    Args:
        history: The history that was sent.
        error: The provider error text.
        context_token_budget: The configured budget (used only to pick the log message).
        version: ``"upstream"`` (master trim) or ``"documented"`` (PR 9368 flagged trim).
        has_leading_breadcrumb: PR 9368 provenance flag; ignored by ``"upstream"``.

    Returns:
        Whether the caller may retry, the (possibly trimmed) history and the event to emit.
    """
    messages = tuple(history)
    identity = tuple(range(len(messages)))
    if not is_context_window_exceeded(error):
        return RecoveryResult(
            False, messages, None, None, kept_indices=identity, has_leading_breadcrumb=has_leading_breadcrumb
        )
    estimate = estimate_history_tokens(messages)
    budget = estimate * 2 // 3
    documented = version == "documented"
    if documented:
        result = trim_to_recent_turns_pr9368(messages, budget, has_leading_breadcrumb)
    else:
        result = trim_to_recent_turns(messages, budget)
    if not result.trimmed:
        floor = estimate_system_floor_tokens(messages)
        exceeds = floor >= context_token_budget
        log = context_floor_remediation(floor, context_token_budget) if exceeds else only_one_turn_left()
        return RecoveryResult(
            False,
            messages,
            None,
            budget,
            system_floor=floor,
            floor_exceeds_budget=exceeds,
            log=log,
            kept_indices=identity,
            has_leading_breadcrumb=has_leading_breadcrumb,
        )
    if documented:
        crumb = insert_breadcrumb_flagged(result.history, has_leading_breadcrumb)
    else:
        crumb = insert_breadcrumb(result.history)
    kept = list(result.kept_indices)
    return RecoveryResult(
        recovered=True,
        history=crumb.history,
        event=HistoryTrimmed.budget(result.dropped_messages, result.kept_turns),
        recovery_budget=budget,
        tokens_before=result.tokens_before,
        tokens_after_trim=result.tokens_after,
        kept_indices=tuple(kept),
        has_leading_breadcrumb=True,
    )
