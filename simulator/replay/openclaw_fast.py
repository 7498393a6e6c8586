"""``pruneContextMessages`` for a growing history, answered in O(log n + changed) per call.

A replay asks the pruner the same question again and again about a history that only grows at the
end: recomputing every size and soft trim from scratch makes a session quadratic. The pruner's
output depends only on per-message quantities (sizes, each tool result's soft-trim outcome) and on
three positions (the first user message, the ``keepLastAssistants`` cutoff, the history's end), so
prefix sums over the tool results give the same answer:

* total after soft trim = total before + Σ (soft-trimmed size − size) over candidates in range;
* hard clear clears candidates oldest first while ``total / charWindow ≥ hardClearRatio``: the number
  cleared is the first m at which Σ_{j<m} (size after soft trim − placeholder size) makes the ratio
  drop below the threshold. Those partial sums can go down (a result smaller than the placeholder
  grows when cleared), so the search runs over their running maximum, which is monotone and first
  crosses the threshold at the same m.

Equality with :func:`simulator.runtimes.openclaw.pruner.prune_context_messages` is property-tested
(``tests/simulator/test_openclaw_fast.py``). Only what a replay needs is reproduced: the settings'
own tool predicate, ``dropThinkingBlocksForEstimate`` as the change it makes to the initial total (the
caller's: :meth:`IncrementalPruner.prune`), no protections list.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate, compress, islice, repeat
from operator import is_

from simulator.replay.model import IndexSlice, slot_builder
from simulator.runtimes.openclaw.estimate import CHARS_PER_TOKEN_ESTIMATE, estimate_message_chars
from simulator.runtimes.openclaw.messages import (
    AgentMessage,
    AssistantMessage,
    TextContent,
    ToolResultMessage,
    UserMessage,
    message_kinds,
    text_block,
)
from simulator.runtimes.openclaw.pruner import (
    resolve_window_tokens,
    soft_trim_tool_result,
)
from simulator.runtimes.openclaw.settings import EffectivePruningSettings
from simulator.runtimes.openclaw.tools import make_tool_prunable_predicate


@dataclass(frozen=True, slots=True)
class FastPrune:
    """What one pruning pass did to ``history[:end]``."""

    changed: bool
    chars_before: int
    chars_after: int
    ratio_before: float | None
    ratio_after_soft_trim: float | None
    soft_trimmed: Sequence[int]
    images_replaced: Sequence[int]
    hard_cleared: Sequence[int]
    skipped: str | None


_fast_prune = slot_builder(FastPrune)
"""``FastPrune(...)`` positionally (one per pass the gate lets run: see :func:`slot_builder`)."""


def _left_alone(message: ToolResultMessage, settings: EffectivePruningSettings) -> bool:
    """Whether soft trim surely leaves a result unchanged, read from plain ASCII text blocks alone.

    :func:`soft_trim_tool_result`'s own first test, for a result whose blocks are all ASCII text (no image:
    nothing to replace; the joined length is the lengths plus the newlines): a long session's results are
    mostly within ``softTrim.maxChars``, and the general function builds every block's JSON to learn it.
    ``False`` means "ask the function".
    """
    content = message.content
    if not isinstance(content, tuple) or not content:
        return False
    raw_len = len(content) - 1
    for block in content:
        if not isinstance(block, TextContent) or not block.text.isascii():
            return False
        raw_len += len(block.text)
    trim = settings.soft_trim
    return raw_len <= trim.max_chars or max(0, trim.head_chars) + max(0, trim.tail_chars) >= raw_len


class _Kinds:
    """The indices of the messages of each kind the pruner asks about (``start`` the first one's index),
    each list picked in C from the messages' kinds (``message_kinds``: each message read once, not once
    per kind)."""

    __slots__ = ("_start", "_kinds")

    def __init__(self, messages: Sequence[AgentMessage], start: int) -> None:
        self._start = start
        self._kinds = message_kinds(messages)

    def of(self, kind: type) -> list[int]:
        """``[start + k for k, m in enumerate(messages) if isinstance(m, kind)]``, ``kind`` one of
        ``MESSAGE_KINDS``."""
        positions = range(self._start, self._start + len(self._kinds))
        return list(compress(positions, map(is_, self._kinds, repeat(kind))))


def _running(values: Sequence[int], initial: int) -> list[int]:
    """``initial + values[0]``, ``initial + values[0] + values[1]``, ...: running sums after ``initial``."""
    return list(islice(accumulate(values, initial=initial), 1, None))


class IncrementalPruner:
    """Holds the per-message facts of one history as it grows; answers prune questions about a prefix."""

    def __init__(
        self,
        settings: EffectivePruningSettings,
        *,
        context_window: float | None,
        context_window_tokens_override: float | None,
        sizes: Sequence[int] | None = None,
    ) -> None:
        """``sizes``: the estimate of each message that will be appended, when the caller has them."""
        self.settings = settings
        self._sizes = sizes
        window = resolve_window_tokens(context_window, context_window_tokens_override)
        self.char_window: float = window * CHARS_PER_TOKEN_ESTIMATE if window is not None else 0
        self._prunable = make_tool_prunable_predicate(settings.tools)
        self._prunable_names: dict[str | None, bool] = {}
        self._messages: list[AgentMessage] = []
        self._total = [0]  # prefix sums of sizes
        self._assistants: list[int] = []
        self._first_user: int | None = None
        # Candidates: prunable tool results after the first user message, in order.
        self._cand: list[int] = []
        self._soft_delta = [0]  # prefix Σ (size after soft trim − size)
        self._after_soft = [0]  # prefix Σ size after soft trim
        self._clear_gain = [0]  # prefix Σ (size after soft trim − placeholder size)
        self._gain_max = [0]  # running maximum of _clear_gain
        self._trimmed_pos: list[int] = []  # candidate positions whose soft trim trims text
        self._trimmed_idx: list[int] = []  # ... and their message indices
        self._images_pos: list[int] = []  # candidate positions whose soft trim only replaces images
        self._images_idx: list[int] = []
        self._placeholder: int | None = None

    def append(self, message: AgentMessage) -> None:
        self.extend((message,))

    def extend(self, messages: Sequence[AgentMessage]) -> None:
        """:meth:`append` each message in turn, a kind at a time (a replay feeds a whole session): the sizes
        summed and the assistants found in C, the tool results after the first user message visited."""
        start = len(self._messages)
        self._messages.extend(messages)
        if self._sizes is not None:
            sizes: Sequence[int] = self._sizes[start : len(self._messages)]
        else:
            sizes = [estimate_message_chars(m) for m in messages]
        self._total.extend(islice(accumulate(sizes, initial=self._total[-1]), 1, None))
        # Each kind's indices picked in C, no Python step per message.
        kinds = _Kinds(messages, start)
        self._assistants.extend(kinds.of(AssistantMessage))
        if self._first_user is None:
            self._first_user = next(iter(kinds.of(UserMessage)), None)
        first = self._first_user
        if first is None:
            return
        held = self._messages
        results: list[tuple[int, ToolResultMessage]] = [
            (index, message)
            for index in kinds.of(ToolResultMessage)
            if index > first and isinstance(message := held[index], ToolResultMessage)
        ]
        # The predicate asked once per tool name (a session's results share a few names).
        prunable = {name for name in {m.tool_name for _, m in results} if self._prunable_name(name)}
        picked = [(index, message) for index, message in results if message.tool_name in prunable]
        if picked:
            self._candidates(picked, [sizes[index - start] for index, _ in picked])

    def _prunable_name(self, name: str | None) -> bool:
        """The settings' tool predicate on a result's tool name, asked once per name."""
        found = self._prunable_names.get(name)
        if found is None:
            found = self._prunable_names[name] = self._prunable(name)
        return found

    def _candidates(self, picked: Sequence[tuple[int, ToolResultMessage]], sizes: Sequence[int]) -> None:
        """New candidates (prunable tool results after the first user message, with their sizes): each one's
        soft trim, then the prefix sums over them, in C."""
        settings = self.settings
        if self._placeholder is None:
            first = picked[0][1]
            cleared = ToolResultMessage(
                (text_block(settings.hard_clear.placeholder),),
                first.tool_name,
                first.tool_call_id,
                first.is_error,
                first.extra,
            )
            self._placeholder = estimate_message_chars(cleared)
        placeholder = self._placeholder
        afters: list[int] = []
        for (index, message), size in zip(picked, sizes, strict=True):
            outcome = None if _left_alone(message, settings) else soft_trim_tool_result(message, settings)
            if outcome is None:
                afters.append(size)
                continue
            afters.append(estimate_message_chars(outcome[0]))
            position = len(self._cand) + len(afters) - 1
            (self._trimmed_pos if outcome[3] else self._images_pos).append(position)
            (self._trimmed_idx if outcome[3] else self._images_idx).append(index)
        self._cand.extend([index for index, _ in picked])
        self._soft_delta.extend(
            _running([a - b for a, b in zip(afters, sizes, strict=True)], self._soft_delta[-1])
        )
        self._after_soft.extend(_running(afters, self._after_soft[-1]))
        gains = _running([a - placeholder for a in afters], self._clear_gain[-1])
        self._clear_gain.extend(gains)
        self._gain_max.extend(islice(accumulate(gains, max, initial=self._gain_max[-1]), 1, None))

    @property
    def candidates(self) -> Sequence[int]:
        """Prunable tool results after the first user message, ascending (hard clear takes a run of them)."""
        return self._cand

    def _cutoff(self, end: int) -> int | None:
        k = self.settings.keep_last_assistants
        if k <= 0:
            return end
        if k != math.floor(k):
            return None  # upstream counts down to exactly 0, which a fraction never reaches
        count = bisect_left(self._assistants, end)
        if count < k:
            return None
        return self._assistants[count - int(k)]

    def prune(self, end: int, extra: int = 0) -> FastPrune:
        """The pass over ``history[:end]`` (``end`` ≤ messages appended so far).

        ``extra``: what the estimate's source adds to the appended messages' sizes. A route that drops
        thinking sizes every assistant but the latest stripped (``dropThinkingBlocksForEstimate``): the
        strip changes assistants only, never a candidate, so the pass differs by its initial total alone.
        """
        settings = self.settings
        total = self._total[end] + extra

        if self.char_window <= 0:
            return _fast_prune(False, total, total, None, None, (), (), (), "no_context_window")
        cutoff = self._cutoff(end)
        if cutoff is None:
            return _fast_prune(False, total, total, None, None, (), (), (), "too_few_assistants")
        ratio = total / self.char_window
        if ratio < settings.soft_trim_ratio:
            return _fast_prune(False, total, total, ratio, None, (), (), (), "below_soft_trim_ratio")
        lo = 0 if self._first_user is not None and self._first_user < end else len(self._cand)
        hi = bisect_left(self._cand, cutoff)
        hi = max(hi, lo)
        soft_total = total + self._soft_delta[hi] - self._soft_delta[lo]
        ratio_soft = soft_total / self.char_window
        cleared_count = 0
        after = soft_total
        hard = settings.hard_clear_ratio
        if (
            ratio_soft >= hard
            and settings.hard_clear.enabled
            and self._after_soft[hi] - self._after_soft[lo] >= settings.min_prunable_tool_chars
        ):
            # Clearing m candidates leaves soft_total − (gain[lo+m] − gain[lo]); find the first m that
            # brings the ratio under the threshold, or clear them all.
            base = self._clear_gain[lo]
            cleared_count = min(self._first_under(soft_total, base, lo, hi), hi - lo)
            after = soft_total - (self._clear_gain[lo + cleared_count] - base)
        first_soft = lo + cleared_count
        trimmed = self._positions(self._trimmed_pos, self._trimmed_idx, first_soft, hi)
        images = self._positions(self._images_pos, self._images_idx, first_soft, hi)
        cleared = IndexSlice(self._cand, lo, lo + cleared_count)
        changed = bool(trimmed or images or cleared)
        return _fast_prune(changed, total, after, ratio, ratio_soft, trimmed, images, cleared, None)

    def _first_under(self, soft_total: int, base: int, lo: int, hi: int) -> int:
        """The first m in [1, hi - lo] at which clearing m candidates brings the ratio under
        ``hardClearRatio``, else hi - lo + 1.

        The test is on the ratio itself, as upstream makes it; it only turns true as m grows (the running
        maximum only rises), so the first m is found from a guess: the bisection of the running maximum
        against the threshold in chars (the same test but for rounding), then moved by the test itself
        until it holds at m and not at m - 1.
        """
        gain_max, char_window, hard = self._gain_max, self.char_window, self.settings.hard_clear_ratio
        n = hi - lo

        def under(m: int) -> bool:
            return (soft_total - (gain_max[lo + m] - base)) / char_window < hard

        m = bisect_right(gain_max, soft_total + base - hard * char_window, lo + 1, hi + 1) - lo
        m = min(max(m, 1), n + 1)
        while m <= n and not under(m):
            m += 1
        while m > 1 and under(m - 1):
            m -= 1
        return m

    def _positions(self, positions: list[int], indices: list[int], lo: int, hi: int) -> IndexSlice:
        # The lists only grow, so a slice of them stays valid for the record that keeps it.
        return IndexSlice(indices, bisect_left(positions, lo), bisect_left(positions, hi))
