"""Lazy, call-stamped views a fast replay hands out instead of copying a whole context at every call.

A replay's call k sends what the session's sticky rewrites were at k; later calls add rewrites. The views
here read a shared, growing store filtered by a call stamp (``seq``), so building one costs nothing and
reading it later still gives what held at its call. Each view equals the tuple (or dict) it stands for.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TypeVar, final, overload

from simulator.runtimes.openclaw.messages import AgentMessage

T = TypeVar("T")


class Fenwick:
    """Prefix sums over positions with point updates (O(log n) both).

    The total and the highest position added to are kept too: a replay asks for sums up to a call's end,
    past every position changed so far (rewrites are of older messages), and those are the total in O(1).
    An add past every position added to before (history image cleanup and the transcript policy change
    messages in position order, one or more at nearly every call of a session with old screenshots or
    thinking) is appended to an ascending tail instead, in O(1); a prefix below the top adds the tail's
    part, found by bisection.
    """

    __slots__ = ("_tree", "_used", "_total", "_top", "_tail_at", "_tail_sums")

    def __init__(self, size: int) -> None:
        self._tree = [0] * (size + 1)
        self._used = False
        self._total = 0
        self._top = 0
        """One past the highest position added to."""
        self._tail_at = array("q")
        """The positions of the adds past the top when made, ascending (machine integers: compact)."""
        self._tail_sums = array("q", (0,))
        """Running sums of those adds' deltas (``[k]``: of the first ``k``)."""

    def add(self, index: int, delta: int) -> None:
        if not delta:
            return
        self._used = True
        self._total += delta
        if index >= self._top:
            self._top = index + 1
            self._tail_at.append(index)
            self._tail_sums.append(self._tail_sums[-1] + delta)
            return
        i = index + 1
        tree = self._tree
        size = len(tree)
        while i < size:
            tree[i] += delta
            i += i & -i

    def prefix(self, end: int) -> int:
        """Σ over positions ``< end``."""
        if not self._used:
            return 0  # nothing added yet (most sums of a session that rewrites nothing)
        if end >= self._top:
            return self._total  # past every position added to (most asks of a replay)
        if end <= 0:
            return 0  # the start of a range over the whole history (most of the others)
        total = self._tail_sums[bisect_left(self._tail_at, end)]
        i = end
        tree = self._tree
        while i > 0:
            total += tree[i]
            i -= i & -i
        return total

    def range(self, lo: int, hi: int) -> int:
        if hi <= lo or not self._used:
            return 0
        if lo <= 0 and hi >= self._top:
            return self._total  # the whole history past every change (most asks): no prefix asked
        return self.prefix(hi) - self.prefix(lo)


class Versions:
    """Per position, the message sent from each stamp on (None: the stored message itself)."""

    __slots__ = ("_seqs", "_messages", "first", "positions")

    def __init__(self) -> None:
        self._seqs: dict[int, list[int]] = {}
        self._messages: dict[int, list[AgentMessage | None]] = {}
        self.first: dict[int, int] = {}
        """Position → the stamp of its first version."""
        self.positions: list[int] = []
        """Every position with a version, ascending (grows by insertion; never shrinks)."""

    def set(self, position: int, seq: int, message: AgentMessage | None) -> None:
        seqs = self._seqs.get(position)
        if seqs is None:
            self._seqs[position] = [seq]
            self._messages[position] = [message]
            self.first[position] = seq
            insort(self.positions, position)
            return
        if seqs[-1] == seq:
            self._messages[position][-1] = message
        else:
            seqs.append(seq)
            self._messages[position].append(message)

    def at(self, position: int, seq: int) -> AgentMessage | None:
        seqs = self._seqs.get(position)
        if seqs is None:
            return None
        k = bisect_right(seqs, seq) - 1
        return self._messages[position][k] if k >= 0 else None

    def latest(self, position: int) -> AgentMessage | None:
        found = self._messages.get(position)
        return found[-1] if found else None


class StrippedStore:
    """Per assistant the transcript policy stripped, the stamp it is sent stripped from (once each, in
    position order: the latest assistant only moves forward), and the stripped message, made when first
    read (``strip``) unless handed in: a long session strips an assistant at every call, and its stripped
    messages are read only by a call's on-demand view. Read as :class:`Versions` reads (``at``,
    ``positions``)."""

    __slots__ = ("_natives", "_strip", "positions", "_seqs", "_made")

    def __init__(
        self, natives: Sequence[AgentMessage], strip: Callable[[AgentMessage], AgentMessage]
    ) -> None:
        self._natives, self._strip = natives, strip
        self.positions: list[int] = []
        """Every position stripped, ascending."""
        self._seqs: list[int] = []
        self._made: dict[int, AgentMessage] = {}

    def add(self, position: int, seq: int, message: AgentMessage | None = None) -> None:
        """``natives[position]`` is sent stripped from stamp ``seq`` on (as ``message``, or as ``strip``
        makes it when first read)."""
        positions, seqs = self.positions, self._seqs
        if not positions or position > positions[-1]:
            positions.append(position)  # every strip of a replay
            seqs.append(seq)
        else:
            k = bisect_left(positions, position)
            if k < len(positions) and positions[k] == position:
                seqs[k] = min(seqs[k], seq)  # stripped again: the same message, sent since the first
            else:
                positions.insert(k, position)
                seqs.insert(k, seq)
        if message is not None:
            self._made[position] = message

    def at(self, position: int, seq: int) -> AgentMessage | None:
        positions = self.positions
        k = bisect_left(positions, position)
        if k == len(positions) or positions[k] != position or self._seqs[k] > seq:
            return None
        made = self._made.get(position)
        if made is None:
            made = self._made[position] = self._strip(self._natives[position])
        return made


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
