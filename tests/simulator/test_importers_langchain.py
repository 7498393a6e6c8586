"""LangChain serialized and message-like dict import."""

from __future__ import annotations

import json

from simulator.importers import parse_transcript
from simulator.transcript import ImagePart, Role, ThinkingPart
from simulator.turns import lint_tool_pairs

SERIALIZED = [
    {"type": "system", "data": {"content": "sys", "additional_kwargs": {}, "type": "system"}},
    {
        "type": "human",
        "data": {
            "content": [
                {"type": "text", "text": "what is this"},
                {"type": "image", "source_type": "base64", "data": "QUJD", "mime_type": "image/png"},
            ],
            "id": "h1",
        },
    },
    {
        "type": "ai",
        "data": {
            "content": [{"type": "reasoning", "reasoning": "use a tool"}],
            "tool_calls": [{"name": "search", "args": {"q": "abc"}, "id": "call_s", "type": "tool_call"}],
            "usage_metadata": {
                "input_tokens": 100,
                "output_tokens": 7,
                "total_tokens": 107,
                "input_token_details": {"cache_read": 60, "cache_creation": 10},
            },
            "response_metadata": {"model_name": "gpt-4o-mini"},
            "id": "ai1",
        },
    },
    {
        "type": "tool",
        "data": {"content": "boom", "tool_call_id": "call_s", "name": "search", "status": "error"},
    },
    {"type": "ai", "data": {"content": "sorry", "tool_calls": []}},
]


def test_langchain_serialized_messages_import_with_usage_and_tool_calls():
    transcript = parse_transcript(json.dumps(SERIALIZED))
    system, human, ai, tool, last = transcript.messages
    assert transcript.format == "langchain"
    assert [m.role for m in transcript.messages] == [
        Role.SYSTEM,
        Role.USER,
        Role.ASSISTANT,
        Role.TOOL,
        Role.ASSISTANT,
    ]
    assert human.parts[1] == ImagePart(source="base64", data="QUJD", media_type="image/png")
    assert ai.parts == (ThinkingPart("use a tool"),)
    assert ai.tool_calls[0].arguments == '{"q":"abc"}'
    assert ai.usage is not None
    assert (ai.usage.input_tokens, ai.usage.cache_read_tokens, ai.usage.cache_write_tokens) == (30, 60, 10)
    assert ai.usage.prompt_tokens == 100
    assert ai.model == "gpt-4o-mini"
    assert tool.tool_result is not None and tool.tool_result.is_error
    assert last.text == "sorry"
    assert lint_tool_pairs(transcript.messages).ok


def test_langchain_message_like_dicts_with_langchain_role_names_import():
    simple = [
        {"role": "human", "content": "hi"},
        {"type": "ai", "content": "", "tool_calls": [{"name": "f", "args": {}, "id": "t1"}]},
        {"role": "tool", "content": "r", "tool_call_id": "t1"},
    ]
    transcript = parse_transcript(json.dumps(simple))
    assert transcript.format == "langchain"
    assert [m.role for m in transcript.messages] == [Role.USER, Role.ASSISTANT, Role.TOOL]
    assert transcript.messages[2].tool_result is not None and transcript.messages[2].tool_result.name == "f"
