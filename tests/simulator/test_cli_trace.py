"""`python -m simulator trace`: JSON matches with their calls and rules, re-reads, clear errors."""

from __future__ import annotations

import json
import subprocess
import sys

from simulator.cli import main
from tests.simulator.test_trace import _chat


def _session(tmp_path):
    path = tmp_path / "session.json"
    path.write_text(_chat(10, reread_path="config.toml"), encoding="utf-8")
    profile = tmp_path / "tight.toml"
    profile.write_text("[runtime_profiles.main]\nmax_context_tokens = 4000\n")
    return path, profile


def test_json_lists_each_match_with_its_calls_departure_and_rule(tmp_path, capsys):
    path, profile = _session(tmp_path)
    code = main(["trace", str(path), "--profile", str(profile), "--find", "config.toml", "--json"])
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert [
        {k: m[k] for k in ("message_index", "role", "in_context_calls", "left_at_call", "rule")}
        for m in payload["matches"]
    ] == [
        {
            "message_index": 2,
            "role": "assistant",
            "in_context_calls": [2, 15],
            "left_at_call": 16,
            "rule": "dropped-turn",
        },
        {
            "message_index": 38,
            "role": "assistant",
            "in_context_calls": [20, 20],
            "left_at_call": None,
            "rule": None,
        },
    ]
    assert [(r["tool"], r["again_call"], r["left_at_call"]) for r in payload["rereads"]] == [("read", 19, 16)]


def test_the_report_names_the_rule_and_the_reread(tmp_path, capsys):
    path, profile = _session(tmp_path)
    assert main(["trace", str(path), "--profile", str(profile), "--find", "MUST", "--regex"]) == 0
    out = capsys.readouterr().out
    assert "#1 user: in full at calls 1–15; left at call 16: dropped-turn (token budget 4,000" in out
    assert "1 re-read(s) after forgetting" in out


def test_a_bad_regex_exits_2_with_the_problem(tmp_path):
    path, profile = _session(tmp_path)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "simulator",
            "trace",
            str(path),
            "--profile",
            str(profile),
            "--find",
            "a(b",
            "--regex",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "invalid regular expression: missing ), unterminated subpattern at position 1" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_unknown_profile_exits_2(tmp_path, capsys):
    path, _ = _session(tmp_path)
    assert main(["trace", str(path), "--profile", "nope", "--find", "x"]) == 2
    assert "no such file and no such preset" in capsys.readouterr().err
