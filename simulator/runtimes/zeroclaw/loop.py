"""One turn-loop iteration's history maintenance, as a pure function (master ``agent/turn/mod.rs``).

Before every model call the loop (1) at iteration 0 with a positive budget logs a warning when the
system floor alone meets the budget, (2) trims to the budget, (3) inserts the breadcrumb after the
leading systems (deduplicated) and (4) emits ``HistoryTrimmed`` when something was dropped. After a
response that reports provider input tokens, ``enforce_reported_budget`` does the same against the
reported figure (no-op when the budget is 0 or the report fits).

``"upstream"`` uses master's trim (the breadcrumb is an ordinary user turn, deduplicated by text);
``"documented"`` uses PR 9368's flagged trim, which keeps the breadcrumb and dedupes by the owner's
flag. Each step reports ``source_indices``: for every output message its input position, or ``None``
for an inserted breadcrumb, so a replay can say which message a rule dropped.

Not modelled: the rest of master's ``preflight_history_maintenance`` (orphan sweep and system
normalisation of histories restored from elsewhere) - call ``remove_orphaned_tool_messages`` and
``normalize_system_messages`` first when replaying such histories.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from simulator.runtimes.zeroclaw.breadcrumb import (
    BreadcrumbInsert,
    breadcrumb,
    insert_breadcrumb_deduped,
    insert_breadcrumb_flagged,
)
from simulator.runtimes.zeroclaw.estimate import estimate_system_floor_tokens
from simulator.runtimes.zeroclaw.events import HistoryTrimmed
from simulator.runtimes.zeroclaw.messages import ChatMessage
from simulator.runtimes.zeroclaw.settings import Version
from simulator.runtimes.zeroclaw.texts import context_floor_remediation
from simulator.runtimes.zeroclaw.trim import (
    TrimResult,
    trim_to_recent_turns,
    trim_to_recent_turns_pr9368,
    trim_to_reported_budget,
    trim_to_reported_budget_pr9368,
)
from simulator.runtimes.zeroclaw.turns import leading_system_count


@dataclass(frozen=True, slots=True)
class LoopStep:
    """History maintenance around one model call."""

    history: tuple[ChatMessage, ...]
    source_indices: tuple[int | None, ...]
    has_leading_breadcrumb: bool
    trim: TrimResult | None
    event: HistoryTrimmed | None
    warnings: tuple[str, ...]


def floor_warning(history: Sequence[ChatMessage], budget: int) -> str | None:
    """The ``history-trim-floor-exceeds-budget`` warning when the system floor meets a positive budget."""
    if budget <= 0:
        return None
    floor = estimate_system_floor_tokens(history)
    return context_floor_remediation(floor, budget) if floor >= budget else None


def _leading_crumb_present(history: Sequence[ChatMessage]) -> bool:
    at = leading_system_count(history)
    return at < len(history) and history[at] == breadcrumb()


def _finish(
    result: TrimResult, version: Version, has_leading_breadcrumb: bool, warnings: tuple[str, ...]
) -> LoopStep:
    source: tuple[int | None, ...] = result.kept_indices
    if not result.trimmed:
        flag = has_leading_breadcrumb if version == "documented" else _leading_crumb_present(result.history)
        return LoopStep(result.history, source, flag, result, None, warnings)
    crumb: BreadcrumbInsert
    if version == "documented":
        crumb = insert_breadcrumb_flagged(result.history, has_leading_breadcrumb)
    else:
        crumb = insert_breadcrumb_deduped(result.history)
    if crumb.inserted:
        source = (*source[: crumb.index], None, *source[crumb.index :])
    event = HistoryTrimmed.budget(result.dropped_messages, result.kept_turns)
    return LoopStep(crumb.history, source, True, result, event, warnings)


def preflight_iteration(
    history: Sequence[ChatMessage],
    budget: int,
    *,
    iteration: int,
    version: Version = "documented",
    has_leading_breadcrumb: bool = False,
) -> LoopStep:
    """History maintenance before model call number ``iteration`` of a turn's tool loop.

    Args:
        history: The history about to be sent.
        budget: The effective context budget (0 = trimming off).
        iteration: 0-based tool-loop iteration; the floor warning is checked only at 0.
        version: ``"documented"`` or ``"upstream"``.
        has_leading_breadcrumb: The owner's breadcrumb flag (``"documented"`` only).

    Returns:
        The history to send, the event to emit (if any) and log-only warnings.
    """
    warning = floor_warning(history, budget) if iteration == 0 else None
    warnings = (warning,) if warning else ()
    if version == "documented":
        result = trim_to_recent_turns_pr9368(history, budget, has_leading_breadcrumb)
    else:
        result = trim_to_recent_turns(history, budget)
    return _finish(result, version, has_leading_breadcrumb, warnings)


def enforce_reported_budget(
    history: Sequence[ChatMessage],
    budget: int,
    reported_input_tokens: int,
    *,
    version: Version = "documented",
    has_leading_breadcrumb: bool = False,
) -> LoopStep:
    """After a response: trim against the provider-reported input tokens.

    Args:
        history: The history after the response was appended.
        budget: The effective context budget (0 = off).
        reported_input_tokens: The provider's input-token count for the request.
        version: ``"documented"`` or ``"upstream"``.
        has_leading_breadcrumb: The owner's breadcrumb flag (``"documented"`` only).

    Returns:
        The maintained history and the event to emit (if any).
    """
    if version == "documented":
        result = trim_to_reported_budget_pr9368(
            history, budget, reported_input_tokens, has_leading_breadcrumb
        )
    else:
        result = trim_to_reported_budget(history, budget, reported_input_tokens)
    return _finish(result, version, has_leading_breadcrumb, ())
