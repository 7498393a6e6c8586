"""OpenClaw 2026.7.1's history image cleanup: which turns count as completed, and which blocks it rewrites."""

from __future__ import annotations

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.image_prune import completed_turn_starts, prune_processed_history_images
from simulator.runtimes.openclaw.messages import AgentMessage, message_from_json, messages_to_json

MARKER = "[media reference removed - already processed by model]"


def msg(role: str, content: JSON) -> AgentMessage:
    return message_from_json({"role": role, "content": content})


def user(text: str = "q") -> AgentMessage:
    return msg("user", text)


ASSISTANT = msg("assistant", [{"type": "text", "text": "ok"}])
TOOL = msg("toolResult", [{"type": "text", "text": "r"}])
OTHER = msg("custom", "x")
FOUR_TURNS = [user(), ASSISTANT] * 4


def test_no_messages_have_no_turns():
    assert completed_turn_starts([]) == ()


def test_the_last_replied_turn_counts_unless_only_closed_turns_are_asked_for():
    history = [user("a"), ASSISTANT, user("b"), ASSISTANT]
    assert completed_turn_starts(history) == (0, 2)
    assert completed_turn_starts(history, count_open_turn=False) == (0,)


def test_a_turn_opening_at_index_zero_is_counted_at_the_end_too():
    assert completed_turn_starts([user("a"), ASSISTANT]) == (0,)


def test_an_assistant_before_any_turn_opens_nothing():
    assert completed_turn_starts([ASSISTANT, user("a"), ASSISTANT]) == (1,)


def test_a_user_message_without_a_reply_does_not_complete_its_turn():
    assert completed_turn_starts([user("a"), user("b"), ASSISTANT]) == (1,)


def test_a_tool_result_inside_an_open_turn_does_not_reopen_it():
    assert completed_turn_starts([user("a"), TOOL, ASSISTANT]) == (0,)


def test_a_tool_result_opens_a_turn_that_a_user_message_then_replaces_unreplied():
    assert completed_turn_starts([TOOL, user("b"), ASSISTANT]) == (1,)


def test_only_an_assistant_marks_a_turn_replied():
    assert completed_turn_starts([user("a"), OTHER, user("b")]) == ()


def test_a_malformed_text_block_has_its_media_reference_scrubbed_and_stays_raw():
    block: JSON = {"type": "text", "text": "see media://inbound/abc", "textSignature": 5}
    plain: JSON = {"type": "text", "text": "nothing here", "textSignature": 5}
    history = [msg("user", [block, plain]), ASSISTANT, *FOUR_TURNS]
    pruned = prune_processed_history_images(history)
    assert pruned is not None
    assert messages_to_json(pruned[:1]) == [
        {"role": "user", "content": [{"type": "text", "text": f"see {MARKER}", "textSignature": 5}, plain]}
    ]
    assert pruned[1:] == tuple(history[1:])


def test_old_text_blocks_without_media_leave_the_history_unchanged():
    raw_block: JSON = {"type": "text", "text": "see [no media]", "textSignature": 5}
    history = [msg("user", [{"type": "text", "text": "plain [x]"}, raw_block]), ASSISTANT, *FOUR_TURNS]
    assert prune_processed_history_images(history) is None


IMAGE = msg("user", [{"type": "image", "data": "abc", "mimeType": "image/png"}])


def test_three_completed_turns_protect_even_an_unreplied_image_before_them():
    history = [IMAGE, *[user(), ASSISTANT] * 3]
    assert completed_turn_starts(history) == (1, 3, 5)
    assert prune_processed_history_images(history) is None


def test_the_2026_9_6_count_leaves_out_the_open_turn():
    history = [IMAGE, ASSISTANT, *[user(), ASSISTANT] * 3]
    pruned = prune_processed_history_images(history)
    assert pruned is not None and messages_to_json(pruned[:1]) == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "[image data removed - already processed by model]"}],
        }
    ]
    assert prune_processed_history_images(history, count_open_turn=False) is None


def test_a_block_of_another_type_keeps_a_media_reference_in_its_text_field():
    note: JSON = {"type": "note", "text": "see media://inbound/abc"}
    history = [msg("user", [note]), ASSISTANT, *FOUR_TURNS]
    assert prune_processed_history_images(history) is None
