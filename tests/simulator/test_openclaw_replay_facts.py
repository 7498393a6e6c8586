"""The OpenClaw replay's per-message shortcuts give what the runtime's own functions give.

The fast transforms read a plain ASCII message's sizes from its texts' lengths (2026.9.6) and size every
hard-cleared result from one of them (2026.7.1); each shortcut is pinned here against the general
function it stands in for, on messages of every shape (non-ASCII text, images, tool calls, thinking,
excluded results, malformed blocks).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.replay.openclaw_facts_2026_9 import (
    StoredFacts,
    cleaned_weights,
    plain_text_chars,
    sources_of,
    typed_weights,
    weights_of,
    weights_typed_or_of,
)
from simulator.replay.openclaw_fast import _left_alone
from simulator.replay.openclaw_transforms import FastTransforms
from simulator.runtimes.openclaw import context_guard as guard_v1
from simulator.runtimes.openclaw.estimate import estimate_message_chars
from simulator.runtimes.openclaw.image_prune import (
    PRESERVE_RECENT_COMPLETED_TURNS,
    cleaned_message,
    cleanup_changes,
    completed_turn_starts,
)
from simulator.runtimes.openclaw.messages import (
    AgentMessage,
    ToolResultMessage,
    UserMessage,
    message_from_json,
    messages_from_json,
)
from simulator.runtimes.openclaw.pruner import cleared_tool_result, soft_trim_tool_result
from simulator.runtimes.openclaw.settings import EffectivePruningSettings, SoftTrimSettings
from simulator.runtimes.openclaw.v2026_9_6 import provider_budget
from simulator.runtimes.openclaw.v2026_9_6.cache_ttl import message_chars, projection_key, source_texts
from simulator.runtimes.openclaw.v2026_9_6.context_guard import guard_message_chars

_TEXTS = st.one_of(
    st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=40),
    st.text(max_size=12),
    st.sampled_from(["漢字テキスト", "한국어", "emoji 🎉", "·ㄱ", "𠀀x", "é"]),
)
_TEXT_BLOCK = st.builds(lambda text: {"type": "text", "text": text}, _TEXTS)
_BLOCKS = st.one_of(
    _TEXT_BLOCK,
    _TEXT_BLOCK.map(lambda block: {**block, "textSignature": "sig"}),
    st.just({"type": "image", "data": "AAAA", "mimeType": "image/png"}),
    st.builds(
        lambda n: {"type": "toolCall", "id": f"c{n}", "name": "read", "arguments": {"n": n, "s": "é" * n}},
        st.integers(0, 3),
    ),
    st.builds(lambda text: {"type": "thinking", "thinking": text, "thinkingSignature": "s"}, _TEXTS),
    st.just({"type": "text", "text": {"not": "a string"}}),
    st.just({"type": "mystery", "value": 1}),
)


_TIMESTAMPS = st.one_of(
    st.integers(0, 10**13),
    st.integers(2**53 - 2, 2**53 + 2),  # around the largest integer JavaScript prints as it is
    st.integers(-(2**53) - 2, -(2**53) + 2),
    st.floats(allow_nan=False),
    st.booleans(),
    st.none(),
    st.just("1772960000000"),
)


@st.composite
def agent_messages(draw: st.DrawFn) -> AgentMessage:
    role = draw(st.sampled_from(["user", "assistant", "toolResult", "custom"]))
    content: Any = draw(st.one_of(_TEXTS, st.lists(_BLOCKS, max_size=4)))
    raw: dict[str, Any] = {"role": role, "content": content, "timestamp": draw(_TIMESTAMPS)}
    if role == "toolResult":
        raw["toolCallId"] = draw(st.sampled_from(["c1", "c2", ""]))
        raw["toolName"] = "read"
        if draw(st.booleans()):
            raw["excludeFromContext"] = draw(st.sampled_from([True, False, 1]))
        if draw(st.booleans()):
            raw["details"] = {"k": "v"}
    if role == "custom":
        raw["summary"] = "s"
    return message_from_json(raw)


@settings(max_examples=400, deadline=None)
@given(st.lists(agent_messages(), min_size=1, max_size=8))
def test_stored_facts_equal_the_runtime_functions_on_every_message_shape(
    messages: list[AgentMessage],
) -> None:
    chars = tuple(estimate_message_chars(m) for m in messages)
    for sizes in (chars, None):
        facts = StoredFacts(messages, range(len(messages)), sizes)
        facts.feed(len(messages))
        for i, message in enumerate(messages):
            result = isinstance(message, ToolResultMessage)
            assert facts.tb_own[i] == (provider_budget.text_budget(message) if result else 0)
            assert facts.guard_own[i] == (guard_message_chars(message) if result else 0)
            assert facts.mc_of(i) == message_chars(message)
            assert facts.keys[i] == (projection_key(message) if result else None)
            assert sources_of(message) == source_texts(message)
            if facts.keys[i] is not None:
                assert facts.texts[i] == source_texts(message)  # what the log records when it is sent
            cleaned = cleaned_message(message)
            assert (i in facts.cleaned) == (cleaned is not message) == cleanup_changes(message)
            if i in facts.cleaned:
                _assert_cleaned_weights(message, facts.cleaned[i], facts)


def _assert_cleaned_weights(native: AgentMessage, cleaned: AgentMessage, facts: StoredFacts) -> None:
    """A cleaned message's kept weights are what sending it makes of it: the runtime's own functions."""
    index = next(i for i, m in enumerate(facts.natives) if m is native)
    known = facts.cleaned_weights[index]
    assert known.same == (cleaned == native) == cleaned_weights(native, cleaned).same
    if known.same:
        return
    if isinstance(native, ToolResultMessage):
        assert (known.weights.mc, known.weights.tb, known.weights.guard) == (
            message_chars(cleaned),
            provider_budget.text_budget(cleaned),
            guard_message_chars(cleaned),
        )
    else:
        assert (known.weights.mc, known.weights.tb, known.weights.guard) == (message_chars(cleaned), 0, 0)
    assert known.estimate == estimate_message_chars(cleaned)
    assert known.dirty == cleanup_changes(cleaned)


def test_the_plain_shortcut_is_taken_only_for_plain_ascii_messages() -> None:
    def plain(raw: dict[str, Any]) -> int:
        return plain_text_chars(message_from_json(raw))

    call = {"type": "toolCall", "id": "c", "name": "read", "arguments": {"a": 1}}
    assert plain({"role": "user", "content": "hello"}) == 5
    assert plain({"role": "user", "content": "héllo"}) == -1
    assert (
        plain({"role": "toolResult", "toolCallId": "c", "content": [{"type": "text", "text": "ab"}] * 2}) == 4
    )
    assert plain({"role": "assistant", "content": [{"type": "text", "text": "ok"}, call]}) == 2
    assert plain({"role": "user", "content": [call]}) == -1  # a tool call is an assistant's block only
    assert plain({"role": "toolResult", "toolCallId": "c", "content": [{"type": "image", "data": "A"}]}) == -1
    assert plain({"role": "toolResult", "toolCallId": "c", "content": "a string"}) == -1


def _session(texts: list[str]) -> tuple[AgentMessage, ...]:
    raws: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for n, text in enumerate(texts):
        call = {"type": "toolCall", "id": f"c{n}", "name": "read", "arguments": {}}
        raws.append({"role": "assistant", "content": [call]})
        raws.append({"role": "toolResult", "toolCallId": f"c{n}", "toolName": "read", "content": text})
    return messages_from_json([*raws, {"role": "assistant", "content": [{"type": "text", "text": "done"}]}])


def test_cleared_results_are_sized_as_each_would_be_with_or_without_a_guard_cut() -> None:
    natives = _session(["x" * 5_000, "y" * 40, "z" * 9_000, "w" * 200])
    candidates = [i for i, m in enumerate(natives) if isinstance(m, ToolResultMessage)]
    window = 4_000
    max_single, _ = guard_v1.guard_limits(window)
    for placeholder in ("[cleared]", "p" * max_single):  # the second is itself over the share: cut
        for chars in (tuple(estimate_message_chars(m) for m in natives), None):
            fast = FastTransforms(natives, chars, None, ((), ()))

            class _Pruner:
                pass

            pruner: Any = _Pruner()
            pruner.candidates = candidates
            sums = fast._clear_sums("k", pruner, window, placeholder)
            guard, sent = [0], [0]
            for i in candidates:
                native = natives[i]
                assert isinstance(native, ToolResultMessage)
                cleared = cleared_tool_result(native, placeholder)
                cut = guard_v1.truncate_tool_result_to_chars(cleared, max_single)
                stored = guard_v1.guard_message_chars(
                    guard_v1.truncate_tool_result_to_chars(native, max_single)
                )
                guard.append(guard[-1] + guard_v1.guard_message_chars(cut) - stored)
                sent.append(sent[-1] + estimate_message_chars(cleared) - estimate_message_chars(native))
            assert sums.guard == guard and sums.sent == sent
            assert len(sums.cut_positions) == (len(candidates) if len(placeholder) == max_single else 0)


def test_a_plain_result_excluded_from_the_context_weighs_nothing_for_the_guard() -> None:
    text = [{"type": "text", "text": "abc"}, {"type": "text", "text": "de"}]
    messages = [
        message_from_json({"role": "toolResult", "toolCallId": f"c{n}", "content": text, **extra})
        for n, extra in enumerate(
            [{}, {"excludeFromContext": True}, {"excludeFromContext": False}, {"excludeFromContext": 1}]
        )
    ]
    facts = StoredFacts(messages, (), tuple(estimate_message_chars(m) for m in messages))
    facts.feed(len(messages))
    assert facts.guard_own == [guard_message_chars(m) for m in messages] == [10, 0, 10, 10]
    assert facts.tb_own == [5, 5, 5, 5]


_LIMITS = st.one_of(st.integers(-5, 60), st.floats(-5, 60, allow_nan=False), st.just(4_000))


@settings(max_examples=400, deadline=None)
@given(agent_messages(), _LIMITS, _LIMITS, _LIMITS)
def test_a_result_the_pruner_leaves_alone_is_one_soft_trim_leaves_alone(
    message: AgentMessage, max_chars: float, head: float, tail: float
) -> None:
    if not isinstance(message, ToolResultMessage):
        return
    effective = EffectivePruningSettings(soft_trim=SoftTrimSettings(max_chars, head, tail))
    if _left_alone(message, effective):
        assert soft_trim_tool_result(message, effective) is None


def test_the_pruners_shortcut_decides_both_ways_on_plain_results() -> None:
    def result(*texts: str) -> ToolResultMessage:
        blocks = [{"type": "text", "text": t} for t in texts]
        message = message_from_json({"role": "toolResult", "toolCallId": "c", "content": blocks})
        assert isinstance(message, ToolResultMessage)
        return message

    effective = EffectivePruningSettings(soft_trim=SoftTrimSettings(10, 3, 3))
    assert _left_alone(result("12345", "1234"), effective)  # 5 + 1 + 4 = 10: within
    assert not _left_alone(result("12345", "12345"), effective)  # 11: trimmed
    assert soft_trim_tool_result(result("12345", "12345"), effective) is not None
    assert not _left_alone(result("é"), effective)  # not ASCII: the function decides


_SCREENSHOT_BLOCKS = st.one_of(
    _BLOCKS,
    st.just({"type": "image", "data": "AAAA", "mimeType": "image/png", "detail": "low"}),
    st.just({"type": "image"}),
    _TEXT_BLOCK.map(lambda block: {**block, "cache": True}),
)


@st.composite
def _tool_results(draw: st.DrawFn) -> AgentMessage:
    """Tool results of text and image blocks mostly (a screenshot's), with other blocks and fields."""
    raw: dict[str, Any] = {
        "role": "toolResult",
        "toolCallId": "c1",
        "toolName": "browser",
        "content": draw(st.one_of(_TEXTS, st.lists(_SCREENSHOT_BLOCKS, max_size=4))),
    }
    if draw(st.booleans()):
        raw["excludeFromContext"] = draw(st.sampled_from([True, False, 1]))
    return message_from_json(raw)


@settings(max_examples=500, deadline=None)
@given(st.one_of(_tool_results(), agent_messages()))
def test_typed_weights_equal_the_runtime_functions(message: AgentMessage) -> None:
    """The screenshot result's sizes read from its blocks' classes are the general functions' sizes."""
    typed = typed_weights(message)
    if typed is not None:
        assert typed == weights_of(message)
    assert weights_typed_or_of(message) == weights_of(message)


def test_typed_weights_answer_for_screenshots_stored_and_cleaned() -> None:
    blocks = [{"type": "text", "text": "abc"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}]
    stored = message_from_json({"role": "toolResult", "toolCallId": "c", "content": blocks})
    cleaned = cleaned_message(stored)
    for message in (stored, cleaned):
        typed = typed_weights(message)
        assert typed is not None and typed == weights_of(message)
    odd = message_from_json({"role": "toolResult", "toolCallId": "c", "content": [{**blocks[1], "x": 1}]})
    assert typed_weights(odd) is None  # an extra field may name another type: the reference answers


@pytest.mark.python_only
def test_a_wrong_typed_weight_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison notices an image weighed wrong (the guard's estimate taken for the pass's)."""
    from simulator.replay import openclaw_facts_2026_9 as facts

    monkeypatch.setattr(facts, "IMAGE_CHARS", facts.TOOL_IMAGE_CHARS)
    blocks = [{"type": "text", "text": "abc"}, {"type": "image", "data": "AAAA"}]
    message = message_from_json({"role": "toolResult", "toolCallId": "c", "content": blocks})
    assert facts.typed_weights(message) != weights_of(message)
    with pytest.raises(AssertionError):
        test_typed_weights_equal_the_runtime_functions.hypothesis.inner_test(message)  # type: ignore[attr-defined]


_ROLES = st.lists(st.sampled_from(["user", "assistant", "toolResult", "custom"]), max_size=30)


def _role_messages(roles: list[str]) -> list[AgentMessage]:
    return [message_from_json({"role": r, "content": "x", "toolCallId": "c"}) for r in roles]


def _cutoffs(facts: StoredFacts, lo: int, ends: list[int]) -> list[int]:
    """The cleanup's cutoff over ``natives[lo:end]`` for growing ends, as a replay asks them."""
    return [facts.cutoff(lo, end) for end in ends]


def _reference_cutoff(messages: list[AgentMessage], lo: int, end: int) -> int:
    starts = completed_turn_starts(messages[lo:end], count_open_turn=False)
    keep = PRESERVE_RECENT_COMPLETED_TURNS
    return lo + starts[-keep] if len(starts) > keep else lo


@settings(max_examples=300, deadline=None)
@given(_ROLES, st.data())
def test_turns_counted_from_the_kinds_give_the_cleanups_cutoff(roles: list[str], data: st.DataObject) -> None:
    """The cutoff counted from the messages' kinds (the facts fed) and from each message's class (not
    fed) is ``completed_turn_starts``' third-last start over the call's history, for growing histories."""
    messages = _role_messages(roles)
    lo = data.draw(st.integers(0, len(messages)))
    ends = sorted(data.draw(st.lists(st.integers(lo, len(messages)), max_size=6)))
    expected = [_reference_cutoff(messages, lo, end) for end in ends]
    fed = StoredFacts(messages, ())
    fed.feed(len(messages))
    assert _cutoffs(fed, lo, ends) == expected
    assert _cutoffs(StoredFacts(messages, ()), lo, ends) == expected  # not fed: each message read


def test_turns_counted_from_wrong_kinds_are_noticed() -> None:
    """A kind taken for another (a tool result counted as a user message) moves the cutoff."""
    messages = _role_messages(["user", "assistant", "toolResult", "assistant"] * 5)
    facts = StoredFacts(messages, ())
    facts.feed(len(messages))
    facts.kinds = [UserMessage if kind is ToolResultMessage else kind for kind in facts.kinds]
    assert _cutoffs(facts, 0, [len(messages)]) != [_reference_cutoff(messages, 0, len(messages))]
