"""A ``SliceView`` of an ascending index list answers membership by bisection, as its tuple would."""

from __future__ import annotations

from bisect import bisect_left

from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.replay.openclaw_views import SliceView


@st.composite
def windows(draw: st.DrawFn) -> tuple[list[int], int, int]:
    items = sorted(draw(st.sets(st.integers(min_value=0, max_value=60), max_size=30)))
    start = draw(st.integers(min_value=0, max_value=len(items)))
    return items, start, draw(st.integers(min_value=start, max_value=len(items)))


@settings(max_examples=400, deadline=None)
@given(windows(), st.integers(min_value=-2, max_value=62))
def test_membership_is_the_tuples(window, value):
    items, start, stop = window
    view = SliceView(items, start, stop)
    assert (value in view) == (value in tuple(items[start:stop]))
    assert ("3" in view) is False


def test_a_bisection_blind_to_the_windows_end_is_caught():
    items, view = [1, 4, 9, 16], SliceView([1, 4, 9, 16], 1, 3)

    def unbounded(value: int) -> bool:
        at = bisect_left(items, value, 1)
        return at < len(items) and items[at] == value

    assert unbounded(16) and 16 not in view and 9 in view and 1 not in view
