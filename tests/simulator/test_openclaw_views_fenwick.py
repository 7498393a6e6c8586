"""The replay's Fenwick sums answer every prefix and range as a plain sum over a list does: adds anywhere,
and adds mostly in position order (a replay's cleanups and strips), which go to the ascending tail."""

from __future__ import annotations

from bisect import bisect_left

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulator.replay.openclaw_stores import Fenwick, left_from

_SIZE = 40


@given(
    st.lists(st.tuples(st.integers(0, _SIZE - 1), st.integers(-50, 50)), max_size=30),
    st.lists(st.tuples(st.integers(0, _SIZE + 5), st.integers(0, _SIZE + 5)), min_size=1, max_size=10),
)
def test_every_prefix_and_range_equals_the_plain_sum(
    adds: list[tuple[int, int]], asks: list[tuple[int, int]]
) -> None:
    sums = Fenwick(_SIZE)
    plain = [0] * _SIZE
    for k, (index, delta) in enumerate(adds):
        sums.add(index, delta)
        plain[index] += delta
        # Asked between adds too: the total kept for the asks past every position added to must follow.
        lo, hi = asks[k % len(asks)]
        assert sums.prefix(hi) == sum(plain[:hi])
        assert sums.range(lo, hi) == (sum(plain[lo:hi]) if hi > lo else 0)
    for lo, hi in asks:
        assert sums.prefix(hi) == sum(plain[:hi])
        assert sums.range(lo, hi) == (sum(plain[lo:hi]) if hi > lo else 0)


def _ascending(steps: list[tuple[int, int, bool]]) -> list[tuple[int, int]]:
    """Adds that mostly move forward (``back``: now and then to an earlier position, as a rewrite does)."""
    adds: list[tuple[int, int]] = []
    position = 0
    for gap, delta, back in steps:
        at = max(0, position - gap - 1) if back else min(_SIZE - 1, position + gap)
        position = max(position, at)
        adds.append((at, delta))
    return adds


_STEPS = st.lists(st.tuples(st.integers(0, 3), st.integers(-50, 50), st.integers(0, 4).map(lambda v: v == 2)))
_ASKS = st.lists(st.tuples(st.integers(0, _SIZE + 5), st.integers(0, _SIZE + 5)), min_size=1, max_size=10)


def _check(sums: Fenwick, adds: list[tuple[int, int]], asks: list[tuple[int, int]]) -> None:
    plain = [0] * _SIZE
    for k, (index, delta) in enumerate(adds):
        sums.add(index, delta)
        plain[index] += delta
        lo, hi = asks[k % len(asks)]
        assert sums.prefix(hi) == sum(plain[:hi])
        assert sums.range(lo, hi) == (sum(plain[lo:hi]) if hi > lo else 0)
    for lo, hi in asks:
        assert sums.prefix(hi) == sum(plain[:hi])
        assert sums.range(lo, hi) == (sum(plain[lo:hi]) if hi > lo else 0)


@given(_STEPS, _ASKS)
def test_adds_mostly_in_position_order_sum_as_the_plain_sum(
    steps: list[tuple[int, int, bool]], asks: list[tuple[int, int]]
) -> None:
    _check(Fenwick(_SIZE), _ascending(steps), asks)


class _TreeOnly(Fenwick):
    """A broken sum: the ascending tail is left out of the prefixes below the top."""

    __slots__ = ()

    def prefix(self, end: int) -> int:
        if end >= self._top:
            return self._total
        total, i = 0, end
        while i > 0:
            total += self._tree[i]
            i -= i & -i
        return total


@pytest.mark.python_only  # subclasses Fenwick: a compiled class takes no Python subclass
def test_sums_blind_to_the_ascending_tail_are_noticed() -> None:
    with pytest.raises(AssertionError):
        _check(_TreeOnly(_SIZE), [(2, 5), (7, 1), (3, 4)], [(0, 5)])
    _check(Fenwick(_SIZE), [(2, 5), (7, 1), (3, 4)], [(0, 5)])


class _WholeFromStart(Fenwick):
    """A broken range: every range from the start taken for the whole total (its end not looked at)."""

    __slots__ = ()

    def range(self, lo: int, hi: int) -> int:
        if hi > lo and lo <= 0:
            return self._total
        return super().range(lo, hi)


@pytest.mark.python_only  # subclasses Fenwick: a compiled class takes no Python subclass
def test_a_range_from_the_start_that_ignores_its_end_is_noticed() -> None:
    with pytest.raises(AssertionError):
        _check(_WholeFromStart(_SIZE), [(2, 5), (7, 1)], [(0, 5)])
    _check(Fenwick(_SIZE), [(2, 5), (7, 1)], [(0, 5), (0, 8), (0, 45)])


@given(
    st.lists(st.integers(0, 60), max_size=40).map(sorted),
    st.lists(st.tuples(st.integers(-5, 70), st.integers(0, 50)), min_size=1, max_size=12),
)
def test_a_bisection_from_a_hint_is_the_bisection_whatever_the_hint(
    values: list[int], asks: list[tuple[int, int]]
) -> None:
    """Equal values, hints before, at and past the answer or past the end, and the replay's own use: each
    ask hinted with the answer before."""
    last = 0
    for x, hint in asks:
        assert left_from(values, x, hint) == bisect_left(values, x)
        assert left_from(tuple(values), x, last) == bisect_left(values, x)
        last = bisect_left(values, x)
