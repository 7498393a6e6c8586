"""``python -m simulator inspect``: summary output, JSON output and error exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from simulator.cli import main
from tests.support import SAMPLES_DIR

SWE = SAMPLES_DIR / "sweagent_marshmallow-1867_function_calling.traj.json"
CLAUDE = SAMPLES_DIR / "claude_code_sample_session.jsonl"
CACHE_TTL = SAMPLES_DIR / "cache_ttl_marker_entry.CONSTRUCTED.jsonl"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


def _inspect_json(capsys, *args):
    assert main(["inspect", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_inspect_prints_format_counts_pairs_and_estimates_for_the_swe_agent_sample(capsys):
    assert main(["inspect", str(SWE)]) == 0
    out = capsys.readouterr().out
    assert "format:             swe-agent" in out
    assert "messages:           24 (system 1, user 1, assistant 11, tool 11)" in out
    assert "turns:              1" in out
    assert "tool pairs:         11" in out
    assert "orphan calls:       none" in out
    assert "orphan results:     none" in out
    assert "o200k tokenizer:" in out


def test_inspect_json_for_the_swe_agent_sample_has_exact_numbers(capsys):
    summary = _inspect_json(capsys, str(SWE))
    assert summary["format"] == "swe-agent"
    assert summary["messages"] == 24
    assert summary["turns"] == 1
    assert summary["tool_pairs"] == 11
    assert summary["orphan_calls"] == []
    assert summary["orphan_results"] == []
    assert len(summary["duplicate_call_ids"]) == 3
    estimates = summary["estimates"]
    assert set(estimates) == {
        "zeroclaw_tokens",
        "ai_profile_tokens",
        "openclaw_chars",
        "openclaw_tokens",
        "o200k_tokens",
    }
    assert all(isinstance(v, int) and v > 0 for v in estimates.values())


def test_inspect_json_for_the_claude_code_sample(capsys):
    summary = _inspect_json(capsys, str(CLAUDE))
    assert (summary["format"], summary["messages"], summary["turns"], summary["tool_pairs"]) == (
        "claude-code",
        7,
        2,
        2,
    )
    assert summary["roles"] == {"user": 2, "assistant": 3, "tool": 2}


def test_inspect_json_for_the_cache_ttl_marker_sample(capsys):
    summary = _inspect_json(capsys, str(CACHE_TTL))
    assert (summary["format"], summary["messages"], summary["cache_ttl_markers"]) == ("openclaw", 0, 1)


def test_inspect_reports_orphans_and_duplicate_ids(tmp_path, capsys):
    path = tmp_path / "chat.json"
    path.write_text(
        json.dumps(
            [
                {"role": "user", "content": "go"},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "ok"},
                {"role": "tool", "tool_call_id": "ghost", "content": "??"},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                    ],
                },
            ]
        ),
        encoding="utf-8",
    )
    summary = _inspect_json(capsys, str(path))
    assert summary["orphan_results"] == [{"id": "ghost", "message": 3}]
    assert summary["orphan_calls"] == [{"id": "c1", "message": 4}]
    assert summary["duplicate_call_ids"] == ["c1"]
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "orphan results:     ghost@3" in out
    assert "duplicate call ids: c1" in out


def test_inspect_exits_2_with_the_typed_error_on_stderr(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"type":"session","version":3,\n{"type":"message",\n', encoding="utf-8")
    assert main(["inspect", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "invalid JSON" in captured.err
    assert "line 2" in captured.err
    assert str(path) in captured.err


def test_inspect_with_a_forced_wrong_format_exits_2(capsys):
    assert main(["inspect", str(CLAUDE), "--format", "swe-agent"]) == 2
    assert "formats tried: swe-agent" in capsys.readouterr().err


def test_inspect_of_a_missing_file_exits_2(tmp_path, capsys):
    assert main(["inspect", str(tmp_path / "nope.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def _fixture(name):
    return FIXTURES / name


def test_inspect_reads_a_swe_agent_demonstration_yaml(capsys):
    summary = _inspect_json(capsys, str(_fixture("swe_agent_demo.yaml")))
    assert (summary["format"], summary["messages"], summary["tool_pairs"]) == ("swe-agent", 6, 2)


def test_inspect_names_every_skipped_line_in_text_and_json(capsys):
    path = str(_fixture("openclaw_malformed_lines.jsonl"))
    assert main(["inspect", path]) == 0
    out = capsys.readouterr().out
    assert "skipped: 2 malformed lines skipped: line 4 (invalid JSON" in out
    assert "line 5 (invalid JSON" in out
    summary = _inspect_json(capsys, path)
    assert [s["line"] for s in summary["skipped_lines"]] == [4, 5]
    assert summary["messages"] == 4


def test_inspect_shows_failed_calls_and_developer_instructions(capsys):
    assert main(["inspect", str(_fixture("pi_session_v1.jsonl"))]) == 0
    assert "failed calls:       1: #5 (fetch failed)" in capsys.readouterr().out
    summary = _inspect_json(capsys, str(_fixture("claude_code_loglines.json")))
    assert summary["failed_calls"] == [{"message": 3, "error": "API Error: fetch failed"}]
    summary = _inspect_json(capsys, str(_fixture("codex_rollout_developer.jsonl")))
    assert summary["developer_instructions"] == 1


def test_inspect_of_an_unknown_text_file_says_the_format_is_not_recognised(tmp_path, capsys):
    path = tmp_path / "notes.txt"
    path.write_text("Meeting notes\n- nothing here is a transcript\n", encoding="utf-8")
    assert main(["inspect", str(path)]) == 2
    err = capsys.readouterr().err
    assert "format not recognised" in err
    assert "invalid JSON" not in err
