"""Anthropic pricing of requests without a breakpoint, and the lookback's search, against their references.

* a request with no breakpoint is priced from its token sums without a trie walk: sessions that mix such
  requests with marked ones (grown, trimmed at the start, edited or dropped in the middle, pruned as
  ropes; as tuples, shared prefixes and ropes) price as the reference cache model and as the trie walking
  every request (``walk_every``), Hypothesis;
* the lookback's search for a live entry (one set intersection over the window) against the loop over
  the window's positions it replaced, Hypothesis;
* a broken total and a broken lookback are both told apart by the reference.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.cost import cache
from simulator.cost.breakpoints import pi_breakpoints, zeroclaw_breakpoints
from simulator.cost.cache import (
    ANTHROPIC_LOOKBACK_BLOCKS,
    CallCost,
    Request,
    Segment,
    SharedPrefix,
    _latest_live,
    _price_breakpoints,
    extends,
    price_requests,
)
from simulator.cost.pricing import pricing_for
from simulator.cost.rope import SegmentRope
from tests.simulator.test_cost_rope import alternating
from tests.simulator.test_cost_shared_properties import SONNET, reference, sessions

Place = Callable[[Sequence[Segment]], tuple[int, ...]]
HAIKU = pricing_for("anthropic/claude-haiku-4-5").pricing
ANTHROPIC = [SONNET, HAIKU]
PLACES = [zeroclaw_breakpoints, pi_breakpoints]


def _marked(segments: Sequence[Segment], place: Place, keep: bool) -> tuple[int, ...]:
    return place(segments) if keep and len(segments) else ()


def _as_shared(
    session: list[tuple[list[Segment], float]], place: Place, keeps: list[bool]
) -> tuple[list[Request], list[Request]]:
    """The session's requests as shared prefixes and as tuples, each call's breakpoints kept or dropped."""
    shared, plain = [], []
    previous: SharedPrefix | None = None
    for i, (sent, at) in enumerate(session):
        keep = keeps[i % len(keeps)]
        previous = extends(previous, sent)
        shared.append(Request(previous, at, 7, _marked(previous, place, keep)))
        plain.append(Request(tuple(sent), at, 7, _marked(sent, place, keep)))
    return shared, plain


def _check(requests: Sequence[Request], plain: Sequence[Request], pricing: cache.Pricing, ttl) -> None:
    expected = reference(plain, pricing, ttl)
    cost = price_requests(requests, pricing, ttl)
    assert list(cost.calls) == expected
    assert _price_breakpoints(requests, pricing, ttl, walk_every=True) == cost.calls
    assert price_requests(plain, pricing, ttl) == cost


@settings(max_examples=300, deadline=None)
@given(
    sessions(),
    st.lists(st.booleans(), min_size=1, max_size=7),
    st.sampled_from(ANTHROPIC),
    st.sampled_from(PLACES),
    st.sampled_from(["5m", "1h"]),
)
def test_calls_without_breakpoints_price_as_the_reference(session, keeps, pricing, place, ttl):
    shared, plain = _as_shared(session, place, keeps)
    _check(shared, plain, pricing, ttl)


@st.composite
def trimmed(draw: st.DrawFn) -> list[tuple[list[Segment], float]]:
    """A session trimmed at the start at most calls: the system message, then the newest ``window``."""
    system = Segment("system", draw(st.integers(min_value=0, max_value=3000)), "system")
    held: list[Segment] = []
    out: list[tuple[list[Segment], float]] = []
    at = 0.0
    for grow, window, gap in draw(
        st.lists(
            st.tuples(
                st.integers(min_value=0, max_value=4),
                st.integers(min_value=1, max_value=40),
                st.sampled_from([5.0, 30.0, 200.0, 400.0]),
            ),
            min_size=1,
            max_size=40,
        )
    ):
        for _ in range(grow):
            held.append(Segment(f"m{len(held)}", 50 + len(held) % 400, ("user", "tool")[len(held) % 2]))
        at += gap
        out.append(([system, *held[-window:]] if held else [system], at))
    return out


@settings(max_examples=300, deadline=None)
@given(
    trimmed(),
    st.lists(st.booleans(), min_size=1, max_size=5),
    st.sampled_from(ANTHROPIC),
    st.sampled_from(PLACES),
    st.sampled_from(["5m", "1h"]),
)
def test_a_session_trimmed_at_every_call_prices_as_the_reference(session, keeps, pricing, place, ttl):
    shared, plain = _as_shared(session, place, keeps)
    _check(shared, plain, pricing, ttl)


@settings(max_examples=300, deadline=None)
@given(
    alternating(),
    st.lists(st.booleans(), min_size=1, max_size=5),
    st.sampled_from(ANTHROPIC),
    st.sampled_from(PLACES),
    st.sampled_from(["5m", "1h"]),
)
def test_pruned_calls_as_ropes_without_breakpoints_price_as_the_reference(
    session, keeps, pricing, place, ttl
):
    mixed: list[Request] = []
    previous: SharedPrefix | None = None
    for i, (sent, rope, at) in enumerate(session):
        keep = keeps[i % len(keeps)]
        if rope is not None:
            mixed.append(Request(rope, at, 5, _marked(rope, place, keep)))
            previous = None
        else:
            previous = extends(previous, sent)
            mixed.append(Request(previous, at, 5, _marked(previous, place, keep)))
    plain = [dataclasses.replace(r, segments=tuple(r.segments)) for r in mixed]
    _check(mixed, plain, pricing, "5m" if keeps[0] else "1h")


def _looped(chain: list[int], lo: int, hi: int, expires: dict[int, float], now: float) -> int:
    """The lookback as it was written: position by position from ``hi`` down to ``lo``."""
    for j in range(hi, lo - 1, -1):
        if expires.get(chain[j], float("-inf")) > now:
            return j
    return -1


@settings(max_examples=500, deadline=None)
@given(st.data())
def test_the_latest_live_position_is_the_one_the_loop_finds(data):
    n = data.draw(st.integers(min_value=1, max_value=60))
    chain = data.draw(st.lists(st.integers(min_value=0, max_value=200), min_size=n, max_size=n, unique=True))
    expires = data.draw(
        st.dictionaries(st.integers(min_value=0, max_value=200), st.sampled_from([1.0, 5.0, 9.0]))
    )
    hi = data.draw(st.integers(min_value=0, max_value=n - 1))
    lo = data.draw(st.integers(min_value=max(0, hi - ANTHROPIC_LOOKBACK_BLOCKS), max_value=hi + 1))
    now = data.draw(st.sampled_from([0.0, 1.0, 5.0, 9.0]))
    assert _latest_live(chain, lo, hi, expires, now) == _looped(chain, lo, hi, expires, now)


def _fixed_session() -> tuple[list[Request], list[Request]]:
    """Calls that read back from their breakpoint, one of them unmarked in the middle."""
    system = Segment("system", 2000, "system")
    held = [Segment(f"m{i}", 300, ("user", "tool")[i % 2]) for i in range(30)]
    sent = [([system, *held[:k]], 10.0 * k) for k in (4, 6, 8, 10, 12, 14)]
    # The last call sends less than the one before and finds its entry only by looking back.
    sent.append(([system, *held[:13]], 200.0))
    shared, plain = _as_shared(sent, pi_breakpoints, [True, True, False, True])
    return shared, plain


def test_the_fixed_session_prices_as_the_reference():
    shared, plain = _fixed_session()
    assert any(not r.breakpoints for r in shared)
    _check(shared, plain, SONNET, "5m")


def test_a_broken_total_of_an_unmarked_call_is_noticed(monkeypatch: pytest.MonkeyPatch):
    shared, plain = _fixed_session()
    of = cache._PrefixTokens.of

    def one_short(self: cache._PrefixTokens, segments: Sequence[Segment], length: int) -> int:
        return of(self, segments, max(0, length - 1))

    monkeypatch.setattr(cache._PrefixTokens, "of", one_short)
    assert list(price_requests(shared, SONNET).calls) != reference(plain, SONNET, "5m")


def test_a_lookback_that_looks_only_at_the_breakpoint_is_noticed(monkeypatch: pytest.MonkeyPatch):
    shared, plain = _fixed_session()

    def at_the_point(chain: list[int], lo: int, hi: int, expires: dict[int, float], now: float) -> int:
        return _looped(chain, hi, hi, expires, now)

    monkeypatch.setattr(cache, "_latest_live", at_the_point)
    calls: list[CallCost] = list(price_requests(shared, SONNET).calls)
    assert calls != reference(plain, SONNET, "5m")


def test_a_rope_without_breakpoints_is_priced_at_its_whole_size():
    stored = [Segment(f"m{i}", 10 + i) for i in range(50)]
    changed = [Segment("cleared", 1, "tool")]
    rope = SegmentRope([(stored, 0, 20), (changed, 0, 1), (stored, 21, 50)])
    (call,) = price_requests([Request(rope, 0.0, 3)], SONNET).calls
    assert call.input_tokens == sum(s.tokens for s in rope) and call.cache_read_tokens == 0


def test_a_lookback_that_stops_after_its_newest_lookups_is_noticed(monkeypatch: pytest.MonkeyPatch):
    # The live entry sits deeper in the window than the positions looked up one by one.
    chain = list(range(30))
    expires = {chain[5]: 9.0, chain[28]: 1.0}
    assert _latest_live(chain, 0, 25, expires, 5.0) == _looped(chain, 0, 25, expires, 5.0) == 5
    monkeypatch.setattr(cache, "_NEAR_LOOKUPS", ANTHROPIC_LOOKBACK_BLOCKS + 1)
    assert cache._latest_live(chain, 0, 25, expires, 5.0) == 5  # all looked up: still found
    monkeypatch.setattr(cache, "_NEAR_LOOKUPS", 4)

    def near_only(chain: list[int], lo: int, hi: int, expires: dict[int, float], now: float) -> int:
        return _looped(chain, max(lo, hi - cache._NEAR_LOOKUPS + 1), hi, expires, now)

    assert near_only(chain, 0, 25, expires, 5.0) != _looped(chain, 0, 25, expires, 5.0)
    shared, plain = _fixed_session()
    monkeypatch.setattr(cache, "_latest_live", near_only)
    assert list(price_requests(shared, SONNET).calls) != reference(plain, SONNET, "5m")
