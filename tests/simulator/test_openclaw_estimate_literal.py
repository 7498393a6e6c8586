"""OpenClaw's character estimate on the shapes its pruner meets, with literal counts (estimateStringChars)."""

from __future__ import annotations

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.estimate import (
    drop_thinking_blocks,
    estimate_assistant_block,
    estimate_context_chars,
    estimate_message_chars,
    estimate_string_chars,
    estimate_text_and_image_block,
)
from simulator.runtimes.openclaw.messages import (
    block_from_json,
    message_from_json,
    messages_from_json,
    messages_to_json,
)


def message(raw: JSON) -> int:
    return estimate_message_chars(message_from_json(raw))


def test_the_last_astral_pair_upstream_collapses_is_u_2fbff():
    # "中" makes the text non-Latin; U+2FBFF (high surrogate D87E) then counts one unit, U+2FC00 (D87F) two.
    assert estimate_string_chars("\U0002fbff中") == 3 - 1 + 3
    assert estimate_string_chars("\U0002fc00中") == 3 + 3


def test_content_that_is_neither_text_nor_a_list_counts_nothing():
    assert message({"role": "user", "content": None}) == 0
    assert message({"role": "assistant", "content": "plain text is not iterated"}) == 0
    assert message({"role": "toolResult", "content": None}) == 0


def test_a_block_that_is_not_an_object_or_of_an_unknown_type_counts_nothing():
    assert estimate_text_and_image_block(block_from_json(None)) == 0
    assert estimate_text_and_image_block(block_from_json({"type": "video", "url": "x"})) == 0
    assert estimate_assistant_block(block_from_json(7)) == 0
    assert estimate_assistant_block(block_from_json({"type": "audio"})) == 0


def test_a_malformed_text_block_with_string_text_counts_its_text():
    # A numeric signature makes the block raw; its text is still a string and is what counts.
    assert (
        estimate_text_and_image_block(block_from_json({"type": "text", "text": "hello", "textSignature": 5}))
        == 5
    )


def test_a_text_block_without_string_text_counts_its_json():
    assert estimate_text_and_image_block(block_from_json({"type": "text", "text": 5})) == len(
        '{"type":"text","text":5}'
    )


def test_an_assistant_text_field_that_is_not_a_string_counts_nothing():
    assert estimate_assistant_block(block_from_json({"type": "text", "text": 5})) == 0


def test_redacted_thinking_counts_thinking_data_and_signature():
    block = block_from_json(
        {"type": "redacted_thinking", "data": "abc", "thinking": "xy", "thinkingSignature": "s"}
    )
    assert estimate_assistant_block(block) == 2 + 3 + 1


def test_a_tool_call_without_arguments_counts_an_empty_object():
    assert estimate_assistant_block(block_from_json({"type": "toolCall", "id": "c1", "name": "read"})) == len(
        "{}"
    )


def test_the_context_estimate_adds_every_message():
    history = [
        message_from_json({"role": "user", "content": "abcd"}),
        message_from_json({"role": "custom", "content": "x"}),
        message_from_json({"role": "toolResult", "content": [{"type": "image", "data": "..."}]}),
    ]
    assert estimate_context_chars(history) == 4 + 256 + 8_000
    assert estimate_context_chars([]) == 0


THINK: JSON = {"type": "thinking", "thinking": "hmm", "thinkingSignature": "s"}
REDACTED: JSON = {"type": "redacted_thinking", "data": "zzz"}
TEXT: JSON = {"type": "text", "text": "answer"}


def assistant(*blocks: JSON) -> JSON:
    return {"role": "assistant", "content": list(blocks), "timestamp": 7}


def test_thinking_is_dropped_from_every_assistant_but_the_latest_with_block_content():
    history = messages_from_json(
        [
            assistant(THINK, TEXT),
            {"role": "user", "content": [THINK]},
            assistant(REDACTED),
            {"role": "assistant", "content": "string content is left alone"},
            assistant(TEXT),
            assistant(THINK, TEXT),
            {"role": "custom", "content": "x"},
        ]
    )
    dropped = drop_thinking_blocks(history)
    assert messages_to_json(dropped[:3]) == [
        assistant(TEXT),
        {"role": "user", "content": [THINK]},
        assistant({"type": "text", "text": "[assistant reasoning omitted]"}),
    ]
    assert all(dropped[i] is history[i] for i in (1, 3, 4, 5, 6))


def test_the_latest_assistant_keeps_its_thinking_even_first_in_the_history():
    history = messages_from_json([assistant(THINK, TEXT), {"role": "user", "content": [TEXT]}])
    assert drop_thinking_blocks(history) == history


def test_no_messages_drop_nothing():
    assert drop_thinking_blocks([]) == ()
