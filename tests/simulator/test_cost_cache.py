"""The cache model on known values from the providers' published examples, and its edge rules."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulator.cost.breaks import cache_breaks
from simulator.cost.cache import (
    Request,
    Role,
    Segment,
    _Prices,
    call_usd,
    openai_cached,
    price_requests,
)
from simulator.cost.pricing import pricing_for

SONNET = pricing_for("anthropic/claude-sonnet-4-5").pricing


def _seg(name: str, tokens: int, role: Role = "user") -> Segment:
    return Segment(name, tokens, role)


def test_anthropic_book_example_writes_188086_tokens_then_reads_them():
    # Anthropic prompt-caching page: a system prompt holding "Pride and Prejudice" with a breakpoint;
    # usage {"cache_creation_input_tokens":188086,"cache_read_input_tokens":0,"input_tokens":21,
    # "output_tokens":393} on the first call and the reverse on the second.
    segments = (_seg("book", 188_086, "system"), _seg("question", 21))
    calls = [Request(segments, at, 393, breakpoints=(0,)) for at in (0.0, 10.0)]
    first, second = price_requests(calls, SONNET).calls
    assert (first.cache_write_tokens, first.cache_read_tokens, first.input_tokens) == (188_086, 0, 21)
    assert (second.cache_write_tokens, second.cache_read_tokens, second.input_tokens) == (0, 188_086, 21)
    assert first.usd == pytest.approx((188_086 * 3.75 + 21 * 3 + 393 * 15) / 1e6)
    assert second.usd == pytest.approx((188_086 * 0.30 + 21 * 3 + 393 * 15) / 1e6)


def test_openai_caches_from_1024_tokens_in_128_token_steps():
    # OpenAI prompt-caching guide: "prompt_tokens": 2006 with "cached_tokens": 1920 on a repeat.
    assert openai_cached(2006) == 1920
    assert openai_cached(1023) == 0
    assert openai_cached(1024) == 1024
    assert openai_cached(1151) == 1024
    assert openai_cached(1152) == 1152


def test_openai_repeat_reads_the_stepped_prefix_and_writes_nothing():
    gpt = pricing_for("openai/gpt-5.5").pricing
    segments = (_seg("system", 1500, "system"), _seg("user", 506))
    first, second = price_requests([Request(segments, 0, 10), Request(segments, 5, 10)], gpt).calls
    assert (first.cache_read_tokens, first.cache_write_tokens, first.input_tokens) == (0, 0, 2006)
    assert (second.cache_read_tokens, second.input_tokens) == (1920, 86)
    assert second.usd == pytest.approx((86 * 5 + 1920 * 0.5 + 10 * 30) / 1e6)


def test_an_openai_model_that_bills_writes_pays_for_what_it_newly_caches():
    # OpenAI's prompt-caching guide: models from GPT-5.6 on bill cache writes at 1.25x input. The table
    # lists no GPT-5.6 price (none published where it could be checked), so the rule is tested on a copy.
    gpt56 = replace(pricing_for("openai/gpt-5.5").pricing, cache_write_multiplier=1.25)
    segments = (_seg("system", 1500, "system"), _seg("user", 506))
    first = price_requests([Request(segments, 0, 0)], gpt56).calls[0]
    assert (first.cache_write_tokens, first.input_tokens) == (1920, 86)


def test_gemini_implicit_cache_needs_2048_tokens_before_it_reads():
    flash = pricing_for("google/gemini-2.5-flash").pricing
    short = (_seg("a", 2000),)
    long = (_seg("a", 2000), _seg("b", 100))
    calls = price_requests(
        [Request(short, 0, 0), Request(short, 1, 0), Request(long, 2, 0), Request(long, 3, 0)], flash
    ).calls
    assert [c.cache_read_tokens for c in calls] == [0, 0, 0, 2100]


def test_an_expired_cache_is_written_again_and_a_one_hour_cache_survives_ten_minutes():
    segments = (_seg("system", 5000, "system"), _seg("user", 100))
    calls = [Request(segments, at, 0, breakpoints=(1,)) for at in (0.0, 600.0)]
    five = price_requests(calls, SONNET, "5m").calls
    hour = price_requests(calls, SONNET, "1h").calls
    assert five[1].cache_write_tokens == 5100 and five[1].cache_read_tokens == 0
    assert hour[1].cache_read_tokens == 5100 and hour[1].cache_write_tokens == 0
    assert hour[0].usd == pytest.approx(5100 * 3 * 2.0 / 1e6)


def test_reading_refreshes_the_lifetime_so_a_steady_conversation_never_goes_cold():
    segments = (_seg("system", 5000, "system"),)
    calls = [Request(segments, 240.0 * n, 0, breakpoints=(0,)) for n in range(5)]
    costs = price_requests(calls, SONNET).calls
    assert [c.cache_read_tokens for c in costs] == [0, 5000, 5000, 5000, 5000]


def test_a_prefix_below_the_model_minimum_is_never_cached():
    haiku = pricing_for("anthropic/claude-haiku-4-5").pricing  # 4,096 minimum
    segments = (_seg("system", 3000, "system"),)
    costs = price_requests([Request(segments, 0, 0, (0,)), Request(segments, 1, 0, (0,))], haiku).calls
    assert [(c.cache_write_tokens, c.cache_read_tokens, c.input_tokens) for c in costs] == [(0, 0, 3000)] * 2


def test_anthropic_misses_a_cache_entry_more_than_20_blocks_behind_the_breakpoint():
    base = [_seg("system", 2000, "system")] + [_seg(f"m{i}", 10) for i in range(3)]
    grown_19 = base + [_seg(f"n{i}", 10) for i in range(19)]
    grown_21 = base + [_seg(f"n{i}", 10) for i in range(21)]
    last = len(base) - 1
    near = price_requests(
        [Request(tuple(base), 0, 0, (last,)), Request(tuple(grown_19), 1, 0, (len(grown_19) - 1,))], SONNET
    ).calls[1]
    far = price_requests(
        [Request(tuple(base), 0, 0, (last,)), Request(tuple(grown_21), 1, 0, (len(grown_21) - 1,))], SONNET
    ).calls[1]
    assert near.cache_read_tokens == 2030
    assert far.cache_read_tokens == 0 and far.cache_write_tokens == 2000 + 10 * 24


def test_a_changed_early_message_ends_the_cached_prefix_there():
    system, a, b, c = _seg("s", 3000, "system"), _seg("a", 500), _seg("b", 500), _seg("c", 500)
    trimmed_b = _seg("b-trimmed", 50)
    calls = [
        Request((system, a, b), 0, 0, (0, 2)),
        Request((system, a, trimmed_b, c), 10, 0, (0, 3)),
    ]
    second = price_requests(calls, SONNET).calls[1]
    # The system breakpoint still hits; everything from the trimmed message on is written again.
    assert second.cache_read_tokens == 3000
    assert second.cache_write_tokens == 500 + 50 + 500
    assert second.input_tokens == 0


def test_a_break_names_its_cause_and_what_the_rewrite_cost_over_reading():
    system, a, b, c = _seg("s", 3000, "system"), _seg("a", 500), _seg("b", 500), _seg("c", 500)
    requests = [
        Request((system, a, b), 0, 0, (0, 2)),
        Request((system, a, _seg("b-trimmed", 50), c), 10, 0, (0, 3)),
        Request((system, a, _seg("b-trimmed", 50), c), 1000, 0, (0, 3)),
    ]
    session = price_requests(requests, SONNET)
    trimmed, expired = cache_breaks(requests, session)
    assert (trimmed.number, trimmed.cause, trimmed.first_changed) == (2, "prefix-changed", 2)
    # Written 500 + 50 + 500; the growth over the previous request is 50 tokens.
    assert trimmed.rewritten_tokens == 1050 - 50
    assert trimmed.extra_usd == pytest.approx(1000 * 3 * (1.25 - 0.1) / 1e6)
    assert (expired.number, expired.cause, expired.first_changed) == (3, "expired", None)
    assert expired.rewritten_tokens == 4050
    assert "4,050 tokens" in expired.sentence() and "expired" in expired.sentence()


@given(
    input_price=st.floats(0, 100, allow_nan=False),
    output_price=st.floats(0, 100, allow_nan=False),
    write=st.floats(0, 3, allow_nan=False),
    write_1h=st.floats(0, 3, allow_nan=False),
    read=st.floats(0, 1, allow_nan=False),
    counts=st.tuples(*[st.integers(0, 10**9)] * 4),
    ttl=st.sampled_from(["5m", "1h"]),
)
def test_a_sessions_prices_read_once_price_a_call_as_call_usd_does(
    input_price, output_price, write, write_1h, read, counts, ttl
):
    # Pricing reads the rates once per session; the sum must round exactly as ``call_usd``'s.
    pricing = replace(
        SONNET,
        input_per_mtok=input_price,
        output_per_mtok=output_price,
        cache_write_multiplier=write,
        cache_write_1h_multiplier=write_1h,
        cache_read_multiplier=read,
    )
    uncached, written, cached, output = counts
    expected = call_usd(pricing, ttl, uncached=uncached, write=written, read=cached, output=output)
    assert _Prices(pricing, ttl).usd(uncached, written, cached, output) == expected
