"""A read-only sequence whose items are made when first read: a page of a long session's rows.

A call view has a row per message of a call (tens of thousands late in a long session) and a comparison a
row per call; a page shows a hundred. Both know how many rows there are without making them, and make each
from what they hold when it is first read (:meth:`MadeOnRead._row`, which keeps what it made).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
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
