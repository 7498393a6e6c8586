"""The stamped stores and running sums a fast 2026.9.6 replay keeps per position, read by its views.

:class:`Fenwick` sums what each rewrite changes (an estimate, a text budget, a guard size) over any range of
positions; :class:`Versions` and :class:`StrippedStore` hold what each position is sent as from a call's
stamp on (:mod:`simulator.replay.openclaw_views` reads them at a call's stamp); :func:`left_from` bisects
from the answer found before. Each is touched a few times per model call of a long session, so they are
compiled with the transforms (:mod:`simulator.replay.compiled`).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable, Sequence

from simulator.runtimes.openclaw.messages import AgentMessage


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


def left_from(values: Sequence[int], x: int, hint: int) -> int:
    """``bisect_left(values, x)`` of an ascending sequence, looked for from ``hint`` first: a replay asks it
    again and again with an ``x`` a little past the one before (the next call's history end), and
    ``hint`` is the answer then. A few steps forward from it, else a bisection on the side it points to;
    the same answer whatever the hint."""
    n = len(values)
    if hint > n:
        hint = n
    if hint > 0 and values[hint - 1] >= x:
        return bisect_left(values, x, 0, hint - 1)
    for _ in range(4):
        if hint == n or values[hint] >= x:
            return hint
        hint += 1
    return bisect_left(values, x, hint)
