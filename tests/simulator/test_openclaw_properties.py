"""Hypothesis properties of OpenClaw's pruner and replay view over random AgentMessage histories."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw import (
    AssistantMessage,
    EffectivePruningSettings,
    UserMessage,
    estimate_context_chars,
    messages_from_json,
    prune_context_messages,
    prune_processed_history_images,
)
from simulator.runtimes.openclaw.pruner import find_assistant_cutoff_index, find_first_user_index
from simulator.runtimes.openclaw.settings import HardClearSettings, SoftTrimSettings

TOOL_NAMES = ("exec", "read", "browser", "web_fetch", "Memory_Search")
text = st.text(alphabet=st.sampled_from("ab\n你😀 "), max_size=300)
image: JSON = {"type": "image", "data": "abc", "mimeType": "image/png"}


@st.composite
def message(draw: st.DrawFn) -> JSON:
    kind = draw(st.sampled_from(("user", "user_blocks", "assistant", "tool", "tool", "other")))
    if kind == "user":
        return {"role": "user", "content": draw(text), "timestamp": 1}
    if kind == "user_blocks":
        blocks: list[JSON] = [{"type": "text", "text": draw(text)}]
        if draw(st.booleans()):
            blocks.append(image)
        return {"role": "user", "content": blocks, "timestamp": 1}
    if kind == "assistant":
        content: list[JSON] = [{"type": "text", "text": draw(text)}]
        if draw(st.booleans()):
            content.append({"type": "thinking", "thinking": draw(text), "thinkingSignature": "sig"})
        if draw(st.booleans()):
            content.append({"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"cmd": draw(text)}})
        return {"role": "assistant", "content": content, "stopReason": "toolUse", "timestamp": 2}
    if kind == "tool":
        parts: list[JSON] = [{"type": "text", "text": draw(text)} for _ in range(draw(st.integers(0, 3)))]
        if draw(st.booleans()):
            parts.insert(draw(st.integers(0, len(parts))), image)
        return {
            "role": "toolResult",
            "toolCallId": "c1",
            "toolName": draw(st.sampled_from(TOOL_NAMES)),
            "content": parts,
            "isError": draw(st.booleans()),
            "timestamp": 3,
        }
    return {"role": "custom", "customType": "note", "content": draw(text)}


TOOL_POLICIES: list[JSON] = [{}, {"deny": ["browser"]}, {"allow": ["ex*", "read"]}, {"allow": ["*"]}]
histories = st.lists(message(), max_size=14)


@st.composite
def pruning_settings(draw: st.DrawFn) -> EffectivePruningSettings:
    tools = draw(st.sampled_from(TOOL_POLICIES))
    return EffectivePruningSettings(
        keep_last_assistants=draw(st.integers(0, 4)),
        soft_trim_ratio=draw(st.floats(0, 1)),
        hard_clear_ratio=draw(st.floats(0, 1)),
        min_prunable_tool_chars=draw(st.sampled_from((0, 50, 5000))),
        tools=tools,
        soft_trim=SoftTrimSettings(
            draw(st.integers(0, 400)), draw(st.integers(0, 200)), draw(st.integers(0, 200))
        ),
        hard_clear=HardClearSettings(draw(st.booleans()), "[cleared]"),
    )


windows = st.integers(1, 3000)


@settings(max_examples=300, deadline=None)
@given(histories, pruning_settings(), windows)
def test_user_and_assistant_messages_are_never_modified(raw, s, window):
    history = messages_from_json(raw)
    result = prune_context_messages(history, s, context_window=window)
    for before, after in zip(history, result.messages, strict=True):
        if isinstance(before, UserMessage | AssistantMessage):
            assert after is before


@settings(max_examples=300, deadline=None)
@given(histories, pruning_settings(), windows)
def test_nothing_before_the_first_user_message_is_modified(raw, s, window):
    history = messages_from_json(raw)
    result = prune_context_messages(history, s, context_window=window)
    first_user = find_first_user_index(history)
    limit = len(history) if first_user is None else first_user
    assert all(i >= limit for i in result.changed_indexes)


@settings(max_examples=300, deadline=None)
@given(histories, pruning_settings(), windows)
def test_the_protected_tail_of_the_last_assistants_is_untouched(raw, s, window):
    history = messages_from_json(raw)
    result = prune_context_messages(history, s, context_window=window)
    cutoff = find_assistant_cutoff_index(history, s.keep_last_assistants)
    if cutoff is None:
        assert result.returned_same
    else:
        assert all(i < cutoff for i in result.changed_indexes)
        assert all(
            after is before for before, after in zip(history[cutoff:], result.messages[cutoff:], strict=True)
        )


@settings(max_examples=300, deadline=None)
@given(histories, pruning_settings(), windows)
def test_no_pruning_below_the_soft_trim_ratio(raw, s, window):
    history = messages_from_json(raw)
    result = prune_context_messages(history, s, context_window=window)
    if estimate_context_chars(history) / (window * 4) < s.soft_trim_ratio:
        assert result.returned_same
        assert result.messages is history


@settings(max_examples=300, deadline=None)
@given(histories, pruning_settings(), windows)
def test_changed_indexes_match_replaced_objects_and_the_reported_totals(raw, s, window):
    history = messages_from_json(raw)
    result = prune_context_messages(history, s, context_window=window)
    replaced = tuple(i for i, (a, b) in enumerate(zip(history, result.messages, strict=True)) if a is not b)
    assert replaced == result.changed_indexes
    assert result.returned_same == (not replaced)
    if not result.returned_same:
        assert result.chars_after == estimate_context_chars(result.messages)


@settings(max_examples=300, deadline=None)
@given(histories)
def test_history_image_cleanup_is_idempotent(raw):
    history = messages_from_json(raw)
    once = prune_processed_history_images(history)
    view = history if once is None else once
    assert prune_processed_history_images(view) is None


@settings(max_examples=200, deadline=None)
@given(histories)
def test_history_image_cleanup_never_touches_assistant_or_other_messages(raw):
    history = messages_from_json(raw)
    view = prune_processed_history_images(history)
    if view is not None:
        for before, after in zip(history, view, strict=True):
            if not isinstance(before, UserMessage) and before.role != "toolResult":
                assert after is before


@settings(max_examples=200, deadline=None)
@given(histories)
def test_messages_round_trip_through_json(raw):
    assert [m.to_json() for m in messages_from_json(raw)] == raw
