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

from simulator.replay.model import slot_builder
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


_trim = slot_builder(PrefixTrim)
"""``PrefixTrim(...)`` positionally: one per model call (see :func:`slot_builder`)."""


class PrefixTrimmer:
    """Answers ``trim_history(messages[:end], budget)`` for any ``end`` of one fixed message list."""

    def __init__(
        self,
        messages: Sequence[Message],
        sizes: Sequence[int],
        tool_use: Sequence[bool] | None = None,
        tool_result: Sequence[bool] | None = None,
    ) -> None:
        """``tool_use``, ``tool_result``: each message's ``has_tool_use`` and ``has_tool_result``, when the
        caller knows them (else they are asked of each message the edges look at)."""
        self._messages = messages
        self._sizes = sizes
        self._prefix = list(accumulate(sizes, initial=0))  # running sums, unsaturated
        self._first_user = first_user_index(messages)
        self._tool_use: Sequence[bool] | _Asked = _Asked(messages, "has_tool_use")
        self._tool_result: Sequence[bool] | _Asked = _Asked(messages, "has_tool_result")
        if (
            tool_use is not None
            and tool_result is not None
            and len(tool_use) == len(tool_result) == len(messages)
        ):
            self._tool_use, self._tool_result = tool_use, tool_result

    def _sum(self, start: int, end: int) -> int:
        return self._prefix[end] - self._prefix[start]

    def trim(self, end: int, budget: int | None) -> PrefixTrim:
        sizes = self._sizes
        before = min(self._prefix[end], U32_MAX)
        if budget is None or end == 0 or before <= budget:
            return _trim(((0, end),) if end else (), None, False, before, 0)
        first = self._first_user if self._first_user is not None and self._first_user < end else None
        reserve = sizes[first] if first is not None and sizes[first] <= budget // 2 else 0
        recent = budget - reserve
        # Smallest keep_from with sum(sizes[keep_from:end]) <= recent (sizes are positive).
        keep_from = bisect_left(self._prefix, self._prefix[end] - recent, 0, end + 1)
        tool_use, tool_result = self._tool_use, self._tool_result
        while keep_from < end and tool_result[keep_from]:
            keep_from += 1
        keep_to = end - 1 if keep_from < end and tool_use[end - 1] else end
        if keep_from >= keep_to:
            plain = next(
                (i for i in range(end - 1, -1, -1) if not tool_use[i] and not tool_result[i]),
                None,
            )
            if plain is None:
                return _trim((), None, True, 0, end)
            return _trim(((plain, plain + 1),), None, True, min(sizes[plain], U32_MAX), end - 1)
        window = self._prefix[keep_to] - self._prefix[keep_from]
        kept = keep_to - keep_from
        if first is not None and reserve > 0 and first < keep_from:
            return _trim(
                ((first, first + 1), (keep_from, keep_to)),
                first,
                False,
                min(window + sizes[first], U32_MAX),
                end - kept - 1,
            )
        return _trim(((keep_from, keep_to),), None, False, min(window, U32_MAX), end - kept)


class _Asked:
    """A message property read by index, asked of the message each time."""

    def __init__(self, messages: Sequence[Message], name: str) -> None:
        self._messages, self._name = messages, name

    def __getitem__(self, index: int) -> bool:
        value: bool = getattr(self._messages[index], self._name)
        return value


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
