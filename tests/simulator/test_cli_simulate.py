"""`python -m simulator simulate`: readable report, JSON, comparisons, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulator.cli import main
from simulator.runtimes.ai_profile import OVERHEAD_TOKENS
from tests.support import SAMPLES_DIR

SWE = SAMPLES_DIR / "sweagent_marshmallow-1867_function_calling.traj.json"
CLAUDE = SAMPLES_DIR / "claude_code_sample_session.jsonl"


def test_default_profiles_replay_a_sample_and_compare_them(capsys):
    assert main(["simulate", str(SWE)]) == 0
    out = capsys.readouterr().out
    assert "profile zeroclaw-documented" in out and "profile ai-profile" in out and "profile openclaw" in out
    assert "first call where they differ:" in out
    assert "11 calls" in out


def test_json_output_has_one_record_per_call(capsys):
    assert main(["simulate", str(SWE), "--profile", "zeroclaw-upstream", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    (result,) = payload["results"]
    assert result["runtime"] == "zeroclaw" and result["version"] == "upstream"
    assert len(result["calls"]) == 11
    assert result["budget"]["value"] == 32000


def test_a_profile_file_is_read_in_the_runtime_keys(tmp_path, capsys):
    profile = tmp_path / "tight.toml"
    profile.write_text("[runtime_profiles.main]\nmax_context_tokens = 100\n")
    assert main(["simulate", str(CLAUDE), "--profile", str(profile)]) == 0
    out = capsys.readouterr().out
    assert "budget 100" in out and "✂ trimmed" in out and "[earlier turns omitted" not in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--profile", "no-such-preset"], "no such file and no such preset"),
        (["--profile", "{bad}"], "no such file"),
    ],
)
def test_bad_profile_exits_2_with_the_reason(args, message, capsys):
    assert main(["simulate", str(SWE), *args]) == 2
    assert message in capsys.readouterr().err


def test_invalid_profile_names_the_field(tmp_path, capsys):
    profile = tmp_path / "bad.toml"
    profile.write_text("[runtime_profiles.main]\nmax_context_tokens = -1\n")
    assert main(["simulate", str(SWE), "--profile", str(profile)]) == 2
    assert "runtime_profiles.main.max_context_tokens" in capsys.readouterr().err


def test_unreadable_transcript_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('[{"role": "user", "content": "x"}, {"role": 3}]')
    assert main(["simulate", str(bad)]) == 2
    assert "message 1" in capsys.readouterr().err


def _config(name: str) -> str:
    return str(Path(__file__).resolve().parents[1] / "fixtures" / "configs" / name)


def test_a_config_file_simulates_every_profile_it_yields(capsys):
    assert main(["simulate", str(CLAUDE), "--profile", _config("zeroclaw_schema3.toml"), "--json"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert [(r["profile"], r["runtime"], r["budget"]["value"]) for r in results] == [
        ("coder", "zeroclaw", 180_000),
        ("helper", "zeroclaw", 6000),
    ]
    assert results[0]["provider_window"] == 200_000
    assert "kept, not modelled: runtime_profiles.ratio.keep_tool_context_turns" in results[0]["warnings"]


def test_file_hash_name_simulates_exactly_that_profile(capsys):
    ref = _config("ai_profile_presets.json") + "#deepseek"
    assert main(["simulate", str(CLAUDE), "--profile", ref, "--json"]) == 0
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert (result["profile"], result["runtime"]) == ("deepseek", "ai_profile")
    # The preset's default model window less max_tokens (4,096) and ai-profile's fixed overhead.
    assert result["budget"]["value"] == 1_000_000 - 4096 - OVERHEAD_TOKENS


def test_json5_openclaw_config_simulates_each_agent_with_its_warnings(capsys):
    assert main(["simulate", str(CLAUDE), "--profile", _config("openclaw.json5"), "--json"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert [r["profile"] for r in results] == ["main", "local"]
    assert any("not consulted" in w for w in results[1]["warnings"])


def test_unknown_profile_name_in_a_file_exits_2_with_the_choices(capsys):
    assert main(["simulate", str(CLAUDE), "--profile", _config("zeroclaw_schema3.toml") + "#codr"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'coder'" in err and "coder, helper" in err


def test_unknown_key_in_a_profile_file_exits_2_naming_it(tmp_path, capsys):
    profile = tmp_path / "config.toml"
    profile.write_text("schema_version = 3\n[runtime_profiles.x]\nbogus_key = 1\n")
    assert main(["simulate", str(CLAUDE), "--profile", str(profile)]) == 2
    err = capsys.readouterr().err
    assert f"--profile {profile}" in err and "runtime_profiles.x.bogus_key" in err


def test_a_config_profile_shows_its_version_by_the_registry_label(capsys):
    ref = _config("zeroclaw_schema3.toml") + "#coder"
    assert main(["simulate", str(CLAUDE), "--profile", ref, "--json"]) == 0
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert (result["profile"], result["version"]) == ("coder", "documented")
    assert result["version_label"] == "proposed (PRs #9368, #9535)"
    assert any("released (v0.8.4) ignores it" in w for w in result["warnings"])
    assert main(["simulate", str(CLAUDE), "--profile", ref]) == 0
    assert "profile coder — ZeroClaw proposed (PRs #9368, #9535)" in capsys.readouterr().out
