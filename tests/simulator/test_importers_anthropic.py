"""Anthropic Messages requests and Claude Code session JSONL import."""

from __future__ import annotations

import json

import pytest

from simulator.errors import TranscriptParseError
from simulator.importers import parse_transcript
from simulator.transcript import ImagePart, Role, ThinkingPart
from simulator.turns import lint_tool_pairs, segment_turns

REQUEST = {
    "model": "claude-sonnet-4-6",
    "system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}],
    "messages": [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "describe"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/"}},
                {"type": "image", "source": {"type": "url", "url": "https://example.com/x.png"}},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "two tools", "signature": "s1"},
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "tool_use", "id": "toolu_1", "name": "grep", "input": {"pattern": "x"}},
                {"type": "tool_use", "id": "toolu_2", "name": "ls", "input": {}},
            ],
            "usage": {
                "input_tokens": 10,
                "output_tokens": 20,
                "cache_read_input_tokens": 300,
                "cache_creation_input_tokens": 40,
            },
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "no match", "is_error": True},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": [{"type": "text", "text": "a b"}],
                },
                {"type": "text", "text": "and now?"},
            ],
        },
        {"role": "assistant", "content": "done"},
    ],
}


def test_anthropic_request_splits_tool_results_into_tool_messages_in_block_order():
    transcript = parse_transcript(json.dumps(REQUEST))
    roles = [m.role for m in transcript.messages]
    assert transcript.format == "anthropic"
    assert roles == [Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.TOOL, Role.TOOL, Role.USER, Role.ASSISTANT]
    first, second = transcript.messages[3], transcript.messages[4]
    assert first.tool_result is not None and first.tool_result.is_error
    assert first.tool_result.name == "grep"
    assert second.text == "a b"
    assert transcript.messages[5].text == "and now?"
    assert all(m.source.record == 2 for m in transcript.messages[3:6])


def test_anthropic_blocks_map_to_images_thinking_and_usage():
    messages = parse_transcript(json.dumps(REQUEST)).messages
    assert messages[0].text == "You are terse."
    assert messages[1].parts[1:] == (
        ImagePart(source="base64", data="/9j/", media_type="image/jpeg"),
        ImagePart(source="url", data="https://example.com/x.png"),
    )
    assert messages[2].parts == (
        ThinkingPart("two tools", signature="s1"),
        ThinkingPart("", signature="opaque", redacted=True),
    )
    assert messages[2].usage is not None and messages[2].usage.prompt_tokens == 350
    assert messages[2].tool_calls[0].arguments == '{"pattern":"x"}'


def test_anthropic_text_after_tool_results_starts_a_new_turn():
    messages = parse_transcript(json.dumps(REQUEST)).messages
    assert [(g.kind, g.start, g.end) for g in segment_turns(messages)] == [
        ("system", 0, 1),
        ("turn", 1, 5),
        ("turn", 5, 7),
    ]
    assert len(lint_tool_pairs(messages).pairs) == 2


def test_anthropic_tool_use_in_a_user_message_is_rejected_with_its_index():
    bad = {
        "messages": [{"role": "user", "content": [{"type": "tool_use", "id": "t", "name": "n", "input": {}}]}]
    }
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript(json.dumps(bad), format="anthropic")
    assert info.value.message_index == 0
    assert "tool_use block in a user message" in info.value.reason


def _cc(kind, uuid, parent, content, **extra):
    message = {"role": kind, "content": content, **extra}
    return json.dumps(
        {
            "type": kind,
            "uuid": uuid,
            "parentUuid": parent,
            "sessionId": "s",
            "timestamp": "2025-12-24T10:00:00Z",
            "message": message,
        }
    )


def test_claude_code_follows_the_parent_uuid_chain_and_merges_streamed_blocks():
    lines = [
        _cc("user", "u1", None, "start"),
        _cc("assistant", "a1", "u1", [{"type": "text", "text": "abandoned"}], id="msg_0"),
        _cc("assistant", "a2", "u1", [{"type": "text", "text": "let me look"}], id="msg_1"),
        _cc(
            "assistant",
            "a3",
            "a2",
            [{"type": "tool_use", "id": "toolu_9", "name": "Read", "input": {}}],
            id="msg_1",
            usage={"input_tokens": 3, "output_tokens": 4},
            model="claude-opus-4-1",
        ),
        _cc("user", "u2", "a3", [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "text"}]),
        _cc("assistant", "a4", "u2", [{"type": "text", "text": "ok"}], id="msg_2"),
    ]
    transcript = parse_transcript("\n".join(lines))
    assert transcript.format == "claude-code"
    assert [m.text for m in transcript.messages] == ["start", "let me look", "text", "ok"]
    merged = transcript.messages[1]
    assert [c.id for c in merged.tool_calls] == ["toolu_9"]
    assert merged.model == "claude-opus-4-1"
    assert transcript.model == "claude-opus-4-1"
    assert lint_tool_pairs(transcript.messages).ok


def test_claude_code_line_without_message_names_its_line():
    lines = [
        _cc("user", "u1", None, "hi"),
        json.dumps({"type": "assistant", "uuid": "a1", "parentUuid": "u1"}),
    ]
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript("\n".join(lines), format="claude-code")
    assert info.value.line == 2
    assert info.value.message_index is None
