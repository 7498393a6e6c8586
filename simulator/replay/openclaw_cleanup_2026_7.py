"""2026.7.1's history image cleanup over a replay's growing history, kept as it grows.

The runtime cleans every user message and tool result before the third-last completed turn's start
(``completed_turn_starts`` with the open turn counted once it has a reply), over the guarded context, at
every call. Three facts make it incremental: the turns are told by the messages' roles alone (no transform
changes a role), so the cutoff is a function of the history's length and only moves forward as it grows; a
message's cleaned form is a function of the message alone (:func:`cleaned_message`); and the cleanup is
idempotent. A stored message, once before the cutoff, is sent cleaned at every later call, built once here;
a message a transform rewrote before it is cleaned as rewritten (the caller asks :meth:`clean` of it).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Container, Iterator, Sequence
from heapq import merge
from typing import Protocol, overload

from simulator.runtimes.openclaw.estimate import estimate_message_chars
from simulator.runtimes.openclaw.image_prune import (
    PRESERVE_RECENT_COMPLETED_TURNS,
    cleaned_message,
    completed_turn_starts,
)
from simulator.runtimes.openclaw.messages import (
    AgentMessage,
    AssistantMessage,
    ToolResultMessage,
    UserMessage,
)


class HistoryCleanup:
    """The cutoff at any history length, and the stored messages the cleanup changes, cleaned once each.

    ``media`` over-approximates, ascending, the natives the cleanup may change (``_may_hold_media``); of
    them, ``cleanable`` holds those it does change, found as the cutoff passes them.
    """

    __slots__ = (
        "_natives",
        "_media",
        "_size",
        "_scanned",
        "cleanable",
        "_cleaned",
        "_delta",
        "_fed",
        "_closed",
        "_current",
        "_replied",
        "_rewrites",
    )

    def __init__(
        self, natives: Sequence[AgentMessage], media: Sequence[int], size: Callable[[int], int]
    ) -> None:
        self._natives = natives
        self._media = media
        self._size = size
        """A native's estimated chars as stored."""
        self._scanned = 0
        """How many of ``media`` were asked whether the cleanup changes them."""
        self.cleanable: list[int] = []
        """Natives the cleanup changes, ascending (a list that only grows: calls hand out windows of it)."""
        self._cleaned: list[AgentMessage] = []
        """``cleaned_message`` of each of ``cleanable``."""
        self._delta: list[int] = [0]
        """Prefix Σ over ``cleanable`` of (estimate cleaned − estimate stored)."""
        self._fed = 0
        self._closed: list[int] = []
        """Starts of the turns a later user message closed after a reply, among the first ``_fed``."""
        self._current = -1
        self._replied = False
        self._rewrites: dict[int, tuple[AgentMessage, AgentMessage]] = {}
        """id(message) → (message, cleaned): rewritten messages are the same objects call after call."""

    def cutoff(self, end: int) -> int:
        """The cleanup's boundary over ``natives[:end]``: the messages before it are cleaned (0: none)."""
        starts: Sequence[int]
        if end < self._fed:
            # A shorter history than one asked before (no replay asks it): counted afresh.
            starts = completed_turn_starts(self._natives[:end])
        else:
            self._feed(end)
            starts = self._closed
            if self._current >= 0 and self._replied:  # 2026.7.1 counts the open turn once replied
                starts = [*starts[-PRESERVE_RECENT_COMPLETED_TURNS:], self._current]
        keep = PRESERVE_RECENT_COMPLETED_TURNS
        return starts[-keep] if len(starts) > keep else 0

    def _feed(self, end: int) -> None:
        natives, closed = self._natives, self._closed
        current, replied = self._current, self._replied
        for i in range(self._fed, end):
            message = natives[i]
            if isinstance(message, UserMessage):
                if current >= 0 and replied:
                    closed.append(current)
                current, replied = i, False
            elif isinstance(message, ToolResultMessage):
                if current < 0:
                    current, replied = i, False
            elif isinstance(message, AssistantMessage) and current >= 0:
                replied = True
        self._fed = max(self._fed, end)
        self._current, self._replied = current, replied

    def upto(self, cutoff: int) -> int:
        """How many of ``cleanable`` are before ``cutoff`` (each found and cleaned once, as it comes)."""
        media, natives = self._media, self._natives
        while self._scanned < len(media) and media[self._scanned] < cutoff:
            i = media[self._scanned]
            self._scanned += 1
            native = natives[i]
            cleaned = cleaned_message(native)
            if cleaned is not native:
                self.cleanable.append(i)
                self._cleaned.append(cleaned)
                self._delta.append(self._delta[-1] + estimate_message_chars(cleaned) - self._size(i))
        return bisect_left(self.cleanable, cutoff)

    def position(self, index: int, count: int) -> int | None:
        """Where native ``index`` is in ``cleanable[:count]``, if it is there."""
        k = bisect_left(self.cleanable, index, 0, count)
        return k if k < count and self.cleanable[k] == index else None

    def cleaned_at(self, position: int) -> AgentMessage:
        return self._cleaned[position]

    def delta(self, position: int) -> int:
        """What cleaning ``cleanable[position]`` changes the estimate by."""
        return self._delta[position + 1] - self._delta[position]

    def delta_to(self, count: int) -> int:
        """Σ of :meth:`delta` over ``cleanable[:count]``."""
        return self._delta[count]

    def clean(self, message: AgentMessage) -> AgentMessage:
        """``cleaned_message`` of a rewritten message, by identity (kept alive by the entry)."""
        hit = self._rewrites.get(id(message))
        if hit is None:
            hit = self._rewrites[id(message)] = (message, cleaned_message(message))
        return hit[1]


class Positions(Protocol):
    """Positions in ``cleanable``, asked one by one and counted (a set, or :class:`SkippedPositions`)."""

    def __contains__(self, position: object, /) -> bool: ...

    def __len__(self) -> int: ...


class SkippedPositions:
    """Positions in ``cleanable`` a call sends as another transform made them, a hard-cleared run's among
    them not listed: those in ``few``, and those in ``[lo, hi)`` whose native ``inside`` holds (the run);
    ``length``, how many in all, counted by the caller (from prefix sums)."""

    __slots__ = ("_few", "_cleanable", "_lo", "_hi", "_inside", "_length")

    def __init__(
        self,
        few: frozenset[int],
        cleanable: Sequence[int],
        lo: int,
        hi: int,
        inside: Container[int],
        length: int,
    ) -> None:
        self._few, self._cleanable, self._lo, self._hi = few, cleanable, lo, hi
        self._inside, self._length = inside, length

    def __contains__(self, position: object, /) -> bool:
        if position in self._few:
            return True
        return (
            isinstance(position, int)
            and self._lo <= position < self._hi
            and self._cleanable[position] in self._inside
        )

    def __len__(self) -> int:
        return self._length


class CleanedIndexes(Sequence[int]):
    """The natives a call's cleanup changed when a transform rewrote some old ones first:
    ``cleanable[:count]`` but the positions in ``skip`` (sent as rewritten or cleared, cleaned or not), and
    the ascending ``added`` (rewritten messages it changed), merged. Equal to the tuple of its items; kept
    by a call's record without copying the growing list."""

    __slots__ = ("_cleanable", "_count", "_skip", "_added")

    def __init__(self, cleanable: list[int], count: int, skip: Positions, added: tuple[int, ...]) -> None:
        self._cleanable, self._count, self._skip, self._added = cleanable, count, skip, added

    def __len__(self) -> int:
        return self._count - len(self._skip) + len(self._added)

    def __iter__(self) -> Iterator[int]:
        cleanable, skip = self._cleanable, self._skip
        return merge((cleanable[k] for k in range(self._count) if k not in skip), self._added)

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[int, ...]: ...
    def __getitem__(self, index: int | slice) -> int | tuple[int, ...]:
        return tuple(self)[index]  # the records iterate; an index is rarely asked

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(other) == len(self) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"CleanedIndexes({list(self)!r})"


__all__ = ["CleanedIndexes", "HistoryCleanup", "Positions", "SkippedPositions"]
