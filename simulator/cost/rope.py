"""A request told as slices of longer lists, so that many long requests that share most of their messages
cost their pieces, not their length.

A pruned call of a long session sends the history as stored with a run of messages changed (OpenClaw's
hard-cleared tool results): the stored history up to the run, the run as sent, the history after it. Built
as one list per call, a 100,000-message session pruned at every pause held the square of its length
(gigabytes) and spent most of its pricing copying it. A :class:`SegmentRope` holds the slices instead:
``(list, start, stop)`` pieces of lists that are never changed where a piece covers them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from itertools import chain, islice
from typing import TYPE_CHECKING, overload

if TYPE_CHECKING:
    from simulator.cost.cache import Segment

Piece = tuple[Sequence["Segment"], int, int]
"""``(items, start, stop)``: ``items[start:stop]``, which must not change while the piece is held (a rope
keeps lists; a piece of another sequence is copied)."""


class SegmentRope(Sequence["Segment"]):
    """The concatenation of ``pieces`` (each ``items[start:stop]``), without a copy."""

    __slots__ = ("_starts", "pieces")

    def __init__(self, pieces: Sequence[Piece]) -> None:
        # Pieces are lists (a tuple's slice is copied, a few items): the trie compares slices of two pieces,
        # and a list never equals a tuple.
        self.pieces: tuple[Piece, ...] = tuple(
            (items, lo, hi) if isinstance(items, list) else (list(items[lo:hi]), 0, hi - lo)
            for items, lo, hi in pieces
            if hi > lo
        )
        starts = [0]
        for _, start, stop in self.pieces:
            starts.append(starts[-1] + stop - start)
        self._starts = starts
        """Where each piece begins, and the length last."""

    def __len__(self) -> int:
        return self._starts[-1]

    @overload
    def __getitem__(self, index: int) -> Segment: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Segment, ...]: ...
    def __getitem__(self, index: int | slice) -> Segment | tuple[Segment, ...]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                # The slice as given: normalised, a stop of -1 means "before the start", not "the last".
                return tuple(self.listed(0, len(self))[index])
            return tuple(self.listed(start, max(start, stop)))
        at = index + len(self) if index < 0 else index
        if not 0 <= at < len(self):
            raise IndexError("segment index out of range")
        piece = bisect_right(self._starts, at) - 1
        items, start, _ = self.pieces[piece]
        return items[start + at - self._starts[piece]]

    def listed(self, start: int, stop: int) -> list[Segment]:
        """``self[start:stop]`` as a list, built from slices of the pieces (C-level copies)."""
        out: list[Segment] = []
        if start >= stop:
            return out
        first = bisect_right(self._starts, start) - 1
        for piece in range(first, len(self.pieces)):
            begins = self._starts[piece]
            if begins >= stop:
                break
            items, lo, hi = self.pieces[piece]
            out += items[lo + max(0, start - begins) : lo + min(hi - lo, stop - begins)]
        return out

    def __iter__(self) -> Iterator[Segment]:
        return chain.from_iterable(islice(items, lo, hi) for items, lo, hi in self.pieces)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(self) == len(other) and tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"SegmentRope({tuple(self)!r})"


def spliced(pieces: Sequence[Piece], position: int, items: Sequence[Segment], replaced: int) -> list[Piece]:
    """``pieces`` with the ``replaced`` items at ``position`` replaced by ``items`` (inserted when 0)."""
    out: list[Piece] = []
    begins = 0
    placed = False
    for source, lo, hi in pieces:
        length = hi - lo
        ends = begins + length
        if not placed and (position < ends or (position == ends and not replaced)):
            cut = lo + position - begins
            skip = min(replaced, hi - cut)
            replaced -= skip
            out += [(source, lo, cut), (items, 0, len(items)), (source, cut + skip, hi)]
            placed = True
        elif placed and replaced:
            # What is still to be replaced begins this piece.
            skip = min(replaced, length)
            replaced -= skip
            out.append((source, lo + skip, hi))
        else:
            out.append((source, lo, hi))
        begins = ends
    if not placed:
        out.append((items, 0, len(items)))
    return out


def spliced_each(pieces: Sequence[Piece], replacements: Sequence[tuple[int, Segment]]) -> list[Piece]:
    """``pieces`` with the item at each ``(position, item)`` replaced, positions ascending and apart: what
    :func:`spliced` gives replacing them one at a time, in one pass over the pieces.

    One at a time costs every piece per replacement, and each adds two: a call that sends hundreds of
    messages changed one by one (OpenClaw's stripped thinking) was the square of them.
    """
    out: list[Piece] = []
    begins = 0
    k, count = 0, len(replacements)
    for source, lo, hi in pieces:
        ends = begins + hi - lo
        cut = lo
        while k < count and replacements[k][0] < ends:
            at = lo + replacements[k][0] - begins
            out += [(source, cut, at), ([replacements[k][1]], 0, 1)]
            cut = at + 1
            k += 1
        out.append((source, cut, hi))
        begins = ends
    if k < count:
        raise IndexError("a replaced position is past the end of the pieces")
    return out


def pieces_of(segments: Sequence[Segment], length: int) -> Sequence[Piece]:
    """``segments[:length]`` as pieces: a rope's own (cut at ``length``), else one piece of ``segments``."""
    if isinstance(segments, SegmentRope):
        if length == len(segments):
            return segments.pieces
        out: list[Piece] = []
        for (items, lo, hi), begins in zip(segments.pieces, segments._starts, strict=False):
            if begins >= length:
                break
            out.append((items, lo, min(hi, lo + length - begins)))
        return out
    return ((segments if isinstance(segments, list) else list(segments[:length]), 0, length),)


__all__ = ["Piece", "SegmentRope", "pieces_of", "spliced", "spliced_each"]
