"""ZeroClaw's count-based caps at their exact boundaries, every field of the result literal.

Master's structured cap counts non-system messages (a flagged breadcrumb excluded); PR 9368's caps
count whole turns and keep at least the newest one.
"""

from __future__ import annotations

from simulator.runtimes import zeroclaw as zc
from simulator.runtimes.zeroclaw import Chat, ChatMessage, ConversationMessage

CRUMB = zc.breadcrumb()


def sys(text: str) -> ChatMessage:
    return ChatMessage("system", text)


def user(text: str) -> ChatMessage:
    return ChatMessage("user", text)


def asst(text: str) -> ChatMessage:
    return ChatMessage("assistant", text)


def fields(
    result: zc.CountTrimResult[ConversationMessage] | zc.CountTrimResult[ChatMessage],
) -> tuple[object, ...]:
    return (
        result.trimmed,
        result.dropped_messages,
        result.dropped_turns,
        result.kept_turns,
        result.kept_indices,
    )


TWO_TURNS: list[ConversationMessage] = [Chat(user("a")), Chat(asst("b")), Chat(user("c")), Chat(asst("d"))]


def test_structured_cap_at_the_message_count_leaves_the_history_alone():
    result = zc.trim_conversation_to_recent_turns(TWO_TURNS, 4)
    assert result.history == tuple(TWO_TURNS)
    assert fields(result) == (False, 0, 0, 2, (0, 1, 2, 3))


def test_structured_cap_one_below_the_message_count_drops_the_oldest_turn():
    result = zc.trim_conversation_to_recent_turns(TWO_TURNS, 3)
    assert result.history == tuple(TWO_TURNS[2:])
    assert fields(result) == (True, 2, 1, 1, (2, 3))


def test_structured_cap_does_not_count_a_flagged_breadcrumb():
    history: list[ConversationMessage] = [Chat(CRUMB), *TWO_TURNS]
    at_cap = zc.trim_conversation_to_recent_turns(history, 4, has_leading_breadcrumb=True)
    assert at_cap.history == tuple(history)
    assert fields(at_cap) == (False, 0, 0, 2, (0, 1, 2, 3, 4))
    below = zc.trim_conversation_to_recent_turns(history, 3, has_leading_breadcrumb=True)
    assert below.history == tuple(TWO_TURNS[2:])
    assert fields(below) == (True, 2, 1, 1, (3, 4))


def test_structured_cap_drops_a_preface_together_with_the_first_turn():
    history: list[ConversationMessage] = [Chat(asst("pre")), *TWO_TURNS]
    result = zc.trim_conversation_to_recent_turns(history, 4)
    assert result.history == tuple(TWO_TURNS[2:])
    assert fields(result) == (True, 3, 1, 1, (3, 4))


def test_only_the_first_body_message_can_be_the_flagged_breadcrumb():
    history: list[ConversationMessage] = [Chat(CRUMB), Chat(asst("x")), *TWO_TURNS]
    result = zc.trim_conversation_to_recent_turns(history, 10, has_leading_breadcrumb=True)
    assert fields(result) == (False, 0, 0, 2, (0, 1, 2, 3, 4, 5))


def test_pr9368_structured_cap_at_the_turn_count_leaves_the_history_alone():
    result = zc.trim_conversation_to_recent_turns_pr9368(TWO_TURNS, 2)
    assert result.history == tuple(TWO_TURNS)
    assert fields(result) == (False, 0, 0, 2, (0, 1, 2, 3))
    above = zc.trim_conversation_to_recent_turns_pr9368(TWO_TURNS, 5)
    assert fields(above) == (False, 0, 0, 2, (0, 1, 2, 3))


def test_pr9368_structured_cap_one_below_the_turn_count_drops_the_oldest_turn():
    history: list[ConversationMessage] = [Chat(sys("s")), *TWO_TURNS]
    result = zc.trim_conversation_to_recent_turns_pr9368(history, 1)
    assert result.history == (Chat(sys("s")), *TWO_TURNS[2:])
    assert fields(result) == (True, 2, 1, 1, (0, 3, 4))


def test_pr9368_structured_cap_without_the_flag_counts_the_first_user_as_a_turn():
    history: list[ConversationMessage] = [Chat(CRUMB), *TWO_TURNS]
    result = zc.trim_conversation_to_recent_turns_pr9368(history, 1)
    assert result.history == tuple(TWO_TURNS[2:])
    assert fields(result) == (True, 3, 2, 1, (3, 4))


def test_pr9368_structured_cap_zero_never_trims_a_single_turn():
    one_turn: list[ConversationMessage] = [Chat(user("a")), Chat(asst("b"))]
    result = zc.trim_conversation_to_recent_turns_pr9368(one_turn, 0)
    assert result.history == tuple(one_turn)
    assert fields(result) == (False, 0, 0, 1, (0, 1))


def test_pr9368_chat_cap_zero_never_trims_a_single_turn():
    one_turn = [sys("s"), user("a"), asst("b")]
    result = zc.trim_to_recent_turn_count(one_turn, 0)
    assert result.history == tuple(one_turn)
    assert fields(result) == (False, 0, 0, 1, (0, 1, 2))
