"""Transcript shapes seen in real files: pre-id pi sessions, malformed JSONL lines, Claude Code ``loglines``
exports, SWE-agent demonstration YAML, provider error turns and Codex developer instructions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulator.convert import to_ai_profile, to_openclaw, to_zeroclaw_chat
from simulator.errors import TranscriptParseError
from simulator.importers import parse_transcript
from simulator.importers._yaml import MAX_YAML_CHARS
from simulator.overview import overview
from simulator.transcript import Role, SkippedLine

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


def _read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def _lines(records: list[dict[str, object]]) -> str:
    return "\n".join(json.dumps(r) for r in records) + "\n"


# pi / OpenClaw sessions written before entries had ids


def test_pi_v1_session_is_migrated_instead_of_refused_for_missing_ids():
    transcript = parse_transcript(_read("pi_session_v1.jsonl"))
    assert transcript.format == "openclaw"
    assert transcript.session_id == "sess-v1"
    assert any("migrated as pi's session manager does" in w for w in transcript.warnings)
    # Ids follow the file order and each entry is the child of the one before (pi's migrateV1ToV2).
    # The compaction (line 6) comes first as the summary, then the entries it keeps, then the rest.
    assert [m.id for m in transcript.messages] == [
        "v1-line-6",
        "v1-line-4",
        "v1-line-5",
        "v1-line-7",
        "v1-line-8",
        "v1-line-9",
        "v1-line-10",
    ]


def test_pi_v1_compaction_index_counts_the_header_and_keeps_entries_from_it():
    transcript = parse_transcript(_read("pi_session_v1.jsonl"))
    texts = [m.text for m in transcript.messages]
    # firstKeptEntryIndex 3 is the fourth parsed line (the header is index 0): the tool result on line 4.
    assert transcript.messages[0].variant == "compaction_summary"
    assert "The user asked for the files; there are two." in texts[0]
    assert transcript.messages[1].role is Role.TOOL and texts[1] == "a.py\nb.py"
    assert texts[2] == "Two files: a.py and b.py."
    assert "list the files" not in texts


def test_pi_v1_hook_message_becomes_a_custom_message_as_in_v3():
    transcript = parse_transcript(_read("pi_session_v1.jsonl"))
    custom = [m for m in transcript.messages if m.variant == "custom_message"]
    assert [m.text for m in custom] == ["Remember the style guide."]


def test_pi_v2_session_keeps_its_ids_and_renames_hook_message_only():
    records = [
        {"type": "session", "version": 2, "id": "s2", "timestamp": "2025-01-01T00:00:00Z", "cwd": "/"},
        {
            "type": "message",
            "id": "aa11bb22",
            "parentId": None,
            "timestamp": "2025-01-01T00:00:01Z",
            "message": {"role": "hookMessage", "customType": "x", "content": "hook text", "display": True},
        },
        {
            "type": "message",
            "id": "cc33dd44",
            "parentId": "aa11bb22",
            "timestamp": "2025-01-01T00:00:02Z",
            "message": {"role": "user", "content": "hi"},
        },
    ]
    transcript = parse_transcript(_lines(records))
    assert [(m.id, m.variant) for m in transcript.messages] == [
        ("aa11bb22", "custom_message"),
        ("cc33dd44", None),
    ]
    assert not any("migrated" in w for w in transcript.warnings)


def test_header_without_version_rechains_entries_linearly_as_pi_does():
    # pi treats a header without version as v1 and assigns fresh ids in file order, even over ids present.
    header = {"type": "session", "id": "s", "timestamp": "2025-01-01T00:00:00Z", "cwd": "/"}
    branched = [
        {"type": "message", "id": "x1", "parentId": None, "message": {"role": "user", "content": "one"}},
        {"type": "message", "id": "x2", "parentId": "x1", "message": {"role": "user", "content": "two"}},
        {"type": "message", "id": "x3", "parentId": "x1", "message": {"role": "user", "content": "three"}},
    ]
    transcript = parse_transcript(_lines([header, *branched]))
    assert [m.text for m in transcript.messages] == ["one", "two", "three"]


def test_entries_without_ids_and_without_a_header_are_migrated_too():
    entries = [
        {"type": "message", "message": {"role": "user", "content": "q"}},
        {
            "type": "message",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "a"}],
                "stopReason": "stop",
            },
        },
    ]
    transcript = parse_transcript(_lines(entries), format="openclaw")
    assert [m.text for m in transcript.messages] == ["q", "a"]


# provider error turns


def test_pi_error_turn_is_marked_with_the_provider_error():
    transcript = parse_transcript(_read("pi_session_v1.jsonl"))
    failed = [m for m in transcript.messages if m.error is not None]
    assert [(m.role, m.error, m.text, m.stop_reason) for m in failed] == [
        (Role.ASSISTANT, "fetch failed", "", "error")
    ]
    assert transcript.messages[-1].error is None


def test_failed_call_is_labelled_on_the_transcript_page_model():
    view = overview(parse_transcript(_read("pi_session_v1.jsonl")))
    rows = [r for b in view.blocks for r in b.rows]
    failed = [r for r in rows if r.error is not None]
    assert [(r.role_label, r.error) for r in failed] == [("assistant · failed call", "fetch failed")]
    assert view.failed_calls == 1


# malformed JSONL lines


def test_malformed_lines_are_skipped_and_every_one_named():
    transcript = parse_transcript(_read("openclaw_malformed_lines.jsonl"))
    assert [m.text for m in transcript.messages] == ["hello", "hi", "still there?", "yes"]
    assert [s.line for s in transcript.skipped_lines] == [4, 5]
    assert all(s.reason.startswith("invalid JSON: ") for s in transcript.skipped_lines)
    note = overview(transcript).skipped_note
    assert note is not None and note.startswith("2 malformed lines skipped: line 4 (invalid JSON")
    assert "line 5 (" in note


def test_a_line_that_is_json_but_not_an_object_is_skipped_with_its_type():
    text = _read("openclaw_malformed_lines.jsonl").replace("this line is not JSON at all", "[1, 2]")
    transcript = parse_transcript(text)
    assert transcript.skipped_lines[-1] == SkippedLine(5, "not a JSON object (list)")


def test_the_skipped_note_names_the_first_five_and_counts_the_rest():
    good = _read("openclaw_malformed_lines.jsonl").splitlines()[:3]
    text = "\n".join(good + ["{broken"] * 8) + "\n"
    note = overview(parse_transcript(text)).skipped_note
    assert note is not None
    assert note.startswith("8 malformed lines skipped: line 4 (")
    assert "line 8 (" in note and "line 9 (" not in note
    assert note.endswith("; and 3 more")


def test_a_jsonl_file_with_no_valid_line_is_refused():
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript('{"type": "session",\n{"type": "message"\n')
    assert "invalid JSON" in info.value.reason


def test_a_pretty_printed_json_document_with_an_error_still_names_its_line_and_column():
    text = '[\n  {"role": "user", "content": "a"},\n  {"role": "assistant", "content": "b"},\n]\n'
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript(text)
    assert info.value.reason.startswith("invalid JSON")
    assert info.value.line == 4


# Claude Code entries wrapped as {"loglines": [...]}


def test_loglines_export_reads_as_claude_code_placed_by_index():
    transcript = parse_transcript(_read("claude_code_loglines.json"))
    assert transcript.format == "claude-code"
    assert transcript.session_id == "web-session-7"
    assert [m.role for m in transcript.messages] == [
        Role.USER,
        Role.ASSISTANT,
        Role.TOOL,
        Role.ASSISTANT,
        Role.USER,
        Role.ASSISTANT,
    ]
    assert transcript.messages[2].source.record == 2 and transcript.messages[2].source.line is None


def test_claude_code_api_error_entry_is_a_failed_call():
    transcript = parse_transcript(_read("claude_code_loglines.json"))
    assert [(i, m.error) for i, m in enumerate(transcript.messages) if m.error] == [
        (3, "API Error: fetch failed")
    ]


def test_a_bad_logline_is_named_by_its_index():
    doc = json.loads(_read("claude_code_loglines.json"))
    doc["loglines"][1] = {"type": "assistant", "uuid": "a-1"}
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript(json.dumps(doc))
    assert info.value.message_index == 1
    assert "message" in info.value.reason


# SWE-agent demonstration YAML


def test_swe_agent_demonstration_yaml_is_read_with_its_tool_calls_and_results():
    transcript = parse_transcript(_read("swe_agent_demo.yaml"))
    assert transcript.format == "swe-agent"
    assert transcript.model == "claude-sonnet-4-20250514"
    roles = [m.role for m in transcript.messages]
    assert roles == [Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT, Role.TOOL]
    assert [c.id for c in transcript.messages[2].tool_calls] == ["call_ls_1"]
    assert transcript.messages[3].tool_result is not None
    assert (transcript.messages[3].tool_result.call_id, transcript.messages[3].tool_result.name) == (
        "call_ls_1",
        "bash",
    )
    # Literal blocks keep their line breaks, without the trailing one (|-).
    assert transcript.messages[3].text == "AUTHORS.rst\nsrc\ntests"


def test_forcing_swe_agent_reads_the_yaml_too():
    assert parse_transcript(_read("swe_agent_demo.yaml"), format="swe-agent").format == "swe-agent"


def test_plain_text_is_not_recognised_rather_than_invalid_json():
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript("Just some notes about the session.\nNothing structured here.\n")
    assert info.value.reason.startswith("format not recognised")
    assert "invalid JSON" not in info.value.reason


def test_a_yaml_mapping_of_another_kind_is_not_recognised():
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript("name: my-config\nversion: 3\n")
    assert info.value.reason == "format not recognised: a YAML mapping matching none of the known formats"


def test_broken_yaml_is_not_recognised_with_its_line():
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript("history:\n  - role: user\n    content: [unclosed\n")
    assert info.value.reason.startswith("format not recognised: the text is not JSON, JSON lines or YAML")
    assert info.value.line is not None


def test_yaml_aliases_that_expand_beyond_the_document_are_refused():
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n"
    for level in "bcdefghi":
        prev = chr(ord(level) - 1)
        bomb += (
            f"{level}: &{level} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
        )
    bomb += "history: *i\n"
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript(bomb)
    assert "aliases expand" in info.value.reason


def test_yaml_over_the_size_cap_is_refused_before_parsing():
    text = "history:\n" + "# padding\n" * (MAX_YAML_CHARS // 10 + 1)
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript(text)
    assert f"at most {MAX_YAML_CHARS:,}" in info.value.reason


# Codex developer instructions and compaction


def test_codex_developer_messages_are_developer_instructions_not_mid_turn_system():
    transcript = parse_transcript(_read("codex_rollout_developer.jsonl"))
    developer = [m for m in transcript.messages if m.variant == "developer_instructions"]
    assert [m.text for m in developer] == ["<collaboration_mode>Plan before acting.</collaboration_mode>"]
    assert developer[0].role is Role.SYSTEM
    rows = {r.index: r for b in overview(transcript).blocks for r in b.rows}
    index = transcript.messages.index(developer[0])
    assert rows[index].role_label == "developer instructions"


def test_codex_developer_instructions_reach_each_runtime_as_system_text():
    transcript = parse_transcript(_read("codex_rollout_developer.jsonl"))
    index = next(i for i, m in enumerate(transcript.messages) if m.variant == "developer_instructions")
    zeroclaw = to_zeroclaw_chat(transcript.messages)
    native = zeroclaw.messages[zeroclaw.origins.index((index,))]
    assert isinstance(native, dict) and native["role"] == "system"
    # ai-profile and OpenClaw take instructions only as the request's system prompt, never in history.
    assert all(index not in o for o in to_ai_profile(transcript.messages).origins)
    assert all(index not in o for o in to_openclaw(transcript.messages).origins)


def test_codex_remote_compaction_is_described_by_one_note():
    transcript = parse_transcript(_read("codex_rollout_developer.jsonl"))
    notes = [w for w in transcript.warnings if "compaction" in w]
    assert notes == [
        "line 9: Codex compaction: the 6 earlier messages are replaced by its replacement_history"
        " (1 messages); 1 opaque item(s) (encrypted compaction) are not sent in the replay"
    ]
    assert transcript.messages[0].text == "run the tests"


@pytest.mark.parametrize(
    "text",
    [
        '[{"role": "developer", "content": "be brief"}, {"role": "user", "content": "hi"}]',
        '[{"role": "user", "content": "hi"}, {"role": "developer", "content": "be brief"},'
        ' {"role": "user", "content": "more"}]',
    ],
)
def test_chat_completions_developer_messages_are_developer_instructions_too(text):
    transcript = parse_transcript(text)
    developer = [m for m in transcript.messages if m.variant == "developer_instructions"]
    assert [(m.role, m.text) for m in developer] == [(Role.SYSTEM, "be brief")]


@pytest.mark.parametrize(
    "text",
    [
        "[runtime_profiles.default]\nmax_context_tokens = 32000\n",  # a TOML config
        "{\n  // a JSON5 comment\n  agents: {}\n}\n",
    ],
)
def test_a_file_that_only_opens_like_json_is_not_recognised_rather_than_invalid_json(text):
    with pytest.raises(TranscriptParseError) as info:
        parse_transcript(text)
    assert info.value.reason.startswith("format not recognised")
