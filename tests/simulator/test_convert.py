"""Converters to runtime-native shapes (with origins) and the per-runtime token estimates built on them."""

from __future__ import annotations

import json
import math

from hypothesis import given
from hypothesis import strategies as st

from simulator.convert import to_ai_profile, to_openclaw, to_zeroclaw_chat, to_zeroclaw_conversation
from simulator.estimates import (
    ai_profile_estimate,
    ai_profile_message_tokens,
    estimate_string_chars,
    openclaw_estimate_chars,
    openclaw_estimate_tokens,
    openclaw_message_chars,
    serde_json_compact,
    tiktoken_count,
    tiktoken_transcript_count,
    zeroclaw_estimate,
)
from simulator.importers import parse_transcript
from simulator.transcript import ImagePart, Message, Role, TextPart, ThinkingPart, ToolCall, ToolResult, Usage
from tests.support import CONFORMANCE_DIR

MESSAGES = (
    Message(Role.SYSTEM, (TextPart("sys"),)),
    Message(Role.USER, (TextPart("look"), ImagePart("base64", "AAAA", "image/png")), timestamp_ms=1000),
    Message(
        Role.ASSISTANT,
        (ThinkingPart("hmm", signature="sig"), TextPart("calling")),
        tool_calls=(ToolCall("t1", "read", '{"p":"a"}'), ToolCall("t2", "ls", "{}")),
        usage=Usage(input_tokens=5, output_tokens=6, cache_read_tokens=7),
        model="m",
        provider="p",
    ),
    Message(Role.TOOL, (TextPart("A"),), tool_result=ToolResult("t1", "read")),
    Message(Role.TOOL, (TextPart("B"),), tool_result=ToolResult("t2", "ls", is_error=True)),
    Message(Role.USER, (TextPart("thanks"),)),
    Message(Role.ASSISTANT, (TextPart("bye"),)),
)


def test_zeroclaw_chat_conversion_encodes_tool_calls_and_image_markers_as_zeroclaw_does():
    converted = to_zeroclaw_chat(MESSAGES)
    assert converted.messages[1] == {"role": "user", "content": "look[IMAGE:data:image/png;base64,AAAA]"}
    assert converted.messages[2] == {
        "role": "assistant",
        "content": '{"content":"calling","tool_calls":['
        '{"id":"t1","name":"read","arguments":"{\\"p\\":\\"a\\"}"},'
        '{"id":"t2","name":"ls","arguments":"{}"}],"reasoning_content":"hmm"}',
    }
    assert converted.messages[3] == {"role": "tool", "content": '{"tool_call_id":"t1","content":"A"}'}
    assert converted.origins == tuple((i,) for i in range(7))


def test_zeroclaw_conversation_conversion_groups_consecutive_tool_results():
    converted = to_zeroclaw_conversation(MESSAGES)
    assert [r["type"] for r in converted.messages] == [
        "Chat",
        "Chat",
        "AssistantToolCalls",
        "ToolResults",
        "Chat",
        "Chat",
    ]
    assert converted.messages[3]["data"] == [
        {"tool_call_id": "t1", "content": "A", "tool_name": "read"},
        {"tool_call_id": "t2", "content": "B", "tool_name": "ls"},
    ]
    assert converted.origins[3] == (3, 4)


def test_ai_profile_conversion_drops_system_and_regroups_tool_results_into_one_user_message():
    converted = to_ai_profile(MESSAGES)
    assert [m["role"] for m in converted.messages] == ["user", "assistant", "user", "user", "assistant"]
    assert converted.origins == ((1,), (2,), (3, 4), (5,), (6,))
    assert converted.messages[1]["content"][-2:] == [
        {"type": "tool_use", "id": "t1", "name": "read", "input": {"p": "a"}},
        {"type": "tool_use", "id": "t2", "name": "ls", "input": {}},
    ]
    assert converted.messages[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "t1", "content": "A"},
        {"type": "tool_result", "tool_use_id": "t2", "content": "B", "is_error": True},
    ]
    assert converted.messages[3] == {"role": "user", "content": "thanks"}
    assert converted.model_indices([1, 2]) == (2, 3, 4)


def test_openclaw_conversion_produces_agent_messages_with_usage_and_timestamps():
    converted = to_openclaw(MESSAGES)
    user, assistant, first_result, second_result, *_ = converted.messages
    assert user == {
        "role": "user",
        "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
        ],
        "timestamp": 1000,
    }
    assert assistant["content"][0] == {"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig"}
    assert assistant["content"][2] == {
        "type": "toolCall",
        "id": "t1",
        "name": "read",
        "arguments": {"p": "a"},
    }
    assert assistant["usage"]["cacheRead"] == 7
    assert assistant["stopReason"] == "toolUse"
    assert first_result["toolName"] == "read" and not first_result["isError"]
    assert second_result["isError"]
    assert converted.origins[0] == (1,)


def test_openclaw_session_round_trips_through_to_openclaw_for_its_message_fields():
    agent_messages = [
        {"role": "user", "content": "hi", "timestamp": 1},
        {
            "role": "assistant",
            "content": [{"type": "toolCall", "id": "c", "name": "exec", "arguments": {"cmd": "ls"}}],
            "provider": "anthropic",
            "model": "claude",
            "usage": {
                "input": 1,
                "output": 2,
                "cacheRead": 3,
                "cacheWrite": 4,
                "totalTokens": 10,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
            },
            "stopReason": "toolUse",
            "timestamp": 2,
        },
        {
            "role": "toolResult",
            "toolCallId": "c",
            "toolName": "exec",
            "content": [{"type": "text", "text": "x"}],
            "isError": False,
            "timestamp": 3,
        },
    ]
    lines = [{"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/"}]
    parent = None
    for i, message in enumerate(agent_messages):
        lines.append(
            {
                "type": "message",
                "id": f"e{i}",
                "parentId": parent,
                "timestamp": "2026-01-01T00:00:00Z",
                "message": message,
            }
        )
        parent = f"e{i}"
    transcript = parse_transcript("\n".join(json.dumps(line) for line in lines))
    assert list(to_openclaw(transcript.messages).messages) == agent_messages


def test_compaction_summary_goes_back_to_its_own_role_for_openclaw():
    summary = Message(
        Role.USER,
        (
            TextPart(
                "The conversation history before this point was compacted into the following summary:\n\n"
                "<summary>\nS\n</summary>"
            ),
        ),
        variant="compaction_summary",
    )
    assert to_openclaw([summary]).messages[0] == {
        "role": "compactionSummary",
        "summary": "S",
        "tokensBefore": 0,
    }
    assert openclaw_estimate_chars([summary]) == 256


def test_zeroclaw_estimate_is_bytes_over_four_rounded_up_plus_four_per_message():
    messages = [Message(Role.USER, (TextPart("日本語"),)), Message(Role.ASSISTANT, (TextPart("hi"),))]
    assert zeroclaw_estimate(messages) == (3 + 4) + (1 + 4)
    expected = sum(math.ceil(len(m["content"].encode()) / 4) + 4 for m in to_zeroclaw_chat(MESSAGES).messages)
    assert zeroclaw_estimate(MESSAGES) == expected


def test_ai_profile_estimate_matches_the_worked_examples():
    assert ai_profile_estimate([Message(Role.USER, (TextPart("hi"),))]) == 12
    assert ai_profile_estimate([Message(Role.ASSISTANT, (TextPart("hello"),))]) == 16
    assert ai_profile_estimate([Message(Role.SYSTEM, (TextPart("ignored"),))]) == 0
    tool_use = Message(Role.ASSISTANT, (TextPart("x"),), tool_calls=(ToolCall("t1", "x", "{}"),))
    assert (
        ai_profile_message_tokens(
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "x", "input": {}}]}
        )
        == 39
    )
    assert ai_profile_estimate([tool_use]) > 39


def test_ai_profile_message_tokens_match_every_estimate_vector():
    for name in ("golden_generated.json", "upstream_history_unit_tests.json"):
        for case in json.loads((CONFORMANCE_DIR / "ai_profile" / name).read_text(encoding="utf-8")):
            if case["function"] == "estimate_tokens":
                got = min(sum(ai_profile_message_tokens(m) for m in case["input"]["messages"]), 2**32 - 1)
                assert got == case["expected"], case["name"]


def test_serde_float_formatting_follows_ryu_rules():
    assert [
        serde_json_compact(x)
        for x in (1e-7, 1e16, 1e20, 1.5e300, 0.00001, 100.0, -0.0, 0.5, 1.2345678901234568e17)
    ] == [
        "1e-7",
        "1e16",
        "1e20",
        "1.5e300",
        "0.00001",
        "100.0",
        "-0.0",
        "0.5",
        "1.2345678901234568e17",
    ]


def test_openclaw_string_chars_match_the_estimate_vectors():
    for case in json.loads(
        (CONFORMANCE_DIR / "openclaw" / "upstream_estimate_chars.json").read_text(encoding="utf-8")
    ):
        assert estimate_string_chars(case["input"]) == case["expected"], case["name"]


def test_openclaw_message_chars_match_the_pruner_vectors_total_before():
    checked = 0
    for path in sorted((CONFORMANCE_DIR / "openclaw").glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            debug = case.get("debug")
            if (
                case["function"] != "pruneContextMessages"
                or not isinstance(debug, dict)
                or "estimatedCharsBefore" not in debug
                or case["input"].get("dropThinkingBlocksForEstimate")
            ):
                continue
            assert (
                sum(openclaw_message_chars(m) for m in case["input"]["messages"])
                == debug["estimatedCharsBefore"]
            )
            checked += 1
    assert checked >= 20


def test_openclaw_estimate_counts_images_at_8000_and_tokens_at_a_quarter():
    chars = openclaw_estimate_chars(MESSAGES)
    # user "look" + image, assistant thinking+sig+text+two argument objects, two results, "thanks", "bye"
    assert chars == 4 + 8000 + (3 + 3 + 7 + len('{"p":"a"}') + 2) + 1 + 1 + 6 + 3
    assert openclaw_estimate_tokens(MESSAGES) == math.ceil(chars / 4)


def test_tiktoken_count_uses_o200k_offline():
    assert tiktoken_count("") == 0
    assert tiktoken_count("hello world") == 2
    assert tiktoken_count("<|endoftext|>") > 1
    assert tiktoken_transcript_count(MESSAGES) >= tiktoken_count("calling")


@given(st.lists(st.sampled_from(MESSAGES), max_size=12))
def test_every_native_message_maps_back_to_at_least_one_model_message_once(messages):
    for convert in (to_zeroclaw_chat, to_zeroclaw_conversation, to_ai_profile, to_openclaw):
        converted = convert(messages)
        assert len(converted.messages) == len(converted.origins)
        flat = [i for origin in converted.origins for i in origin]
        assert flat == sorted(set(flat))
        assert all(origin for origin in converted.origins)
        skipped = {
            i
            for i, m in enumerate(messages)
            if m.role is Role.SYSTEM and convert in (to_ai_profile, to_openclaw)
        }
        assert set(flat) | skipped == set(range(len(messages)))
