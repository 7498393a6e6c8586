"""The provider-bound tool-result budget OpenClaw 2026.9.6 applies at the stream, on every call.

Upstream, openclaw@2026.9.6 ``src/agents/embedded-agent-runner/tool-result-truncation.ts``
(``truncateOversizedToolResultsInMessages``, ``buildToolResultReplacementPlan``,
``buildAggregateToolResultReplacements``, ``clearToolResultText``) installed by
``submitEmbeddedAttemptPrompt`` as the outermost stream wrapper, and ``src/agents/tool-result-limits.ts`` for
the caps:

* per result: ``min(floor(0.3 * window) * 4, 16k / 32k (>= 100k-token windows) / 64k (>= 200k))`` budget
  chars (CJK-weighted text); a larger result is cut by ``truncateToolResultMessage`` (results of the trailing
  tool batch keep at least 2,000 chars);
* all results together: ``max(4 * per-result, 2 * window)`` chars; over it, results that were never sent
  before (not "frozen") and are not in the trailing batch are cut, oldest first, then cleared to
  "[tool result elided: aggregate tool-result budget exceeded; ...]". The clearing never saves anything
  here: with a projection state (always, at the stream) upstream protects the trailing batch, and then
  floors a cleared text at the whole marker (102 chars), longer than any result the cutting left (69
  chars, 36 with the compact suffix); only a spill file's shorter marker could, and spill files are not
  modelled. A sum still over the budget after the cutting stays over it, as upstream
  (``buildAggregateToolResultReplacements``' ``noticeFloor``, read in the 2026.9.6 dist).

Every key seen is frozen, and a result it rewrote is recorded as an ordinary projection that later calls
replay (their texts replaced one for one), so what was sent stays what is sent.

Deliberate divergence: spill files (``details.fullOutputPath``) and their elision markers are not modelled.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import msgspec

from simulator.runtimes.openclaw.messages import (
    AgentMessage,
    AssistantMessage,
    ContentBlock,
    ToolResultMessage,
)
from simulator.runtimes.openclaw.v2026_9_6.budget_chars import estimate_budget_chars, slice_to_budget
from simulator.runtimes.openclaw.v2026_9_6.cache_ttl import (
    ProjectionState,
    projection_key,
    replay_projections,
)
from simulator.runtimes.openclaw.v2026_9_6.tool_result_text import (
    MIN_KEEP_CHARS,
    Suffix,
    context_limit_notice,
    text_of,
    truncate_tool_result_message,
    with_text,
)

RECOVERY_MIN_KEEP_CHARS: Final = 0
AGGREGATE_ELISION_MARKER: Final = (
    "[tool result elided: aggregate tool-result budget exceeded; rerun the command if the output is needed]"
)


def compact_recovery_suffix(truncated_chars: float) -> str:
    """``COMPACT_RECOVERY_SUFFIX``."""
    return f"[... {max(1, math.floor(truncated_chars))} chars truncated; narrow args]"


def live_tool_result_max_chars(window_tokens: float) -> int:
    """``resolveLiveToolResultMaxChars``."""
    tokens = math.floor(window_tokens)
    cap = 64_000 if tokens >= 200_000 else 32_000 if tokens >= 100_000 else 16_000
    return min(math.floor(window_tokens * 0.3) * 4, max(1, cap))


def aggregate_max_chars(window_tokens: float, per_result: int) -> int:
    """``resolveLiveToolResultAggregateMaxChars``."""
    tokens = max(1, math.floor(window_tokens))
    return max(max(1, per_result) * 4, math.floor(tokens * 4 * 0.5))


def text_budget(message: AgentMessage) -> int:
    """``getToolResultTextBudget``: the weighted size of a tool result's text blocks."""
    if not isinstance(message, ToolResultMessage) or not isinstance(message.content, tuple):
        return 0
    return sum(estimate_budget_chars(t) for b in message.content if (t := text_of(b)) is not None)


def clear_tool_result_text(message: ToolResultMessage, max_text_chars: float) -> ToolResultMessage:
    """``clearToolResultText`` (no spill file): each text block becomes the elision marker, cut to budget."""
    if not isinstance(message.content, tuple):
        return message
    remaining = max(0, math.floor(max_text_chars)) if math.isfinite(max_text_chars) else math.inf
    out: list[ContentBlock] = []
    for block in message.content:
        if text_of(block) is None:
            out.append(block)
            continue
        text = slice_to_budget(AGGREGATE_ELISION_MARKER, remaining)
        remaining = max(0, remaining - estimate_budget_chars(text))
        out.append(with_text(block, text))
    return msgspec.structs.replace(message, content=tuple(out))


@dataclass(frozen=True, slots=True)
class ProviderBudgetOutcome:
    """The messages sent, the projection state after, and which results were cut or elided."""

    messages: tuple[AgentMessage, ...]
    state: ProjectionState
    oversized: tuple[int, ...]
    aggregate: tuple[int, ...]


def _trailing_tool_results(messages: Sequence[AgentMessage]) -> frozenset[int]:
    protected: set[int] = set()
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], AssistantMessage):
            break
        if isinstance(messages[index], ToolResultMessage):
            protected.add(index)
    return frozenset(protected)


def apply_provider_budget(
    messages: tuple[AgentMessage, ...], window_tokens: float, state: ProjectionState
) -> ProviderBudgetOutcome:
    """``truncateOversizedToolResultsInMessages`` with the session's projection state."""
    max_chars = max(1, live_tool_result_max_chars(window_tokens))
    aggregate_budget = max(1, aggregate_max_chars(window_tokens, max_chars))
    has_tool_results = any(isinstance(m, ToolResultMessage) for m in messages)
    frozen_before = state.frozen
    projected, state, _ = replay_projections(messages, state) if has_tool_results else (messages, state, ())
    protected = _trailing_tool_results(projected)
    branch = list(projected)
    lengths = [text_budget(m) for m in branch]
    oversized: list[int] = []
    for index, message in enumerate(projected):
        if not isinstance(message, ToolResultMessage) or lengths[index] <= max_chars:
            continue
        keep = max(RECOVERY_MIN_KEEP_CHARS, MIN_KEEP_CHARS) if index in protected else RECOVERY_MIN_KEEP_CHARS
        cut = truncate_tool_result_message(message, max_chars, min_keep_chars=keep)
        branch[index] = cut
        lengths[index] = lengths[index] if cut is message else text_budget(cut)
        oversized.append(index)
    aggregate = _aggregate(projected, branch, lengths, aggregate_budget, protected, frozen_before)
    for index, (message, length) in aggregate.items():
        branch[index] = message
        lengths[index] = length
    replaced = bool(oversized or aggregate)
    # Every key ends up frozen (a record freezes its key too); gathered and added once, since a new set
    # per message made each call quadratic in the session's tool results.
    freeze: list[str] = []
    for index, original in enumerate(messages):
        key = projection_key(original)
        if key is None:
            continue
        freeze.append(key)
        current = branch[index]
        if replaced and isinstance(current, ToolResultMessage) and current is not original:
            existing = state.lookup().get(key)
            state = state.record(key, current, existing.mode if existing is not None else None)
    if freeze:
        state = state.with_values(frozen=state.frozen.union(freeze))
    out = tuple(branch)
    changed = any(a is not b for a, b in zip(out, messages, strict=True))
    return ProviderBudgetOutcome(
        out if changed else messages, state, tuple(oversized), tuple(sorted(aggregate))
    )


def _aggregate(
    projected: Sequence[AgentMessage],
    branch: Sequence[AgentMessage],
    lengths: Sequence[int],
    budget: int,
    protected: frozenset[int],
    frozen: frozenset[str],
) -> dict[int, tuple[ToolResultMessage, int]]:
    """``buildAggregateToolResultReplacements`` (minKeepChars 0, trailing batch protected)."""
    candidates = [i for i, m in enumerate(branch) if isinstance(m, ToolResultMessage) and lengths[i] > 0]
    if len(candidates) < 2:
        return {}
    default_floor = estimate_budget_chars(context_limit_notice(1))
    suffix: Suffix = (
        compact_recovery_suffix if budget < len(candidates) * default_floor else context_limit_notice
    )
    min_truncated = RECOVERY_MIN_KEEP_CHARS + estimate_budget_chars(suffix(1))
    total = sum(lengths[i] for i in candidates)
    if total <= budget:
        return {}
    remaining = total - budget
    replacements: dict[int, tuple[ToolResultMessage, int]] = {}
    eligible = [
        i
        for i in candidates
        if i not in protected
        and (projection_key(projected[i]) is None or projection_key(projected[i]) not in frozen)
    ]
    for clear in (False, True):
        for index in eligible:
            if remaining <= 0:
                break
            message = branch[index]
            if not isinstance(message, ToolResultMessage):
                continue
            base = replacements[index][1] if index in replacements else lengths[index]
            if not clear and base <= min_truncated:
                continue
            if clear:
                floor = estimate_budget_chars(AGGREGATE_ELISION_MARKER)
                cut = clear_tool_result_text(message, max(floor, base - remaining))
            else:
                target = max(min_truncated, base - remaining, estimate_budget_chars(suffix(1)))
                cut = truncate_tool_result_message(
                    message, target, min_keep_chars=RECOVERY_MIN_KEEP_CHARS, suffix=suffix
                )
            length = lengths[index] if cut is message else text_budget(cut)
            reduction = max(0, base - length)
            if reduction <= 0:
                continue
            replacements[index] = (cut, length)
            remaining -= reduction
    return replacements
