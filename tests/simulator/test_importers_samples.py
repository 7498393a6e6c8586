"""The real third-party transcripts in the shared samples folder import with the expected shape."""

from __future__ import annotations

from simulator.importers import detect_format, parse_transcript
from simulator.transcript import Role
from simulator.turns import lint_tool_pairs, segment_turns
from tests.support import SAMPLES_DIR

SWE = SAMPLES_DIR / "sweagent_marshmallow-1867_function_calling.traj.json"
CLAUDE = SAMPLES_DIR / "claude_code_sample_session.jsonl"
CACHE_TTL = SAMPLES_DIR / "cache_ttl_marker_entry.CONSTRUCTED.jsonl"


def _read(path):
    return path.read_text(encoding="utf-8")


def test_every_sample_file_imports():
    files = [p for p in SAMPLES_DIR.iterdir() if p.is_file() and p.name != "README.md"]
    assert len(files) == 3
    for path in files:
        assert parse_transcript(_read(path), source=path.name).format


def test_swe_agent_sample_is_detected_and_has_one_system_one_user_eleven_calls_and_results():
    transcript = parse_transcript(_read(SWE))
    roles = [m.role for m in transcript.messages]
    assert transcript.format == "swe-agent"
    assert len(transcript.messages) == 24
    assert roles.count(Role.SYSTEM) == 1
    assert roles.count(Role.USER) == 1
    assert roles.count(Role.ASSISTANT) == 11
    assert roles.count(Role.TOOL) == 11
    assert all(m.tool_calls for m in transcript.messages if m.role is Role.ASSISTANT)


def test_swe_agent_sample_is_one_turn_with_eleven_pairs_and_no_orphans():
    messages = parse_transcript(_read(SWE)).messages
    turns = [g for g in segment_turns(messages) if g.kind == "turn"]
    report = lint_tool_pairs(messages)
    assert len(turns) == 1
    assert (turns[0].start, turns[0].end) == (1, 24)
    assert len(report.pairs) == 11
    assert report.orphan_calls == ()
    assert report.orphan_results == ()
    assert all(p.result_index == p.call_index + 1 for p in report.pairs)


def test_swe_agent_sample_reuses_three_call_ids_which_the_lint_reports():
    report = lint_tool_pairs(parse_transcript(_read(SWE)).messages)
    assert report.duplicate_call_ids == (
        "call_5iDdbOYybq7L19vqXmR0DPaU",
        "call_ahToD2vM0aQWJPkRmy5cumru",
        "call_q3VsBszvsntfyPkxeHq4i5N1",
    )


def test_swe_agent_sample_tool_results_get_the_tool_name_of_their_call():
    messages = parse_transcript(_read(SWE)).messages
    assert messages[3].tool_result is not None
    assert messages[3].tool_result.name == "create"
    assert messages[3].source.record == 3
    assert messages[3].raw["tool_call_ids"] == ["call_cyI71DYnRdoLHWwtZgIaW2wr"]


def test_claude_code_sample_has_seven_messages_two_turns_and_two_pairs():
    transcript = parse_transcript(_read(CLAUDE))
    messages = transcript.messages
    assert detect_format(_read(CLAUDE)) == "claude-code"
    assert [m.role.value for m in messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "user",
        "assistant",
    ]
    assert len([g for g in segment_turns(messages) if g.kind == "turn"]) == 2
    report = lint_tool_pairs(messages)
    assert [(p.call_id, p.call_index, p.result_index) for p in report.pairs] == [
        ("toolu_001", 1, 2),
        ("toolu_002", 3, 4),
    ]
    assert report.ok


def test_claude_code_sample_keeps_session_title_lines_and_timestamps():
    transcript = parse_transcript(_read(CLAUDE))
    first = transcript.messages[0]
    assert transcript.session_id == "test-session-id"
    assert transcript.title == "Test session for JSONL parsing"
    assert first.source.line == 2
    assert first.id == "msg-001"
    assert first.timestamp_ms == 1766570400000
    assert transcript.messages[2].tool_result is not None
    assert transcript.messages[2].tool_result.name == "Write"
    assert transcript.messages[1].tool_calls[0].arguments.startswith('{"file_path":"/project/hello.py"')


def test_cache_ttl_marker_sample_becomes_one_marker_and_no_messages():
    transcript = parse_transcript(_read(CACHE_TTL))
    assert transcript.format == "openclaw"
    assert transcript.messages == ()
    (marker,) = transcript.cache_ttl_markers
    assert marker.timestamp_ms == 1772975100000
    assert marker.provider == "anthropic"
    assert marker.model_id == "claude-sonnet-4-6"
    assert marker.after_message == 0
