"""A read-only sequence whose items are made when first read: a page of a long session's rows.

A call view has a row per message of a call (tens of thousands late in a long session) and a comparison a
row per call; a page shows a hundred. Both know how many rows there are without making them, and make each
from what they hold when it is first read (:meth:`MadeOnRead._row`, which keeps what it made).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar, overload

T = TypeVar("T")


class MadeOnRead(Sequence[T]):
    """Indexing, slicing (a list) and iteration over :meth:`_row`; subclasses give ``__len__``, ``_row``."""

    __slots__ = ()

    def __len__(self) -> int:
        raise NotImplementedError

    def _row(self, k: int) -> T:
        """Row ``k`` (``0 <= k < len(self)``), made now if it was not before, and kept."""
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        size = len(self)
        if isinstance(index, slice):
            return [self._row(k) for k in range(*index.indices(size))]
        at = index + size if index < 0 else index
        if not 0 <= at < size:
            raise IndexError(f"{type(self).__name__} index out of range")
        return self._row(at)

    def __iter__(self) -> Iterator[T]:
        return map(self._row, range(len(self)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self)!r})"


class MadeWhenRead(MadeOnRead[T]):
    """A replay's per-call values (its records, what recomputing a call needs), each made when first read
    from what the replay kept for it, then kept in place: a long session's page reads a call or two of tens
    of thousands, and a value of a call no one reads is never made.

    An item that is a tuple is pending, and ``make(item)`` makes it (a value made is never a tuple); any
    other item is the value itself. It stands for the tuple of its values: equal to that tuple (or to
    another of its kind with equal values), hashed and shown as it, and a slice is a tuple; so a result's
    ``repr`` and equality are the same whether its values were made while replaying or when read. Two
    threads reading one pending item may both make it: the values are equal, and one of them is kept.
    """

    __slots__ = ("_items", "_make")

    def __init__(self, items: list[object], make: Callable[[tuple[object, ...]], T]) -> None:
        self._items = items
        self._make = make

    def __len__(self) -> int:
        return len(self._items)

    def _row(self, k: int) -> T:
        item = self._items[k]
        if type(item) is tuple:
            made = self._make(item)
            self._items[k] = made
            return made
        return item  # type: ignore[return-value]  # every item not pending is a value

    def unkept(self, k: int) -> T:
        """Value ``k`` (``0 <= k < len(self)``), made if pending but not kept: for a sequence whose values
        are made from this one's and keeps its own (two kept copies of each value read would be one too
        many)."""
        item = self._items[k]
        if type(item) is tuple:
            return self._make(item)
        return item  # type: ignore[return-value]  # every item not pending is a value

    @overload  # type: ignore[override]  # a slice is a tuple here: the value stands for one
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...
    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            return tuple(map(self._row, range(*index.indices(len(self)))))
        return super().__getitem__(index)

    @property
    def pending(self) -> int:
        """How many values are not made yet."""
        return sum(1 for item in self._items if type(item) is tuple)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (tuple, MadeWhenRead)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))
