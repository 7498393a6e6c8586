"""OpenClaw session JSONL v3: active branch, cache-ttl markers, images, thinking, compaction and errors."""

from __future__ import annotations

import json

import pytest

from simulator.errors import TranscriptParseError
from simulator.importers import detect_format, parse_transcript
from simulator.transcript import ImagePart, Role, TextPart, ThinkingPart

HEADER = {
    "type": "session",
    "version": 3,
    "id": "sess-1",
    "timestamp": "2026-03-08T13:00:00.000Z",
    "cwd": "/w",
}


def _entry(kind, entry_id, parent, **fields):
    return {
        "type": kind,
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-03-08T13:00:01.000Z",
        **fields,
    }


def _usage(inp, out, read=0, write=0):
    cost = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    return {
        "input": inp,
        "output": out,
        "cacheRead": read,
        "cacheWrite": write,
        "totalTokens": inp + out,
        "cost": cost,
    }


def _marker(entry_id, parent, ts):
    data = {"timestamp": ts, "provider": "anthropic", "modelId": "claude-sonnet-4-6"}
    return _entry("custom", entry_id, parent, customType="openclaw.cache-ttl", data=data)


def _jsonl(records):
    return "\n".join(json.dumps(r) for r in records) + "\n"


BRANCHED = [
    HEADER,
    _entry(
        "message",
        "a0000001",
        None,
        message={
            "role": "user",
            "content": [
                {"type": "text", "text": "look at this"},
                {"type": "image", "data": "iVBORw0", "mimeType": "image/png"},
            ],
            "timestamp": 1772974800000,
        },
    ),
    _entry(
        "message",
        "a0000002",
        "a0000001",
        message={
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "need the file", "thinkingSignature": "sig"},
                {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "a.txt"}},
            ],
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-sonnet-4-6",
            "usage": _usage(10, 5, read=100, write=7),
            "stopReason": "toolUse",
            "timestamp": 1772974801000,
        },
    ),
    _entry(
        "message",
        "a0000003",
        "a0000002",
        message={
            "role": "toolResult",
            "toolCallId": "call_1",
            "toolName": "read",
            "content": [{"type": "text", "text": "file body"}],
            "isError": False,
            "timestamp": 1772974802000,
        },
    ),
    _marker("a0000004", "a0000003", 1772974803000),
    _entry(
        "message",
        "a0000005",
        "a0000004",
        message={"role": "assistant", "content": [{"type": "text", "text": "abandoned"}]},
    ),
    _entry("model_change", "a0000006", "a0000004", provider="anthropic", modelId="claude-opus-4-1"),
    _entry(
        "message",
        "a0000007",
        "a0000006",
        message={
            "role": "assistant",
            "content": [{"type": "text", "text": "chosen"}],
            "model": "claude-opus-4-1",
        },
    ),
    _marker("a0000008", "a0000007", 1772974900000),
    _entry(
        "message",
        "a0000009",
        "a0000008",
        message={"role": "user", "content": "thanks", "timestamp": 1772975000000},
    ),
]


def test_openclaw_session_is_detected_by_its_header_and_entry_tree():
    assert detect_format(_jsonl(BRANCHED)) == "openclaw"


def test_openclaw_import_follows_the_active_branch_from_the_last_entry():
    transcript = parse_transcript(_jsonl(BRANCHED))
    texts = [m.text for m in transcript.messages]
    assert [m.role for m in transcript.messages] == [
        Role.USER,
        Role.ASSISTANT,
        Role.TOOL,
        Role.ASSISTANT,
        Role.USER,
    ]
    assert "abandoned" not in texts
    assert texts[3] == "chosen"
    assert transcript.session_id == "sess-1"
    assert any("off the active branch" in w for w in transcript.warnings)


def test_openclaw_cache_ttl_markers_count_the_messages_before_them_on_the_branch():
    markers = parse_transcript(_jsonl(BRANCHED)).cache_ttl_markers
    assert [(m.after_message, m.timestamp_ms) for m in markers] == [(3, 1772974803000), (4, 1772974900000)]
    assert markers[0].model_id == "claude-sonnet-4-6"


def test_openclaw_images_thinking_tool_calls_and_usage_map_to_the_model():
    user, assistant, tool, _, last = parse_transcript(_jsonl(BRANCHED)).messages
    assert user.parts == (
        TextPart("look at this"),
        ImagePart(source="base64", data="iVBORw0", media_type="image/png"),
    )
    assert assistant.parts == (ThinkingPart("need the file", signature="sig"),)
    assert assistant.tool_calls[0].arguments == '{"path":"a.txt"}'
    assert assistant.usage is not None
    assert (
        assistant.usage.input_tokens,
        assistant.usage.cache_read_tokens,
        assistant.usage.cache_write_tokens,
    ) == (
        10,
        100,
        7,
    )
    assert assistant.usage.prompt_tokens == 117
    assert assistant.stop_reason == "toolUse"
    assert tool.tool_result is not None and tool.tool_result.name == "read"
    assert last.timestamp_ms == 1772975000000
    assert assistant.source.line == 3


def test_openclaw_entry_timestamp_fills_in_when_the_message_has_none():
    chosen = parse_transcript(_jsonl(BRANCHED)).messages[3]
    assert chosen.timestamp_ms == 1772974801000


def test_openclaw_compaction_sends_its_summary_then_the_kept_entries():
    records = [
        HEADER,
        _entry("message", "e1", None, message={"role": "user", "content": "u1"}),
        _entry(
            "message", "e2", "e1", message={"role": "assistant", "content": [{"type": "text", "text": "a1"}]}
        ),
        _entry("message", "e3", "e2", message={"role": "user", "content": "u2"}),
        _entry(
            "message", "e4", "e3", message={"role": "assistant", "content": [{"type": "text", "text": "a2"}]}
        ),
        _entry("compaction", "e5", "e4", summary="they said hi", firstKeptEntryId="e3", tokensBefore=1234),
        _entry("message", "e6", "e5", message={"role": "user", "content": "u3"}),
        _entry(
            "message", "e7", "e6", message={"role": "assistant", "content": [{"type": "text", "text": "a3"}]}
        ),
    ]
    transcript = parse_transcript(_jsonl(records))
    summary = transcript.messages[0]
    assert summary.role is Role.USER
    assert summary.variant == "compaction_summary"
    assert "<summary>\nthey said hi\n</summary>" in summary.text
    assert [m.text for m in transcript.messages[1:]] == ["u2", "a2", "u3", "a3"]
    assert any("compaction replaced 2 earlier entries" in w and "1234" in w for w in transcript.warnings)


def test_openclaw_malformed_line_is_skipped_and_named_with_its_line_number():
    lines = _jsonl(BRANCHED).splitlines()
    lines[2] = '{"type": "message", "id": "a0000002", '
    transcript = parse_transcript("\n".join(lines), source="s.jsonl")
    assert [(s.line, s.reason.split(":")[0]) for s in transcript.skipped_lines] == [(3, "invalid JSON")]
    assert transcript.format == "openclaw"


def test_openclaw_file_with_no_valid_line_is_refused_as_invalid_json():
    text = '{"type": "session", "version": 3,\n{"type": "message", "id": "a1",\n'
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript(text, source="s.jsonl")
    assert "invalid JSON" in info.value.reason
    assert "s.jsonl" in str(info.value)


def test_openclaw_message_without_a_role_names_the_line_and_field():
    records = [HEADER, _entry("message", "e1", None, message={"content": "no role"})]
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript(_jsonl(records), format="openclaw")
    assert info.value.line == 2
    assert info.value.reason == "message.role is missing"
    assert info.value.formats_tried == ("openclaw",)


def test_openclaw_other_custom_entries_and_labels_are_not_messages():
    records = [
        HEADER,
        _entry("message", "e1", None, message={"role": "user", "content": "hi"}),
        _entry("custom", "e2", "e1", customType="model-snapshot", data={"model": "x"}),
        _entry("label", "e3", "e2", targetId="e1", label="start"),
        _entry("custom_message", "e4", "e3", customType="note", content="injected", display=True),
    ]
    transcript = parse_transcript(_jsonl(records))
    assert [m.text for m in transcript.messages] == ["hi", "injected"]
    assert transcript.messages[1].variant == "custom_message"
    assert transcript.cache_ttl_markers == ()


def _good(n):
    parent = f"e{n - 1}" if n > 1 else None
    return _entry("message", f"e{n}", parent, message={"role": "user", "content": f"turn {n}"})


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (
            {"type": "bogus", "id": "e4", "parentId": "e3"},
            "type 'bogus' is not an OpenClaw session entry type",
        ),
        ({**_good(4), "parentId": 3}, "parentId must be a string, got number"),
        ({**_good(4), "timestamp": "yesterday"}, "timestamp is not an ISO-8601 time: 'yesterday'"),
        (
            {**_good(4), "message": {"role": "user", "content": [{"type": "text", "text": 7}]}},
            "message.content[0].text must be a string, got number",
        ),
        (
            {**_good(4), "message": {"role": "oracle"}},
            "message.role 'oracle' is not an OpenClaw AgentMessage role",
        ),
    ],
)
def test_an_entry_that_does_not_fit_after_good_ones_is_named_by_its_own_line(bad, reason):
    records = [HEADER, _good(1), _good(2), _good(3), bad, _good(5)]
    records[5]["parentId"] = "e4"
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript(_jsonl(records), format="openclaw")
    assert info.value.line == 5
    assert info.value.reason == reason


def test_dollar_costs_in_usage_are_neither_warned_about_nor_dropped():
    """pi writes ``usage.cost`` in dollars on every assistant line: floats that are no token counts."""
    usage = _usage(1200, 80, read=900, write=40)
    usage["cost"] = {
        "input": 0.0036,
        "output": 0.0012,
        "cacheRead": 0.00027,
        "cacheWrite": 0.00015,
        "total": 0.005,
    }
    records = [
        HEADER,
        _entry("message", "b1", None, message={"role": "user", "content": "hi", "timestamp": 1772974800000}),
        _entry(
            "message",
            "b2",
            "b1",
            message={
                "role": "assistant",
                "content": [{"type": "text", "text": "hello"}],
                "provider": "anthropic",
                "model": "claude-sonnet-4-6",
                "usage": usage,
                "stopReason": "stop",
                "timestamp": 1772974801000,
            },
        ),
    ]
    transcript = parse_transcript(_jsonl(records))
    assert not [w for w in transcript.warnings if "cost" in w]
    reply = transcript.messages[-1]
    assert reply.usage is not None and reply.usage.prompt_tokens is not None
    assert reply.raw["usage"]["cost"]["total"] == 0.005


def test_a_fractional_token_count_beside_a_cost_is_still_refused():
    usage = _usage(1200, 80)
    usage["input"] = 12.5
    usage["cost"] = {"total": 0.5}
    records = [
        HEADER,
        _entry("message", "c1", None, message={"role": "user", "content": "hi", "timestamp": 1772974800000}),
        _entry(
            "message",
            "c2",
            "c1",
            message={"role": "assistant", "content": "ok", "usage": usage, "timestamp": 1772974801000},
        ),
    ]
    transcript = parse_transcript(_jsonl(records))
    assert any("usage.input = 12.5" in w for w in transcript.warnings)
    assert not [w for w in transcript.warnings if "cost" in w]
