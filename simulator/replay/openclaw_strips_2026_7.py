"""2026.7.1's transcript policy on a route that drops thinking, over a replay's growing history.

``dropThinkingBlocks`` strips the thinking of every assistant but the latest with array content, at every
call. Three facts make it incremental: no other transform rewrites an assistant (pruning and the guard
rewrite tool results, image cleanup user messages and tool results), so what the policy sends for one is a
function of the stored message alone (:func:`strip_thinking`), built once here when a call's view asks for
it; the assistants it strips at a call over ``natives[:end]`` are the ones with thinking before the latest,
a prefix of them that only grows with ``end``; and an assistant's estimate is a sum over its blocks, so
what stripping it changes is read from its blocks (:func:`strip_size_change`), summed over that prefix
once. The pruning pass sizes its context with the same strips (``dropThinkingBlocksForEstimate``): the sums
give its initial total too.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain, compress, islice, repeat
from operator import attrgetter, is_not, sub
from typing import cast

from simulator.runtimes.openclaw.estimate import (
    OMITTED_ASSISTANT_REASONING_CHARS,
    StripFacts,
    estimate_string_chars,
    strip_size_change,
    strip_size_change_of,
    strip_thinking,
)
from simulator.runtimes.openclaw.messages import (
    TYPED_KEPT_BLOCKS,
    AgentMessage,
    AssistantMessage,
    RedactedThinkingContent,
    ThinkingContent,
)


def strip_size_typed(message: AgentMessage) -> int | None:
    """:func:`strip_size_change`, read from the blocks' classes when every block holds only its own fields
    (so its JSON type is its class's and its estimate its fields'), else ``None``. The reference writes
    every block's JSON, a tool call's arguments included, to ask its type: once per assistant of a
    session on a route that drops thinking."""
    if type(message) is not AssistantMessage or type(message.content) is not tuple:
        return None
    kept = removed = taken = 0
    for block in message.content:
        if type(block) in TYPED_KEPT_BLOCKS and not block.extra:  # type: ignore[union-attr]
            kept += 1
            continue
        # An extra field may name another type, a subclass may write other JSON: the reference answers.
        if type(block) is ThinkingContent and not block.extra:
            text = block.thinking
        elif type(block) is RedactedThinkingContent and not block.extra:
            text = block.data
        else:
            return None
        signature = block.thinking_signature
        removed += 1
        # ``_assistant_block_chars``: the weighted thinking (a redacted block's data) and signature.
        taken += (estimate_string_chars(text) if text is not None else 0) + (
            estimate_string_chars(signature) if signature is not None else 0
        )
    if not removed:
        return 0
    return (0 if kept else OMITTED_ASSISTANT_REASONING_CHARS) - taken


class ThinkingStrips:
    """The assistants with thinking (``thinking``, ascending), each stripped once, and prefix sums of what
    stripping them changes of the estimate."""

    __slots__ = ("_natives", "thinking", "_facts", "_assistants", "_counts", "_stripped", "_sums")

    def __init__(
        self,
        natives: Sequence[AgentMessage],
        thinking: Sequence[int],
        facts: Sequence[StripFacts | None] | None = None,
    ) -> None:
        self._natives = natives
        self.thinking = thinking
        self._facts = facts
        """Per assistant of ``thinking``, what preparing the session read of its strip (``None``: not
        read, or read by the reference functions: sized from its blocks here)."""
        self._assistants: list[int] | None = None
        """Every assistant's native index, ascending (found at the first call that strips)."""
        self._counts: list[int | None] | None = None
        """``end`` → :meth:`count`'s answer, for every ``end`` up to the natives' length (made with
        ``_assistants``: the answer is the same for every ``end`` between two assistants)."""
        self._stripped: dict[int, AgentMessage] = {}
        """Position ``k`` → ``thinking[k]`` as the policy sends it, for those asked for so far."""
        self._sums = [0]
        """Prefix Σ (estimate stripped − estimate stored) over ``thinking``, as far as built."""

    def count(self, end: int) -> int | None:
        """How many of ``thinking`` the policy strips at a call over ``natives[:end]``: those before the
        latest assistant. ``None`` when that assistant's content is not an array (the policy keeps an
        earlier one whole instead: left to the reference).

        Read from a table of every ``end``'s answer, made at the first call that strips: a replay asks at
        every call (each of a long session's calls, the many that overflow too), and the table costs a
        step per assistant once (:meth:`count_reference` is the search it tabulates)."""
        counts = self._counts
        if counts is None:
            thinking = self.thinking
            if not thinking or thinking[0] >= end:
                return 0
            counts = self._counts = _count_table(self._natives, thinking, self._assistant_indexes())
        if 0 <= end < len(counts):
            return counts[end]
        return self.count_reference(end)

    def _assistant_indexes(self) -> list[int]:
        assistants = self._assistants
        if assistants is None:
            # An isinstance per message in C (a long session's every message, once).
            checks = map(AssistantMessage.__instancecheck__, self._natives)
            assistants = self._assistants = list(compress(range(len(self._natives)), checks))
        return assistants

    def count_reference(self, end: int) -> int | None:
        """:meth:`count`, searched for ``end`` alone."""
        thinking = self.thinking
        if not thinking or thinking[0] >= end:
            return 0
        assistants = self._assistant_indexes()
        latest = assistants[bisect_left(assistants, end) - 1]  # thinking[0], an assistant, is before end
        message = self._natives[latest]
        if not isinstance(message, AssistantMessage) or type(message.content) is not tuple:
            return None
        # Counted only: the strips are built when their sizes or messages are asked for (a call that
        # overflows sends none of them, and most calls of a long session overflow).
        return bisect_left(thinking, latest)

    def delta(self, count: int) -> int:
        """Σ over the first ``count`` strips of (estimate stripped − estimate stored)."""
        self._grow(count)
        return self._sums[count]

    def message(self, position: int) -> AgentMessage:
        """``thinking[position]`` stripped (built once, when first asked for)."""
        found = self._stripped.get(position)
        if found is None:
            found = self._stripped[position] = strip_thinking(self._natives[self.thinking[position]])
        return found

    def _grow(self, count: int) -> None:
        # Sized from what preparing read of each assistant's blocks, else from the stored blocks (the
        # pruning pass asks for every strip's size; a call's view, for the few messages it is asked for).
        facts, sums = self._facts, self._sums
        if len(sums) == 1 and count and facts is not None and None not in facts:
            # Every strip read while preparing (a long session's usual case): all the sums at once, in C,
            # rather than a step of this loop per assistant.
            every = cast("Sequence[StripFacts]", facts)  # no None among them (checked just above)
            sums[:] = accumulate(map(strip_size_change_of, every), initial=0)
            return
        while len(sums) <= count:
            k = len(sums) - 1
            read = facts[k] if facts is not None else None
            change = strip_size_change_of(read) if read is not None else self.change_reference(k)
            sums.append(sums[-1] + change)

    def change_reference(self, position: int) -> int:
        """What stripping ``thinking[position]`` changes of its estimate, from its stored blocks alone."""
        message = self._natives[self.thinking[position]]
        change = strip_size_typed(message)
        return strip_size_change(message) if change is None else change


def _count_table(
    natives: Sequence[AgentMessage], thinking: Sequence[int], assistants: Sequence[int]
) -> list[int | None]:
    """:meth:`ThinkingStrips.count_reference` for every ``end`` in ``[0, len(natives)]``, built in C.

    The latest assistant before ``end`` is the same from one assistant's index + 1 to the next one's, so is
    the answer: ``bisect_left(thinking, latest)`` (``0`` while no assistant with thinking is before ``end``,
    which the search gives too: ``thinking`` are assistants), but ``None`` for a latest assistant with
    thinking before it whose content is not an array."""
    total = len(natives)
    first = assistants[0] if assistants else total
    answers: list[int | None] = _thinking_before(thinking, assistants)
    contents = map(attrgetter("content"), map(natives.__getitem__, assistants))
    irregular = compress(assistants, map(is_not, map(type, contents), repeat(tuple)))
    earliest = thinking[0] if thinking else total
    for latest in irregular:  # rare: looked up one by one
        if latest >= earliest:
            answers[bisect_left(assistants, latest)] = None
    gaps = map(sub, chain(islice(assistants, 1, None), (total,)), assistants)
    counts: list[int | None] = [0] * (first + 1)  # no assistant before end
    counts.extend(chain.from_iterable(map(repeat, answers, gaps)))
    return counts


def _thinking_before(thinking: Sequence[int], assistants: Sequence[int]) -> list[int | None]:
    """``bisect_left(thinking, a)`` of every assistant ``a``: a running count of the assistants with
    thinking, when every one of ``thinking`` is an assistant (one pass in C, rather than a search each);
    else the searches."""
    members = set(thinking)
    counted = list(accumulate(map(members.__contains__, assistants), initial=0))
    if len(members) == len(thinking) and counted[-1] == len(thinking):
        return list(islice(counted, len(assistants)))
    return list(map(bisect_left, repeat(thinking), assistants))


@dataclass(frozen=True, slots=True)
class StrippedPart:
    """The assistants a call sends stripped: ``thinking[:count]``."""

    strips: ThinkingStrips
    count: int

    def get(self, index: int) -> AgentMessage | None:
        thinking = self.strips.thinking
        position = bisect_left(thinking, index, 0, self.count)
        if position < self.count and thinking[position] == index:
            return self.strips.message(position)
        return None

    def __iter__(self) -> Iterator[int]:
        thinking = self.strips.thinking
        return (thinking[k] for k in range(self.count))

    def __len__(self) -> int:
        return self.count
