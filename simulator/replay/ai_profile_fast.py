"""ai-profile's ``trim_history`` on a prefix of a growing history: fast (O(log n) per call) and reference.

``trim_history`` walks from the newest message back while the running sum fits the budget. Every
message costs at least 8 tokens, so the sizes' prefix sums strictly increase and the walk's stopping
point is a binary search; the first user message is fixed once it appears; the edge checks (leading
tool results, a trailing unanswered call) and the fallback scan look at a few messages. The answer is
the reference's (``tests/simulator/test_ai_profile_fast.py`` compares them on random histories),
without copying the history at every call.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from simulator.runtimes.ai_profile import Message, first_user_index, trim_history

U32_MAX = 2**32 - 1


@dataclass(frozen=True, slots=True)
class PrefixTrim:
    spans: tuple[tuple[int, int], ...]
    """Kept indices as half-open ranges, in output order (the re-added first user message first)."""
    reinserted_first_user: int | None
    used_fallback: bool
    estimate_after: int
    dropped: int


class PrefixTrimmer:
    """Answers ``trim_history(messages[:end], budget)`` for any ``end`` of one fixed message list."""

    def __init__(self, messages: Sequence[Message], sizes: Sequence[int]) -> None:
        self._messages = messages
        self._sizes = sizes
        self._prefix = list(accumulate(sizes, initial=0))  # running sums, unsaturated
        self._first_user = first_user_index(messages)

    def _sum(self, start: int, end: int) -> int:
        return self._prefix[end] - self._prefix[start]

    def trim(self, end: int, budget: int | None) -> PrefixTrim:
        messages, sizes = self._messages, self._sizes
        before = min(self._prefix[end], U32_MAX)
        if budget is None or end == 0 or before <= budget:
            return PrefixTrim(((0, end),) if end else (), None, False, before, 0)
        first = self._first_user if self._first_user is not None and self._first_user < end else None
        reserve = sizes[first] if first is not None and sizes[first] <= budget // 2 else 0
        recent = budget - reserve
        # Smallest keep_from with sum(sizes[keep_from:end]) <= recent (sizes are positive).
        keep_from = bisect_left(self._prefix, self._prefix[end] - recent, 0, end + 1)
        while keep_from < end and messages[keep_from].has_tool_result:
            keep_from += 1
        keep_to = end - 1 if keep_from < end and messages[end - 1].has_tool_use else end
        if keep_from >= keep_to:
            plain = next(
                (
                    i
                    for i in range(end - 1, -1, -1)
                    if not messages[i].has_tool_use and not messages[i].has_tool_result
                ),
                None,
            )
            if plain is None:
                return PrefixTrim((), None, True, 0, end)
            return PrefixTrim(((plain, plain + 1),), None, True, min(sizes[plain], U32_MAX), end - 1)
        window = self._sum(keep_from, keep_to)
        kept = keep_to - keep_from
        if first is not None and reserve > 0 and first < keep_from:
            return PrefixTrim(
                ((first, first + 1), (keep_from, keep_to)),
                first,
                False,
                min(window + sizes[first], U32_MAX),
                end - kept - 1,
            )
        return PrefixTrim(((keep_from, keep_to),), None, False, min(window, U32_MAX), end - kept)


class ReferenceTrimmer:
    """The same answers from ai-profile's own ``trim_history`` on a copy of the prefix (quadratic).

    Interchangeable with :class:`PrefixTrimmer` (one interface, ``trim(end, budget)``); kept as the
    reference the fast trimmer is property-tested against.
    """

    def __init__(self, messages: Sequence[Message], sizes: Sequence[int]) -> None:
        self._messages = messages
        self._sizes = sizes

    def trim(self, end: int, budget: int | None) -> PrefixTrim:
        result = trim_history(self._messages[:end], budget, tokens=self._sizes[:end])
        kept = result.kept_indices
        first = result.reinserted_first_user
        # The re-added first user message stands apart from the recent window, as PrefixTrimmer puts it.
        head: tuple[tuple[int, int], ...] = ((first, first + 1),) if first is not None else ()
        rest = kept[1:] if first is not None else kept
        spans = head + _spans(rest)
        return PrefixTrim(spans, first, result.used_fallback, result.estimate_after, result.dropped)


def _spans(indices: Sequence[int]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for index in indices:
        if out and out[-1][1] == index:
            out[-1] = (out[-1][0], index + 1)
        else:
            out.append((index, index + 1))
    return tuple(out)
