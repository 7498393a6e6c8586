"""The replay's Fenwick sums answer every prefix and range as a plain sum over a list does."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from simulator.replay.openclaw_views import Fenwick

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
