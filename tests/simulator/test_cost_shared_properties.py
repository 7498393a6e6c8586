"""Requests that share one segment history price exactly as the same requests sent as plain tuples.

The reference here is the cache model written the straightforward way: every prefix of every request is
looked up by its fingerprints and every prefix a request sends is refreshed one by one, with no trie and
no resumed walk. Random sessions append, edit or drop messages in the middle, stop short, and pause past
the cache lifetime, for both kinds of caching (Hypothesis).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from itertools import accumulate

from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.cost.breakpoints import automatic_breakpoints, pi_breakpoints, zeroclaw_breakpoints
from simulator.cost.breaks import cache_breaks
from simulator.cost.cache import (
    ANTHROPIC_LOOKBACK_BLOCKS,
    CallCost,
    Request,
    Role,
    Segment,
    SegmentHistory,
    SharedPrefix,
    call_usd,
    extends,
    openai_cached,
    price_requests,
)
from simulator.cost.pricing import CacheTtl, Pricing, pricing_for

SONNET = pricing_for("anthropic/claude-sonnet-4-5").pricing
GPT = pricing_for("openai/gpt-5.5").pricing
# An OpenAI-style model that bills what it newly caches (as GPT-5.6 on does).
GPT_BILLED_WRITES = dataclasses.replace(GPT, key="openai/billed-writes", cache_write_multiplier=1.25)
GEMINI = pricing_for("google/gemini-2.5-flash").pricing
PRICINGS = [SONNET, GPT, GPT_BILLED_WRITES, GEMINI]
PLACES = [zeroclaw_breakpoints, pi_breakpoints, automatic_breakpoints]
ROLES: tuple[Role, ...] = ("user", "assistant", "tool")
NEVER = float("-inf")


def _keys(segments: Sequence[Segment]) -> tuple[list[tuple[str, ...]], list[int]]:
    fingerprints = [s.fingerprint for s in segments]
    keys = [tuple(fingerprints[: i + 1]) for i in range(len(fingerprints))]
    return keys, list(accumulate(s.tokens for s in segments))


def reference_prefix(requests: Sequence[Request], pricing: Pricing, ttl: CacheTtl) -> list[CallCost]:
    expires: dict[tuple[str, ...], float] = {}
    lifetime = pricing.ttl_seconds(ttl)
    minimum = pricing.min_cacheable_tokens

    def cacheable(tokens: int) -> int:
        if pricing.caching == "automatic":
            return openai_cached(tokens, minimum)
        return tokens if tokens >= minimum else 0

    out = []
    for request in requests:
        now = request.at_seconds
        keys, cum = _keys(request.segments)
        total = cum[-1] if cum else 0
        live = max((i for i, key in enumerate(keys) if expires.get(key, NEVER) > now), default=-1)
        read = cacheable(cum[live]) if live >= 0 else 0
        write = max(0, cacheable(total) - read) if pricing.write_multiplier(ttl) > 0 else 0
        for key in keys:
            expires[key] = now + lifetime
        uncached = total - read - write
        usd = call_usd(pricing, ttl, uncached=uncached, write=write, read=read, output=request.output_tokens)
        out.append(CallCost(uncached, write, read, request.output_tokens, usd))
    return out


def reference_breakpoints(requests: Sequence[Request], pricing: Pricing, ttl: CacheTtl) -> list[CallCost]:
    expires: dict[tuple[str, ...], float] = {}
    lifetime = pricing.ttl_seconds(ttl)
    out = []
    for request in requests:
        now = request.at_seconds
        keys, cum = _keys(request.segments)
        total = cum[-1] if cum else 0
        points = sorted({b for b in request.breakpoints if 0 <= b < len(keys)})
        read_at = -1
        for point in points:
            for j in range(point, max(-1, point - ANTHROPIC_LOOKBACK_BLOCKS), -1):
                if j > read_at and expires.get(keys[j], NEVER) > now:
                    read_at = j
                    break
        read = cum[read_at] if read_at >= 0 else 0
        eligible = [b for b in points if cum[b] >= pricing.min_cacheable_tokens]
        write = max(0, max((cum[b] for b in eligible), default=0) - read)
        for b in eligible:
            expires[keys[b]] = now + lifetime
        if read_at >= 0:
            expires[keys[read_at]] = now + lifetime
        uncached = total - read - write
        usd = call_usd(pricing, ttl, uncached=uncached, write=write, read=read, output=request.output_tokens)
        out.append(CallCost(uncached, write, read, request.output_tokens, usd))
    return out


def reference(requests: Sequence[Request], pricing: Pricing, ttl: CacheTtl) -> list[CallCost]:
    if pricing.caching == "breakpoints":
        return reference_breakpoints(requests, pricing, ttl)
    return reference_prefix(requests, pricing, ttl)


# One call: how many new messages, an optional edit or drop at a position (a fraction of the request),
# how many messages to stop short (a request that ends before the previous one's end), the gap.
step = st.tuples(
    st.integers(min_value=0, max_value=25),
    st.sampled_from(["none", "none", "none", "edit", "drop"]),
    st.floats(min_value=0, max_value=1),
    st.sampled_from([0, 0, 0, 0, 1, 3]),
    st.one_of(st.floats(min_value=0, max_value=299), st.floats(min_value=300, max_value=5000)),
)
sizes = st.integers(min_value=1, max_value=900)


@st.composite
def sessions(draw: st.DrawFn) -> list[tuple[list[Segment], float]]:
    """Requests as lists of segments, each with its time; mostly each extends the one before."""
    fresh = iter(range(10**6))

    def new() -> Segment:
        n = next(fresh)
        return Segment(f"m{n}", draw(sizes), ROLES[n % 3], cacheable_end=n % 5 != 0)

    system = Segment("system", draw(st.integers(min_value=0, max_value=5000)), "system")
    held: list[Segment] = [system]
    out: list[tuple[list[Segment], float]] = []
    at = 0.0
    for grow, change, where, short, gap in draw(st.lists(step, min_size=1, max_size=25)):
        held += [new() for _ in range(grow)]
        position = min(len(held) - 1, int(where * len(held)))
        if change == "edit" and len(held) > 1:
            edited = held[position]
            # The same fingerprint at another size is a change only the tuple comparison sees.
            tokens = edited.tokens if draw(st.booleans()) else edited.tokens + 1
            held[position] = Segment(f"{edited.fingerprint}'", tokens, edited.role, edited.cacheable_end)
        elif change == "drop" and len(held) > 1:
            del held[position]
        at += gap
        out.append((held[: max(1, len(held) - short)], at))
    return out


def _requests(session: list[tuple[list[Segment], float]], place, shared: bool) -> list[Request]:
    out = []
    previous: SharedPrefix | None = None
    for sent, at in session:
        segments: Sequence[Segment] = tuple(sent)
        if shared:
            segments = previous = extends(previous, sent)
        out.append(Request(segments, at, 7, place(segments)))
    return out


@settings(max_examples=300, deadline=None)
@given(sessions(), st.sampled_from(PRICINGS), st.sampled_from(PLACES), st.sampled_from(["5m", "1h"]))
def test_a_session_of_shared_histories_prices_as_plain_tuples_and_as_the_reference(
    session, pricing, place, ttl
):
    plain = _requests(session, place, shared=False)
    shared = _requests(session, place, shared=True)
    assert shared == plain
    expected = reference(plain, pricing, ttl)
    plain_cost = price_requests(plain, pricing, ttl)
    shared_cost = price_requests(shared, pricing, ttl)
    assert list(plain_cost.calls) == expected
    assert shared_cost == plain_cost
    assert [r.input_tokens for r in shared] == [r.input_tokens for r in plain]
    assert cache_breaks(shared, shared_cost) == cache_breaks(plain, plain_cost)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(sizes, min_size=1, max_size=80),
    st.lists(
        st.tuples(st.integers(min_value=0, max_value=80), st.floats(min_value=0, max_value=700)), max_size=30
    ),
    st.sampled_from(PRICINGS),
    st.sampled_from(PLACES),
)
def test_prefixes_of_one_transcript_in_any_order_price_as_plain_tuples(tokens, calls, pricing, place):
    history = SegmentHistory(Segment(f"m{i}", t, ROLES[i % 3], i % 4 != 0) for i, t in enumerate(tokens))
    at = 0.0
    shared: list[Request] = []
    for length, gap in calls:
        at += gap
        prefix = history.prefix(min(length, len(history)))
        shared.append(Request(prefix, at, 3, place(prefix) if len(prefix) else ()))
    plain = [dataclasses.replace(r, segments=tuple(r.segments)) for r in shared]
    plain_cost = price_requests(plain, pricing)
    assert list(plain_cost.calls) == reference(plain, pricing, "5m")
    assert price_requests(shared, pricing) == plain_cost
    assert cache_breaks(shared, plain_cost) == cache_breaks(plain, plain_cost)


def test_a_shared_prefix_reads_like_the_tuple_it_stands_for():
    segments = [Segment(f"m{i}", i + 1) for i in range(5)]
    history = SegmentHistory(segments[:3])
    first = history.prefix(3)
    longer = extends(first, segments)
    assert longer.history is history and len(history) == 5
    assert first == tuple(segments[:3]) and tuple(segments[:3]) == first
    assert longer[1:4] == tuple(segments[1:4]) and longer[-1] == segments[4]
    assert first.tokens == 6 and longer.tokens == 15
    assert hash(first) == hash(tuple(segments[:3]))
    # A request that does not extend the history to its end starts a new one.
    other = extends(first, [segments[0], Segment("x", 9)])
    assert other.history is not history and other.tokens == 10
