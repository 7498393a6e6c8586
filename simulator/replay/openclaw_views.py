"""Lazy, call-stamped views a fast replay hands out instead of copying a whole context at every call.

A replay's call k sends what the session's sticky rewrites were at k; later calls add rewrites. The views
here read a shared, growing store filtered by a call stamp (``seq``), so building one costs nothing and
reading it later still gives what held at its call (the stores: :mod:`simulator.replay.openclaw_stores`).
Each view equals the tuple (or dict) it stands for.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TypeVar, final, overload

from simulator.replay.openclaw_stores import StrippedStore, Versions
from simulator.runtimes.openclaw.messages import AgentMessage

T = TypeVar("T")


class _Equal:
    """Equality with any sequence of the same items (a tuple on the other side included)."""

    __slots__ = ()

    def __iter__(self) -> Iterator[object]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return tuple(iter(self)) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(iter(self)))

    def __repr__(self) -> str:
        # What it holds, as IndexSlice shows itself: a record's repr (the fingerprints hash it) is then the
        # same from run to run, not the view's address.
        return f"{type(self).__name__}({list(iter(self))!r})"


class ContextView(_Equal, Sequence[AgentMessage]):
    """The context of one call: an optional summary, then ``natives[lo:end]`` as sent at stamp ``seq``."""

    __slots__ = ("_natives", "_lo", "_end", "_head", "_versions", "_seq")

    def __init__(
        self,
        natives: Sequence[AgentMessage],
        lo: int,
        end: int,
        head: AgentMessage | None,
        versions: Versions,
        seq: int,
    ) -> None:
        self._natives, self._lo, self._end, self._head = natives, lo, end, head
        self._versions, self._seq = versions, seq

    def __len__(self) -> int:
        return self._end - self._lo + (self._head is not None)

    def _one(self, index: int) -> AgentMessage:
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        if self._head is not None:
            if index == 0:
                return self._head
            index -= 1
        position = self._lo + index
        return self._versions.at(position, self._seq) or self._natives[position]

    @overload
    def __getitem__(self, index: int) -> AgentMessage: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[AgentMessage, ...]: ...
    def __getitem__(self, index: int | slice) -> AgentMessage | tuple[AgentMessage, ...]:
        if isinstance(index, slice):
            return tuple(self._one(i) for i in range(*index.indices(len(self))))
        return self._one(index)

    def __iter__(self) -> Iterator[AgentMessage]:
        return (self._one(i) for i in range(len(self)))


class PositionsView(_Equal, Sequence[int]):
    """Positions of a growing ascending list that pass a test, mapped (e.g. to context indices).

    ``length`` is known when the view is made (counted by the replay's sums), so truth and size are free.
    """

    __slots__ = ("_positions", "_keep", "_shift", "_length", "_items")

    def __init__(self, positions: list[int], keep: Callable[[int], bool], shift: int, length: int) -> None:
        self._positions, self._keep, self._shift, self._length = positions, keep, shift, length
        self._items: tuple[int, ...] | None = None

    def __len__(self) -> int:
        return self._length

    def _all(self) -> tuple[int, ...]:
        if self._items is None:
            keep, shift = self._keep, self._shift
            self._items = tuple(p + shift for p in list(self._positions) if keep(p))
        return self._items

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[int, ...]: ...
    def __getitem__(self, index: int | slice) -> int | tuple[int, ...]:
        return self._all()[index]

    def __iter__(self) -> Iterator[int]:
        return iter(self._all())

    def __contains__(self, value: object) -> bool:
        return value in self._all()


class SliceView(_Equal, Sequence[int]):
    """``items[start:stop]`` of an ascending index list that is never changed, without copying it (equal to
    the tuple); membership is a bisection (a trace asks it of every call's groups)."""

    __slots__ = ("_items", "_start", "_stop")

    def __init__(self, items: Sequence[int], start: int, stop: int) -> None:
        self._items, self._start, self._stop = items, start, max(start, stop)

    @property
    def source(self) -> Sequence[int]:
        """The sequence this is a window of (as :class:`~simulator.replay.model.IndexSlice` names it: a reader
        compares two windows by it, its start and its stop, not item by item)."""
        return self._items

    @property
    def start(self) -> int:
        return self._start

    @property
    def stop(self) -> int:
        return self._stop

    def __len__(self) -> int:
        return self._stop - self._start

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[int, ...]: ...
    def __getitem__(self, index: int | slice) -> int | tuple[int, ...]:
        if isinstance(index, slice):
            return tuple(self._items[self._start : self._stop][index])
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._items[self._start + index]

    def __iter__(self) -> Iterator[int]:
        return iter(self._items[self._start : self._stop])

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, int):
            return False
        at = bisect_left(self._items, value, self._start, self._stop)
        return at < self._stop and self._items[at] == value


@final
class ChangedView(Mapping[int, AgentMessage]):
    """Native position → message as sent at stamp ``seq``, for the positions in ``[lo, end)`` it changed.

    ``stripped``: a second store of what is sent at the stream only (assistants without their thinking,
    never in the store the context views read); a position is in at most one of the two."""

    __slots__ = ("_versions", "_seq", "_lo", "_end", "_length", "_stripped", "_cleaning")

    def __init__(
        self,
        versions: Versions,
        seq: int,
        lo: int,
        end: int,
        length: int,
        stripped: Versions | StrippedStore | None = None,
        cleaning: tuple[Sequence[int], Mapping[int, AgentMessage]] | None = None,
    ) -> None:
        self._versions, self._seq, self._lo, self._end, self._length = versions, seq, lo, end, length
        self._stripped = stripped
        self._cleaning = cleaning
        """The writer's positions ever sent as something else than their cleaned message (ascending) and
        its cleaned messages (:meth:`apart_from_cleaned`); ``None`` when the writer did not hand them."""

    def __getitem__(self, position: int) -> AgentMessage:
        found = None
        if self._lo <= position < self._end:
            found = self._versions.at(position, self._seq)
            if found is None and self._stripped is not None:
                found = self._stripped.at(position, self._seq)
        if found is None:
            raise KeyError(position)
        return found

    def __iter__(self) -> Iterator[int]:
        seq, lo, end = self._seq, self._lo, self._end
        stores: list[Versions | StrippedStore] = [self._versions]
        if self._stripped is not None:
            stores.append(self._stripped)
        found = [
            p
            for store in stores
            for p in list(store.positions)
            if lo <= p < end and store.at(p, seq) is not None
        ]
        return iter(sorted(found) if len(stores) > 1 else found)

    def __len__(self) -> int:
        return self._length

    def apart_from_cleaned(self, cleaned: Sequence[int]) -> dict[int, AgentMessage] | None:
        """The main store's changes but the positions of ``cleaned`` sent as history image cleanup cleaned
        them (told as a layer by the caller, :meth:`cleaned_message`), without visiting those; ``None``
        when the writer did not hand what tells them apart."""
        if self._cleaning is None:
            return None
        unlayered, messages = self._cleaning
        seq, lo, end, store = self._seq, self._lo, self._end, self._versions
        out: dict[int, AgentMessage] = {}
        for p in unlayered[bisect_left(unlayered, lo) : bisect_left(unlayered, end)]:
            message = store.at(p, seq)
            if message is not None and (p not in cleaned or message is not messages.get(p)):
                out[p] = message
        return out

    def cleaned_message(self, position: int) -> AgentMessage:
        """``position`` as history image cleanup sends it (it was cleaned: :meth:`apart_from_cleaned`)."""
        assert self._cleaning is not None
        return self._cleaning[1][position]

    def stored_changes(self) -> Iterator[tuple[int, AgentMessage]]:
        """Position → message as sent of the main store only: every change but the stripped assistants."""
        seq, lo, end, store = self._seq, self._lo, self._end, self._versions
        for p in list(store.positions):
            if lo <= p < end and (message := store.at(p, seq)) is not None:
                yield p, message
