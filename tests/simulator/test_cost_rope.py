"""A request told as a rope (slices of longer lists) is the list it stands for, to the trie and the prices.

* :class:`SegmentRope` against the concatenated list: length, items, slices, iteration, equality, splices
  (Hypothesis, over pieces of a few shared lists);
* the trie's shared length of two ropes (pieces read alike skipped, the rest compared) against the common
  prefix of the lists, and node ids equal exactly when the prefixes are, with ropes and lists mixed;
* a session pruned now and then whose pruned calls are ropes over the stored history, priced against the
  reference cache model and against the same requests as tuples.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.cost.breakpoints import pi_breakpoints, zeroclaw_breakpoints
from simulator.cost.breaks import _first_difference, _first_difference_walk, cache_breaks
from simulator.cost.cache import (
    Request,
    Segment,
    SegmentHistory,
    SharedPrefix,
    _shared_length,
    _Trie,
    extends,
    price_requests,
)
from simulator.cost.rope import Piece, SegmentRope, pieces_of, spliced, spliced_each
from tests.simulator.test_cost_shared_properties import PRICINGS, reference


def _segments(fingerprints: str) -> list[Segment]:
    return [Segment(f, ord(f) % 7) for f in fingerprints]


SOURCES = (_segments("abcabcabca"), _segments("abcxbcab"), _segments("xyz"))


@st.composite
def ropes(draw: st.DrawFn) -> tuple[list[Piece], list[Segment]]:
    pieces: list[Piece] = []
    flat: list[Segment] = []
    for _ in range(draw(st.integers(min_value=0, max_value=5))):
        source = SOURCES[draw(st.integers(min_value=0, max_value=len(SOURCES) - 1))]
        lo = draw(st.integers(min_value=0, max_value=len(source)))
        hi = draw(st.integers(min_value=lo, max_value=len(source)))
        pieces.append((source, lo, hi))
        flat += source[lo:hi]
    return pieces, flat


@settings(max_examples=400, deadline=None)
@given(ropes(), st.data())
def test_a_rope_is_the_list_it_stands_for(drawn, data):
    pieces, flat = drawn
    rope = SegmentRope(pieces)
    assert len(rope) == len(flat)
    assert list(rope) == flat
    assert rope == flat and rope == tuple(flat) and tuple(flat) == rope
    assert hash(rope) == hash(tuple(flat))
    for i in range(-len(flat), len(flat)):
        assert rope[i] == flat[i]
    start = data.draw(st.integers(min_value=-2, max_value=len(flat) + 2))
    stop = data.draw(st.integers(min_value=-2, max_value=len(flat) + 2))
    step = data.draw(st.sampled_from([None, 1, 2, -1]))
    assert rope[start:stop:step] == tuple(flat[start:stop:step])
    if 0 <= start <= len(flat) and 0 <= stop <= len(flat):
        assert rope.listed(start, stop) == flat[start:stop]
    length = data.draw(st.integers(min_value=0, max_value=len(flat)))
    assert list(SegmentRope(pieces_of(rope, length))) == flat[:length]
    if flat:
        assert rope != flat[:-1]


@settings(max_examples=400, deadline=None)
@given(ropes(), st.data())
def test_a_splice_replaces_or_inserts_as_on_the_list(drawn, data):
    pieces, flat = drawn
    position = data.draw(st.integers(min_value=0, max_value=len(flat)))
    replaced = data.draw(st.integers(min_value=0, max_value=len(flat) - position))
    items = tuple(Segment(f"new{i}", i) for i in range(data.draw(st.integers(min_value=0, max_value=2))))
    expected = flat[:position] + list(items) + flat[position + replaced :]
    assert list(SegmentRope(spliced(pieces, position, items, replaced))) == expected


@settings(max_examples=400, deadline=None)
@given(ropes(), ropes(), st.booleans())
def test_the_shared_length_of_ropes_is_the_common_prefix_of_their_lists(a, b, shared_start):
    (pieces_a, flat_a), (pieces_b, flat_b) = a, b
    if shared_start:
        # Both read one list alike first: skipped without a comparison, then compared.
        pieces_b = [(SOURCES[0], 0, 6), *pieces_b]
        flat_b = SOURCES[0][:6] + flat_b
        pieces_a = [(SOURCES[0], 0, 4), *pieces_a]
        flat_a = SOURCES[0][:4] + flat_a
    expected = 0
    while expected < min(len(flat_a), len(flat_b)) and flat_a[expected] == flat_b[expected]:
        expected += 1
    rope_a, rope_b = SegmentRope(pieces_a), SegmentRope(pieces_b)
    assert _shared_length(rope_a, rope_b) == expected
    assert _shared_length(rope_a, tuple(flat_b)) == expected
    assert _shared_length(list(flat_a), rope_b) == expected


requests = st.lists(st.tuples(ropes(), st.booleans()), min_size=1, max_size=25)


@settings(max_examples=300, deadline=None)
@given(requests)
def test_node_ids_are_equal_exactly_when_the_prefixes_are_with_ropes(drawn):
    trie = _Trie()
    names: dict[tuple[str, ...], int] = {}
    for (pieces, flat), as_rope in drawn:
        chain, cum = trie.walk(SegmentRope(pieces) if as_rope else tuple(flat))
        assert len(chain) == len(cum) == len(flat)
        for i, node in enumerate(chain):
            prefix = tuple(s.fingerprint for s in flat[: i + 1])
            assert names.setdefault(prefix, node) == node, prefix
            assert cum[i] == sum(s.tokens for s in flat[: i + 1])
    assert len(set(names.values())) == len(names)


# A session pruned now and then: each call sends the stored history (grown), or a rope over it with the
# oldest results cleared up to a frontier that mostly moves on (one run, as OpenClaw's) and a few trimmed.
call_steps = st.tuples(
    st.integers(min_value=0, max_value=12),
    st.booleans(),
    st.lists(st.floats(min_value=0, max_value=1), max_size=3),
    st.one_of(st.floats(min_value=0, max_value=299), st.floats(min_value=300, max_value=5000)),
)


@st.composite
def alternating(draw: st.DrawFn) -> list[tuple[list[Segment], SegmentRope | None, float]]:
    held = [Segment("system", draw(st.integers(min_value=0, max_value=3000)), "system")]
    cleared_run = list(held)
    """The stored history with every cleared message as sent: a prefix of it is fixed once cleared."""
    cleared = Segment("cleared", 3, "tool")
    out: list[tuple[list[Segment], SegmentRope | None, float]] = []
    at = frontier = 0.0
    for grow, prune, where, gap in draw(st.lists(call_steps, min_size=1, max_size=30)):
        for _ in range(grow):
            tokens = draw(st.integers(min_value=1, max_value=700))
            segment = Segment(f"m{len(held)}", tokens, ("user", "tool")[len(held) % 2])
            held.append(segment)
            cleared_run.append(segment)
        rope = None
        if prune and len(held) > 1:
            frontier = max(frontier, draw(st.floats(min_value=0, max_value=1)))
            end = max(1, int(frontier * len(held)))
            for i in range(1, end):
                if i % 2 == 0:
                    cleared_run[i] = cleared
            pieces: list[Piece] = [(held, 0, 1), (cleared_run, 1, end), (held, end, len(held))]
            for w in where:
                position = min(len(held) - 1, 1 + int(w * (len(held) - 1)))
                pieces = spliced(pieces, position, (Segment("trimmed", 2, "tool"),), 1)
            rope = SegmentRope(pieces)
        at += gap
        out.append((list(rope) if rope is not None else list(held), rope, at))
    return out


@settings(max_examples=300, deadline=None)
@given(
    alternating(),
    st.sampled_from(PRICINGS),
    st.sampled_from([pi_breakpoints, zeroclaw_breakpoints]),
    st.sampled_from(["5m", "1h"]),
)
def test_a_session_pruned_now_and_then_as_ropes_prices_as_the_reference(session, pricing, place, ttl):
    mixed: list[Request] = []
    previous: SharedPrefix | None = None
    for sent, rope, at in session:
        if rope is not None:
            mixed.append(Request(rope, at, 5, place(rope)))
            previous = None
        else:
            previous = extends(previous, sent)
            mixed.append(Request(previous, at, 5, place(previous)))
    plain = [dataclasses.replace(r, segments=tuple(r.segments)) for r in mixed]
    assert [r.breakpoints for r in plain] == [place(r.segments) for r in plain]
    expected = reference(plain, pricing, ttl)
    cost = price_requests(mixed, pricing, ttl)
    assert list(cost.calls) == expected
    assert price_requests(plain, pricing, ttl) == cost
    assert cache_breaks(mixed, cost) == cache_breaks(plain, cost)


# Segments alike in fingerprint but told apart in size, role or end (what the cache keys on is the
# fingerprint): the trie and the prefix model key on it as the reference does.
twins = st.builds(
    Segment,
    st.sampled_from("ab"),
    st.sampled_from([0, 700, 1400, 2100]),  # past every model's minimum cacheable prefix
    st.sampled_from(["user", "tool"]),
    st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.lists(twins, max_size=8), st.floats(min_value=0, max_value=400)), max_size=12),
    st.sampled_from(PRICINGS),
    st.sampled_from(["5m", "1h"]),
)
def test_segments_alike_in_fingerprint_price_as_the_reference(drawn, pricing, ttl):
    at = 0.0
    requests = []
    for segments, gap in drawn:
        at += gap
        rope = SegmentRope([(segments, 0, len(segments))])
        requests.append(Request(rope, at, 1, tuple(range(0, len(segments), 2))))
    plain = [dataclasses.replace(r, segments=tuple(r.segments)) for r in requests]
    expected = reference(plain, pricing, ttl)
    assert list(price_requests(requests, pricing, ttl).calls) == expected
    assert list(price_requests(plain, pricing, ttl).calls) == expected


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=0, max_value=6),
    st.integers(min_value=0, max_value=6),
    st.integers(min_value=-8, max_value=8),
    st.integers(min_value=-8, max_value=8),
    st.sampled_from([None, 1, 2, -1, -2]),
)
def test_a_slice_of_a_rope_or_a_shared_prefix_is_the_slice_of_the_list(extra, length, start, stop, step):
    """Stepped slices too, backwards included: a stop of -1 once read "the last" instead of "before the
    start" (``rope[0:-2:-1]`` on one segment gave nothing)."""
    flat = [Segment(str(i), i) for i in range(length)]
    rope = SegmentRope([(flat, 0, length)]) if length else SegmentRope([])
    prefix = SegmentHistory([*flat, *(Segment(f"x{i}", 1) for i in range(extra))]).prefix(length)
    assert rope[start:stop:step] == tuple(flat[start:stop:step])
    assert prefix[start:stop:step] == tuple(flat[start:stop:step])


def test_one_segment_read_backwards_from_its_start():
    flat = [Segment("a", 1)]
    assert SegmentRope([(flat, 0, 1)])[0:-2:-1] == (flat[0],)
    assert SegmentHistory(flat).prefix(1)[::-1] == (flat[0],)


def _one_at_a_time(pieces: list[Piece], replacements: list[tuple[int, Segment]]) -> list[Piece]:
    for position, item in replacements:
        pieces = spliced(pieces, position, [item], 1)
    return pieces


@st.composite
def replaced(draw: st.DrawFn) -> tuple[list[Piece], list[Segment], list[tuple[int, Segment]]]:
    pieces, flat = draw(ropes())
    positions = sorted(draw(st.sets(st.integers(min_value=0, max_value=max(0, len(flat) - 1)))))
    return pieces, flat, [(p, Segment(f"new{p}", p % 5)) for p in positions if p < len(flat)]


@settings(max_examples=400, deadline=None)
@given(replaced())
def test_replacing_in_one_pass_is_splicing_one_at_a_time(drawn):
    pieces, flat, replacements = drawn
    expected = list(flat)
    for position, item in replacements:
        expected[position] = item
    assert list(SegmentRope(spliced_each(pieces, replacements))) == expected
    assert SegmentRope(spliced_each(pieces, replacements)) == SegmentRope(
        _one_at_a_time(pieces, replacements)
    )


def test_a_pass_that_places_each_replacement_one_late_is_caught():
    pieces: list[Piece] = [(SOURCES[0], 0, 4), (SOURCES[1], 2, 6)]
    replacements = [(1, Segment("new1", 1)), (4, Segment("new4", 4))]

    def late(pieces, replacements):
        return spliced_each(pieces, [(p + 1, item) for p, item in replacements])

    assert SegmentRope(late(pieces, replacements)) != SegmentRope(_one_at_a_time(pieces, replacements))
    assert SegmentRope(spliced_each(pieces, replacements)) == SegmentRope(
        _one_at_a_time(pieces, replacements)
    )


def test_a_replacement_past_the_end_is_refused():
    with pytest.raises(IndexError):
        spliced_each([(SOURCES[2], 0, 3)], [(3, Segment("new", 1))])


ALIKE = [Segment("a", 1), Segment("a", 9), Segment("b", 1), Segment("a", 1)]
"""Segments of one fingerprint that differ in their tokens: unequal, yet the same message to the breaks."""


@st.composite
def requests_of(draw: st.DrawFn) -> Request:
    pieces: list[Piece] = []
    for _ in range(draw(st.integers(min_value=0, max_value=5))):
        source = draw(st.sampled_from([*SOURCES, ALIKE]))
        lo = draw(st.integers(min_value=0, max_value=len(source)))
        pieces.append((source, lo, draw(st.integers(min_value=lo, max_value=len(source)))))
    rope = SegmentRope(pieces)
    segments = rope if draw(st.booleans()) else list(rope)
    return Request(segments=segments, at_seconds=0.0, output_tokens=1, breakpoints=())


@settings(max_examples=600, deadline=None)
@given(requests_of(), requests_of())
def test_the_first_difference_past_the_shared_pieces_is_the_walks(before, now):
    assert _first_difference(before, now) == _first_difference_walk(before, now)
    assert _first_difference(before, before) is None


def test_a_first_difference_that_trusts_unequal_segments_is_caught():
    """Segments of one fingerprint but unequal (their tokens) end the shared prefix yet are the same message:
    taken as the difference, the break would name the wrong message."""
    before = Request(
        segments=SegmentRope([(ALIKE, 0, 1), (SOURCES[0], 0, 4)]),
        at_seconds=0.0,
        output_tokens=1,
        breakpoints=(),
    )
    now = Request(
        segments=SegmentRope([(ALIKE, 1, 2), (SOURCES[1], 0, 4)]),
        at_seconds=0.0,
        output_tokens=1,
        breakpoints=(),
    )
    assert _first_difference_walk(before, now) == 4  # a·abca against a·abcx
    assert _first_difference(before, now) == 4
    assert _shared_length(before.segments, now.segments) == 0  # what a broken variant would answer
