"""The trie's walk of a request that grows the one before (``_Trie._grown``) against the general walk.

* sessions of shared histories that grow, are cut back, start again or go back to an older history, with
  tuples and ropes between them: the walks with the growth path give the node ids, running sums and kept
  length the general walk gives (``growth_path=False``), call by call, Hypothesis;
* a growth path that continues the newest run from any node is told apart by that comparison.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.cost import cache
from simulator.cost.cache import Segment, SegmentHistory, SharedPrefix, _Trie
from simulator.cost.rope import SegmentRope

ALPHABET = "abc"

steps = st.lists(
    st.tuples(
        st.sampled_from(["grow", "grow", "grow", "cut", "new", "older", "tuple", "rope"]),
        st.lists(st.sampled_from(ALPHABET), max_size=6),
        st.integers(min_value=0, max_value=8),
    ),
    min_size=1,
    max_size=40,
)


def _segments(fingerprints: Sequence[str]) -> list[Segment]:
    return [Segment(f, len(f) + ord(f[0]) % 3) for f in fingerprints]


def _requests(drawn: list[tuple[str, list[str], int]]) -> list[Sequence[Segment]]:
    """Requests as a session sends them: mostly its history grown, sometimes cut, new or an older one."""
    histories: list[SegmentHistory] = []
    previous: Sequence[Segment] | None = None
    out: list[Sequence[Segment]] = []
    for kind, fingerprints, cut in drawn:
        added = _segments(fingerprints)
        request: Sequence[Segment]
        if kind in ("grow", "cut") and isinstance(previous, SharedPrefix):
            history = previous.history
            if kind == "grow":
                history.extend(added)
                request = history.prefix(len(history))
            else:
                request = history.prefix(max(0, len(history) - cut))
        elif kind == "older" and histories:
            history = histories[cut % len(histories)]
            history.extend(added)
            request = history.prefix(len(history))
        elif kind == "tuple":
            request = tuple(added)
        elif kind == "rope" and isinstance(previous, SharedPrefix) and len(previous):
            stored = previous.history._segments
            at = cut % len(previous)
            request = SegmentRope([(stored, 0, at), (added or _segments("x"), 0, len(added) or 1)])
        else:
            history = SegmentHistory(added)
            histories.append(history)
            request = history.prefix(len(history))
        out.append(request)
        previous = request
    return out


def _walks(trie: _Trie, requests: list[Sequence[Segment]]) -> list[tuple[list[int], list[int], int]]:
    # The walk's lists are the trie's own and change at the next walk: copied as they stand.
    out = []
    for request in requests:
        chain, cum = trie.walk(request)
        out.append((list(chain), list(cum), trie.kept))
    return out


@settings(max_examples=400, deadline=None)
@given(steps)
def test_a_growing_walk_names_and_sums_as_the_general_walk(drawn: list[tuple[str, list[str], int]]):
    # Each trie walks its own copy: the requests' histories are extended as they are drawn.
    fast = _walks(_Trie(), _requests(drawn))
    general = _walks(_Trie(growth_path=False), _requests(drawn))
    assert fast == general


def _fixed() -> list[tuple[str, list[str], int]]:
    """A history grown, cut back and grown again: the request before ends inside a run, so the growth
    must follow that run rather than continue the newest one."""
    return [("new", list("ab"), 0), ("grow", list("c"), 0), ("cut", [], 1), ("grow", list("d"), 0)]


def test_the_fixed_session_walks_as_the_general_walk():
    assert _walks(_Trie(), _requests(_fixed())) == _walks(_Trie(growth_path=False), _requests(_fixed()))


def test_a_growth_that_continues_the_newest_run_from_any_node_is_noticed(monkeypatch: pytest.MonkeyPatch):
    def careless(self: _Trie, segments: Sequence[Segment], last: cache._Line) -> object:
        if type(segments) is not SharedPrefix or segments.history is not last.history:
            return None
        chain, cum = last.chain, last.cum
        shared, n = len(chain), segments.length
        if n < shared:
            return None
        self.kept = shared
        fps = [s.fingerprint for s in segments.history._segments[shared:n]]
        if fps:
            self._run_fps[-1] += fps  # wrong unless ``chain[-1]`` ends the newest run
            chain += range(self._next, self._next + len(fps))
            self._next += len(fps)
            cum += segments.history._cum[shared + 1 : n + 1]
        last.segments = segments
        return chain, cum

    monkeypatch.setattr(_Trie, "_grown", careless)
    assert _walks(_Trie(), _requests(_fixed())) != _walks(_Trie(growth_path=False), _requests(_fixed()))
