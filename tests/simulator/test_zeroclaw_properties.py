"""Properties of ZeroClaw's trims over random histories."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.runtimes import zeroclaw as zc
from simulator.runtimes.zeroclaw import (
    AssistantToolCalls,
    Chat,
    ChatMessage,
    ToolCall,
    ToolResultMessage,
    ToolResults,
)
from simulator.runtimes.zeroclaw.turns import is_turn_boundary

texts = st.text(alphabet=st.sampled_from("ab 日✓x\n"), max_size=60)
user_texts = st.one_of(texts, texts.map(lambda t: "[Tool results]\n" + t))


@st.composite
def chat_histories(draw: st.DrawFn) -> list[ChatMessage]:
    """Leading systems, an optional preface, then turns with native and prompt-mode tool rounds."""
    history = [ChatMessage("system", draw(texts)) for _ in range(draw(st.integers(0, 2)))]
    if draw(st.booleans()):
        history.append(ChatMessage("assistant", draw(texts)))
    call_id = 0
    for _ in range(draw(st.integers(0, 6))):
        history.append(ChatMessage("user", draw(texts)))
        for _ in range(draw(st.integers(0, 2))):
            kind = draw(st.sampled_from(["native", "prompt", "late_system"]))
            if kind == "native":
                ids = [f"call_{call_id}_{k}" for k in range(draw(st.integers(1, 2)))]
                call_id += 1
                calls = [{"id": i, "name": "shell", "arguments": "{}"} for i in ids]
                history.append(ChatMessage("assistant", json.dumps({"content": "", "tool_calls": calls})))
                for i in ids:
                    history.append(
                        ChatMessage("tool", json.dumps({"tool_call_id": i, "content": draw(texts)}))
                    )
            elif kind == "prompt":
                history.append(ChatMessage("assistant", "prompt-mode call"))
                history.append(ChatMessage("user", "[Tool results]\n" + draw(texts)))
            else:
                history.append(ChatMessage("system", draw(texts)))
        history.append(ChatMessage("assistant", draw(texts)))
    return history


@st.composite
def conversation_histories(draw: st.DrawFn) -> list[zc.ConversationMessage]:
    history: list[zc.ConversationMessage] = []
    if draw(st.booleans()):
        history.append(Chat(ChatMessage("system", draw(texts))))
    for turn in range(draw(st.integers(0, 6))):
        history.append(Chat(ChatMessage("user", draw(user_texts))))
        for call in range(draw(st.integers(0, 2))):
            call_id = f"c{turn}_{call}"
            history.append(AssistantToolCalls(None, (ToolCall(call_id, "shell", "{}"),)))
            history.append(ToolResults((ToolResultMessage(call_id, draw(texts), "shell"),)))
        if draw(st.booleans()):
            history.append(Chat(ChatMessage("system", draw(texts))))
        history.append(Chat(ChatMessage("assistant", draw(texts))))
    return history


budgets = st.integers(0, 400)


def _answering_assistant(history: list[ChatMessage]) -> dict[int, int]:
    """Tool row index -> index of the assistant whose tool_calls list its id."""
    owner_of_id: dict[str, int] = {}
    answers: dict[int, int] = {}
    for index, message in enumerate(history):
        if message.role == "assistant" and message.content.startswith("{"):
            for call in json.loads(message.content)["tool_calls"]:
                owner_of_id[call["id"]] = index
        elif message.role == "tool":
            answers[index] = owner_of_id[json.loads(message.content)["tool_call_id"]]
    return answers


@given(chat_histories(), budgets)
def test_token_trimming_never_keeps_a_tool_result_without_its_assistant(history, budget):
    result = zc.trim_to_recent_turns(history, budget)
    kept = set(result.kept_indices)
    for tool_index, assistant_index in _answering_assistant(history).items():
        if tool_index in kept:
            assert assistant_index in kept


@given(chat_histories(), budgets)
def test_token_trimming_always_keeps_the_newest_turn(history, budget):
    result = zc.trim_to_recent_turns(history, budget)
    boundaries = [i for i, m in enumerate(history) if is_turn_boundary(m)]
    if boundaries:
        newest = boundaries[-1]
        assert set(range(newest, len(history))) <= set(result.kept_indices)


@given(chat_histories())
def test_budget_zero_never_trims(history):
    result = zc.trim_to_recent_turns(history, 0)
    assert not result.trimmed
    assert result.history == tuple(history)
    assert zc.trim_to_recent_turns_pr9368(history, 0).history == tuple(history)


@given(chat_histories(), budgets, st.booleans())
def test_kept_indices_increase_and_select_the_returned_history(history, budget, documented):
    if documented:
        result = zc.trim_to_recent_turns_pr9368(history, budget)
    else:
        result = zc.trim_to_recent_turns(history, budget)
    assert list(result.kept_indices) == sorted(set(result.kept_indices))
    assert result.history == tuple(history[i] for i in result.kept_indices)
    assert result.dropped_messages == len(history) - len(result.history)
    assert result.tokens_after == zc.estimate_history_tokens(result.history)


@given(chat_histories(), budgets, st.booleans())
def test_trimming_the_trimmed_output_with_the_same_budget_trims_nothing_more(history, budget, documented):
    if documented:
        once = zc.trim_to_recent_turns_pr9368(history, budget)
        twice = zc.trim_to_recent_turns_pr9368(once.history, budget)
    else:
        once = zc.trim_to_recent_turns(history, budget)
        twice = zc.trim_to_recent_turns(once.history, budget)
    assert not twice.trimmed
    assert twice.history == once.history


@given(chat_histories(), budgets)
def test_a_flagged_breadcrumb_survives_every_documented_trim(history, budget):
    leading = 0
    while leading < len(history) and history[leading].role == "system":
        leading += 1
    crumbed = [*history[:leading], zc.breadcrumb(), *history[leading:]]
    result = zc.trim_to_recent_turns_pr9368(crumbed, budget, has_leading_breadcrumb=True)
    assert result.history[leading] == zc.breadcrumb()
    assert result.dropped_messages == len(crumbed) - len(result.history)


@given(chat_histories(), st.integers(0, 8))
def test_turn_count_trimming_keeps_whole_newest_turns_and_is_idempotent(history, max_turns):
    result = zc.trim_to_recent_turn_count(history, max_turns)
    assert result.history == tuple(history[i] for i in result.kept_indices)
    kept = set(result.kept_indices)
    for tool_index, assistant_index in _answering_assistant(history).items():
        if tool_index in kept:
            assert assistant_index in kept
    assert not zc.trim_to_recent_turn_count(result.history, max_turns).trimmed


@settings(max_examples=200)
@given(conversation_histories(), st.integers(0, 12), st.booleans())
def test_structured_cap_never_separates_tool_calls_from_results(history, cap, documented):
    if documented:
        result = zc.trim_conversation_to_recent_turns_pr9368(history, cap)
    else:
        result = zc.trim_conversation_to_recent_turns(history, cap)
    kept = result.history
    for index, message in enumerate(kept):
        if isinstance(message, ToolResults):
            assert index > 0
            assert isinstance(kept[index - 1], AssistantToolCalls)
    assert kept == tuple(history[i] for i in result.kept_indices)
    newest = max((i for i, m in enumerate(history) if isinstance(m, Chat) and m.role == "user"), default=None)
    if newest is not None:
        assert newest in result.kept_indices


@given(conversation_histories(), st.integers(0, 12))
def test_structured_cap_is_idempotent(history, cap):
    once = zc.trim_conversation_to_recent_turns(history, cap)
    twice = zc.trim_conversation_to_recent_turns(once.history, cap)
    assert not twice.trimmed
    assert twice.history == once.history


@given(chat_histories())
def test_whole_turn_trimming_never_creates_orphans(history):
    for budget in (1, 50, 200):
        trimmed = zc.trim_to_recent_turns(history, budget).history
        assert zc.remove_orphaned_tool_messages(trimmed).removed == 0
        assert zc.strip_orphaned_tool_calls_from_assistants(trimmed).stripped == 0
