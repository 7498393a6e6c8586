"""Properties of the cache model that hold for any session shape (Hypothesis)."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from simulator.cost.breakpoints import automatic_breakpoints, pi_breakpoints, zeroclaw_breakpoints
from simulator.cost.cache import Request, Role, Segment, openai_cached, price_requests
from simulator.cost.pricing import pricing_for

SONNET = pricing_for("anthropic/claude-sonnet-4-5").pricing
GPT = pricing_for("openai/gpt-5.5").pricing

# A system prompt long enough to be cacheable on its own, then messages of any size.
system_tokens = st.integers(min_value=1024, max_value=20_000)
message_tokens = st.lists(st.integers(min_value=1, max_value=3000), min_size=2, max_size=60)
# New messages per call: at most 19, so the previous breakpoint stays inside Anthropic's 20-block lookback.
growth = st.lists(st.integers(min_value=1, max_value=19), min_size=1, max_size=12)
gaps = st.floats(min_value=0, max_value=299)


def _history(system: int, sizes: list[int]) -> list[Segment]:
    roles: tuple[Role, Role] = ("user", "assistant")
    return [Segment("system", system, "system")] + [
        Segment(f"m{i}", size, roles[i % 2]) for i, size in enumerate(sizes)
    ]


def _calls(history: list[Segment], steps: list[int], gap: float, place) -> list[Request]:
    calls: list[Request] = []
    end = 1
    for n, step in enumerate(steps):
        end = min(len(history), end + step)
        sent = tuple(history[:end])
        calls.append(Request(sent, n * gap, 0, place(sent)))
    return calls


@settings(max_examples=150, deadline=None)
@given(system_tokens, message_tokens, growth, gaps)
def test_a_replay_that_never_edits_history_writes_only_its_growth(system, sizes, steps, gap):
    history = _history(system, sizes)
    calls = _calls(history, steps, gap, automatic_breakpoints)
    costs = price_requests(calls, SONNET).calls
    assert costs[0].cache_write_tokens == calls[0].input_tokens
    for before, now, cost in zip(calls, calls[1:], costs[1:], strict=False):
        assert cost.cache_read_tokens == before.input_tokens
        assert cost.cache_write_tokens == now.input_tokens - before.input_tokens
        assert cost.input_tokens == 0


@settings(max_examples=150, deadline=None)
@given(system_tokens, message_tokens, growth, gaps)
def test_openai_append_only_reads_the_stepped_previous_request_and_never_writes(system, sizes, steps, gap):
    history = _history(system, sizes)
    calls = _calls(history, steps, gap, lambda sent: ())
    costs = price_requests(calls, GPT).calls
    assert all(c.cache_write_tokens == 0 for c in costs)
    for before, cost in zip(calls, costs[1:], strict=False):
        assert cost.cache_read_tokens == openai_cached(before.input_tokens)


@settings(max_examples=200, deadline=None)
@given(
    system_tokens,
    message_tokens,
    st.integers(min_value=1, max_value=19),
    st.data(),
    st.sampled_from([zeroclaw_breakpoints, pi_breakpoints, automatic_breakpoints]),
)
def test_removing_an_early_message_never_lowers_the_next_calls_write(system, sizes, step, data, place):
    history = _history(system, sizes)
    k = data.draw(st.integers(min_value=2, max_value=len(history) - 1), label="first call sends")
    m = min(len(history), k + step)
    removed = data.draw(st.integers(min_value=1, max_value=k - 1), label="removed index")
    first = tuple(history[:k])
    kept = tuple(history[:m])
    edited = tuple(s for i, s in enumerate(history[:m]) if i != removed)
    # ZeroClaw places no conversation breakpoint with a single non-system message; then nothing past the
    # system prompt is written at all, which is a lower write for a different reason.
    assume(len(edited) - 1 in place(edited))
    # The removed message was part of what the first call cached (else it was never cached to lose).
    assume(max(place(first), default=-1) >= removed)

    def write_of(second: tuple[Segment, ...]) -> int:
        calls = [Request(first, 0, 0, place(first)), Request(second, 60, 0, place(second))]
        return price_requests(calls, SONNET).calls[1].cache_write_tokens

    assert write_of(edited) >= write_of(kept)


@settings(max_examples=150, deadline=None)
@given(system_tokens, message_tokens, growth, st.floats(min_value=300.5, max_value=86_400))
def test_after_the_ttl_the_next_call_writes_everything_up_to_its_breakpoint(system, sizes, steps, idle):
    history = _history(system, sizes)
    calls = _calls(history, steps, 10, automatic_breakpoints)
    last = calls[-1]
    late = Request(last.segments, last.at_seconds + idle, 0, last.breakpoints)
    cost = price_requests([*calls, late], SONNET).calls[-1]
    assert cost.cache_read_tokens == 0
    assert cost.cache_write_tokens == late.input_tokens
