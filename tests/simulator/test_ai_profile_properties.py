"""Property tests of the ai-profile trimming over random Anthropic-style histories."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.runtimes.ai_profile import (
    Block,
    Message,
    caller_retry_loop,
    dumps_compact,
    estimate_tokens,
    first_user_index,
    message_tokens,
    trim_history,
)
from simulator.runtimes.ai_profile.compact_json import ryu_format

ALPHABET = 'ab xyz日志测试é🙂"\\\n\t\x01/'
texts = st.text(alphabet=ALPHABET, max_size=400)
plain_roles = st.sampled_from(["user", "assistant", "user", "assistant", "system", "User"])


@st.composite
def histories(draw):
    """Well-formed histories: every tool_use message is answered by the next message, bar the last."""
    messages: list[Message] = []
    pairs: list[tuple[int, int | None]] = []
    for turn in range(draw(st.integers(0, 12))):
        if draw(st.booleans()):
            role = draw(plain_roles)
            if draw(st.booleans()):
                content: str | tuple[Block, ...] = draw(texts)
            else:
                content = tuple(Block.text(t) for t in draw(st.lists(texts, min_size=1, max_size=3)))
            messages.append(Message(role, content))
            continue
        tool_id = f"t{turn}"
        preamble = tuple(Block.text(t) for t in draw(st.lists(texts, max_size=1)))
        use = Block.tool_use(tool_id, "run", {"cmd": draw(texts), "n": draw(st.integers(-(2**70), 2**70))})
        messages.append(Message("assistant", (*preamble, use)))
        pairs.append((len(messages) - 1, len(messages)))
        messages.append(Message("user", (Block.tool_result(tool_id, draw(texts)),)))
    if draw(st.booleans()):
        messages.append(Message("assistant", (Block.tool_use("last", "run", {}),)))
        pairs.append((len(messages) - 1, None))
    return messages, pairs


budgets = st.one_of(st.none(), st.integers(0, 3000), st.integers(0, 2**32 - 1))


@settings(max_examples=300, deadline=None)
@given(histories(), budgets)
def test_tool_use_and_tool_result_are_kept_or_dropped_together(history, budget):
    messages, pairs = history
    kept = set(trim_history(messages, budget).kept_indices)
    for use, result in pairs:
        if result is not None:
            assert (use in kept) == (result in kept)


@settings(max_examples=300, deadline=None)
@given(histories(), budgets)
def test_the_result_fits_the_budget_outside_the_fallback(history, budget):
    messages, _ = history
    result = trim_history(messages, budget)
    assert result.messages == tuple(messages[i] for i in result.kept_indices)
    assert list(result.kept_indices) == sorted(set(result.kept_indices))
    assert result.dropped == len(messages) - len(result.messages)
    if budget is None or estimate_tokens(messages) <= budget:
        assert result.dropped == 0
    elif result.used_fallback:
        assert len(result.messages) <= 1
        assert not any(m.has_tool_use or m.has_tool_result for m in result.messages)
    else:
        assert result.estimate_after <= budget


@settings(max_examples=300, deadline=None)
@given(histories(), st.integers(0, 3000))
def test_the_first_user_is_re_added_only_within_half_the_budget(history, budget):
    messages, _ = history
    result = trim_history(messages, budget)
    first = first_user_index(messages)
    if result.reinserted_first_user is not None:
        assert result.reinserted_first_user == first == result.kept_indices[0]
        assert message_tokens(messages[first]) <= budget // 2
    trimmed = estimate_tokens(messages) > budget
    if first is not None and trimmed and not result.used_fallback:
        assert (first in result.kept_indices) or message_tokens(messages[first]) > budget // 2


@settings(max_examples=200, deadline=None)
@given(histories(), st.integers(0, 5))
def test_the_retry_loop_stops_when_nothing_was_dropped_and_after_max_attempts(history, max_attempts):
    messages, _ = history
    result = caller_retry_loop(messages, max_attempts)
    attempts = result.attempts
    assert len(attempts) <= max_attempts
    assert all(a.dropped > 0 for a in attempts[:-1])
    if attempts and len(attempts) < max_attempts:
        assert attempts[-1].dropped == 0
    assert result.gave_up == (bool(attempts) and attempts[-1].dropped == 0)
    budgets = [a.budget for a in attempts]
    assert budgets == sorted(budgets, reverse=True)
    assert result.messages == tuple(messages[i] for i in result.kept_indices)


json_leaves = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1), st.text(max_size=20))
json_values = st.recursive(
    json_leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_compact_json_without_floats_matches_python_compact_output(value):
    expected = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    assert dumps_compact(value) == expected


@settings(max_examples=500, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_ryu_text_reads_back_as_the_same_float(value):
    text = ryu_format(value)
    assert float(text) == value
    assert math.copysign(1.0, float(text)) == math.copysign(1.0, value)
    assert "+" not in text and "e0" not in text and "e-0" not in text


@given(histories(), budgets)
def test_precomputed_token_sizes_give_the_same_trim(history, budget):
    """The replay passes each message's size once; the trim must not change because of it."""
    messages, _ = history
    sizes = [message_tokens(m) for m in messages]
    assert trim_history(messages, budget, tokens=sizes) == trim_history(messages, budget)


_block_types = st.one_of(st.sampled_from(["tool_use", "tool_result", "text"]), json_values)
_blocks = st.lists(
    st.one_of(json_values, st.dictionaries(st.just("type"), _block_types, min_size=1)).map(Block), max_size=4
)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(st.text(max_size=5), _blocks.map(tuple)), st.sampled_from(["tool_use", "tool_result", "text"])
)
def test_has_block_is_any_block_of_that_kind(content, kind):
    message = Message("user", content)
    assert message.has_block(kind) == (
        isinstance(content, tuple) and any(block.kind == kind for block in content)
    )
