"""``trim_history``: keep the newest messages that fit a token budget, plus the task message.

Upstream: ``bkywksj/ai-profile`` 0.1.7 ``crates/ai-profile/src/history.rs`` @ b74fe86.

The rules, in order: no budget, an empty list or an estimate within budget leaves the list alone.
Otherwise the first user message (role exactly ``"user"``, no ``tool_result`` block) is reserved when
its own estimate is at most ``budget // 2``; a newest-first greedy walk over the rest of the budget
stops at the first message that does not fit; leading messages with a ``tool_result`` block and a
trailing message with a ``tool_use`` block are cut off (pairing is positional, ids are never read);
an empty window falls back to the newest message without tool blocks, ignoring the budget; the
reserved message is prepended only when it lies before the window.

Beyond upstream's ``Trimmed { messages, dropped }`` the result records which input indices survived
and whether the first user message was re-added, for replay views.

Deliberate divergences: none. Sums never wrap (upstream is ``u32``; a wrapped sum could only exceed
the budget anyway).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from simulator.runtimes.ai_profile.estimate import message_tokens, saturating_sum
from simulator.runtimes.ai_profile.messages import Message


@dataclass(frozen=True, slots=True)
class TrimResult:
    """Outcome of :func:`trim_history`.

    Attributes:
        messages: The kept messages (upstream ``Trimmed.messages``).
        dropped: ``len(input) - len(messages)`` (upstream ``Trimmed.dropped``); the re-added first
            user message is not counted as dropped.
        kept_indices: Input index of each kept message, in output order.
        reinserted_first_user: Input index of the first user message when it was prepended by the
            first-user rule, else ``None``.
        used_fallback: ``True`` when nothing fitted and the newest plain message was kept regardless.
        budget: The budget given.
        estimate_before: Estimate of the input.
        estimate_after: Estimate of ``messages``.
    """

    messages: tuple[Message, ...]
    dropped: int
    kept_indices: tuple[int, ...]
    reinserted_first_user: int | None
    used_fallback: bool
    budget: int | None
    estimate_before: int
    estimate_after: int

    @property
    def trimmed(self) -> bool:
        """Whether anything was left out."""
        return self.dropped > 0


def first_user_index(messages: Sequence[Message]) -> int | None:
    """Index of the first message with role exactly ``"user"`` and no ``tool_result`` block."""
    for index, message in enumerate(messages):
        if message.role == "user" and not message.has_tool_result:
            return index
    return None


def trim_history(
    messages: Sequence[Message], budget: int | None, *, tokens: Sequence[int] | None = None
) -> TrimResult:
    """Trim a history to a token budget the way ai-profile does.

    Args:
        messages: The history, oldest first.
        budget: Token budget (``u32``), or ``None`` for "window unknown, do not trim".
        tokens: ``message_tokens`` of each message when the caller already has them (a replay
            trims the same messages at every call); computed here otherwise.

    Returns:
        The kept messages and how they were chosen. Outside the fallback path the result's estimate
        is at most ``budget``; the fallback may exceed it.
    """
    history = tuple(messages)
    count = len(history)
    sizes = [message_tokens(message) for message in history] if tokens is None else list(tokens)
    if len(sizes) != count:
        raise ValueError(f"tokens has {len(sizes)} entries for {count} messages")
    before = saturating_sum(sizes)
    if budget is None or count == 0 or before <= budget:
        return _result(history, tuple(range(count)), None, False, budget, before, sizes)

    first = first_user_index(history)
    reserve = sizes[first] if first is not None and sizes[first] <= budget // 2 else 0
    recent_budget = budget - reserve

    used = 0
    keep_from = count
    for index in range(count - 1, -1, -1):
        if used + sizes[index] > recent_budget:
            break
        used += sizes[index]
        keep_from = index

    while keep_from < count and history[keep_from].has_tool_result:
        keep_from += 1
    keep_to = count
    if keep_from < count and history[count - 1].has_tool_use:
        keep_to = count - 1

    if keep_from >= keep_to:
        plain = next(
            (
                index
                for index in range(count - 1, -1, -1)
                if not history[index].has_tool_use and not history[index].has_tool_result
            ),
            None,
        )
        kept = () if plain is None else (plain,)
        return _result(history, kept, None, True, budget, before, sizes)

    window = tuple(range(keep_from, keep_to))
    if first is not None and reserve > 0 and first < keep_from:
        return _result(history, (first, *window), first, False, budget, before, sizes)
    return _result(history, window, None, False, budget, before, sizes)


def _result(
    history: tuple[Message, ...],
    kept: tuple[int, ...],
    reinserted: int | None,
    used_fallback: bool,
    budget: int | None,
    before: int,
    sizes: Sequence[int],
) -> TrimResult:
    out = tuple(history[index] for index in kept)
    return TrimResult(
        messages=out,
        dropped=len(history) - len(out),
        kept_indices=kept,
        reinserted_first_user=reinserted,
        used_fallback=used_fallback,
        budget=budget,
        estimate_before=before,
        estimate_after=saturating_sum(sizes[index] for index in kept),
    )
