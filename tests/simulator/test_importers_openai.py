"""OpenAI Chat Completions, Responses items and Codex rollout JSONL import."""

from __future__ import annotations

import json

import pytest

from simulator.errors import TranscriptParseError
from simulator.importers import detect_format, parse_transcript
from simulator.transcript import ImagePart, Role, TextPart, ThinkingPart
from simulator.turns import lint_tool_pairs

CHAT = [
    {"role": "developer", "content": "be brief"},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "what is in these?"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA", "detail": "low"}},
            {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
        ],
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "lookup", "arguments": '{"q":"cat"}'}}
        ],
        "usage": {
            "prompt_tokens": 120,
            "completion_tokens": 9,
            "total_tokens": 129,
            "prompt_tokens_details": {"cached_tokens": 100},
        },
    },
    {"role": "tool", "tool_call_id": "call_a", "content": [{"type": "text", "text": "a cat"}]},
    {"role": "assistant", "content": "A cat.", "function_call": {"name": "log", "arguments": "{}"}},
    {"role": "function", "name": "log", "content": "logged"},
]


def test_chat_completions_roles_parts_and_images_import():
    transcript = parse_transcript(json.dumps({"model": "gpt-4o", "messages": CHAT}))
    system, user, call, result, answer, legacy = transcript.messages
    assert transcript.format == "openai-chat"
    assert transcript.model == "gpt-4o"
    assert system.role is Role.SYSTEM
    assert user.parts == (
        TextPart("what is in these?"),
        ImagePart(source="base64", data="AAAA", media_type="image/png"),
        ImagePart(source="url", data="https://example.com/cat.jpg"),
    )
    assert call.tool_calls[0].arguments == '{"q":"cat"}'
    assert result.tool_result is not None and result.tool_result.name == "lookup"
    assert answer.text == "A cat."
    assert legacy.tool_result is not None and legacy.tool_result.call_id == answer.tool_calls[0].id


def test_chat_completions_usage_splits_cached_prompt_tokens():
    call = parse_transcript(json.dumps(CHAT)).messages[2]
    assert call.usage is not None
    assert (call.usage.input_tokens, call.usage.cache_read_tokens, call.usage.output_tokens) == (20, 100, 9)
    assert call.usage.prompt_tokens == 120


def test_chat_completions_legacy_function_pair_is_linted_as_a_pair():
    report = lint_tool_pairs(parse_transcript(json.dumps(CHAT)).messages)
    assert len(report.pairs) == 2
    assert report.ok


def test_chat_completions_non_string_arguments_error_names_the_message_and_field():
    bad = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "x"},
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": {}}}],
        },
    ]
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript(json.dumps(bad))
    assert info.value.message_index == 3
    assert info.value.reason == "tool_calls[0].function.arguments must be a string, got object"
    assert info.value.formats_tried[0] == "openai-chat"
    assert "message 3" in str(info.value)


RESPONSES = [
    {"role": "user", "content": "weather in Paris?"},
    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "call the tool"}]},
    {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Checking.", "annotations": []}],
    },
    {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "weather",
        "arguments": '{"city":"Paris"}',
    },
    {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "time", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "call_2", "output": "12:00"},
    {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Sunny at noon."}]},
]


def test_responses_items_merge_one_response_and_pair_by_call_id():
    transcript = parse_transcript(json.dumps(RESPONSES))
    roles = [m.role for m in transcript.messages]
    assert transcript.format == "openai-responses"
    assert roles == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.TOOL, Role.ASSISTANT]
    first = transcript.messages[1]
    assert first.parts == (ThinkingPart("call the tool"), TextPart("Checking."))
    assert [c.id for c in first.tool_calls] == ["call_1", "call_2"]
    report = lint_tool_pairs(transcript.messages)
    assert [(p.call_id, p.result_index) for p in report.pairs] == [("call_2", 2), ("call_1", 3)]
    assert (
        transcript.messages[2].tool_result is not None and transcript.messages[2].tool_result.name == "time"
    )


def test_responses_request_and_response_object_with_usage():
    doc = {
        "model": "gpt-5",
        "instructions": "be nice",
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
        "output": [
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hello"}]}
        ],
        "usage": {
            "input_tokens": 50,
            "input_tokens_details": {"cached_tokens": 20},
            "output_tokens": 3,
            "total_tokens": 53,
        },
    }
    transcript = parse_transcript(json.dumps(doc))
    assert [m.role for m in transcript.messages] == [Role.SYSTEM, Role.USER, Role.ASSISTANT]
    usage = transcript.messages[-1].usage
    assert usage is not None and (usage.input_tokens, usage.cache_read_tokens) == (30, 20)


def _codex_line(kind, payload, ts="2026-01-02T03:04:05.000Z"):
    return json.dumps({"timestamp": ts, "type": kind, "payload": payload})


def test_codex_rollout_jsonl_imports_items_usage_and_compaction():
    lines = [
        _codex_line("session_meta", {"id": "rollout-1", "cwd": "/w"}),
        _codex_line("turn_context", {"model": "gpt-5-codex", "cwd": "/w"}),
        _codex_line(
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "old"}]},
        ),
        _codex_line("compacted", {"message": "summary of old work"}),
        _codex_line(
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix it"}]},
        ),
        _codex_line("event_msg", {"type": "user_message", "message": "fix it"}),
        _codex_line(
            "response_item",
            {
                "type": "function_call",
                "name": "shell",
                "arguments": '{"command":["ls"]}',
                "call_id": "call_9",
            },
        ),
        _codex_line(
            "event_msg",
            {
                "type": "token_count",
                "info": {
                    "last_token_usage": {
                        "input_tokens": 900,
                        "cached_input_tokens": 800,
                        "output_tokens": 12,
                        "total_tokens": 912,
                    }
                },
            },
        ),
        _codex_line(
            "response_item", {"type": "function_call_output", "call_id": "call_9", "output": "a.txt"}
        ),
    ]
    text = "\n".join(lines)
    assert detect_format(text) == "openai-responses"
    transcript = parse_transcript(text)
    assert transcript.session_id == "rollout-1"
    assert transcript.model == "gpt-5-codex"
    # Codex's local compaction keeps the earlier user messages (within 20,000 tokens) before the summary.
    assert [m.text for m in transcript.messages[:2]] == ["old", "summary of old work"]
    assert [m.variant for m in transcript.messages] == [None, "compaction_summary", None, None, None]
    assert [w for w in transcript.warnings if "compaction" in w] == [
        "line 4: Codex compaction: the 1 earlier messages are replaced by 0 leading instruction(s),"
        " 1 earlier user message(s) (Codex keeps up to 20,000 tokens of them) and the summary"
    ]
    call = transcript.messages[3]
    assert call.usage is not None and call.usage.prompt_tokens == 900
    assert call.source.line == 7
    assert call.timestamp_ms == 1767323045000
    assert lint_tool_pairs(transcript.messages).ok
