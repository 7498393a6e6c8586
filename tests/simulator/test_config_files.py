"""Whole config files read as the runtimes read them: names, windows, migrations, kept keys, refusals."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from simulator.config_files import parse_config_text, read_config_text
from simulator.errors import ProfileError
from simulator.importers import parse_transcript
from simulator.profiles import (
    profile_from_document,
    profile_from_text,
    profile_to_document,
    profile_to_json,
    profile_to_toml,
)
from simulator.registry import versions
from simulator.replay import simulate
from simulator.runtimes.zeroclaw import resolve_budget
from tests.support import SAMPLES_DIR

CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "configs"


def _read(name: str):
    path = CONFIGS / name
    return read_config_text(path.read_text(encoding="utf-8"), filename=path.name)


def _kept(profile) -> dict[str, object]:
    return {k.path: k.value for k in profile.kept}


# -- ZeroClaw ------------------------------------------------------------------------------------------


def test_zeroclaw_agents_each_give_a_profile_named_after_the_agent():
    config = _read("zeroclaw_schema3.toml")
    assert config.runtime == "zeroclaw" and config.names() == ("coder", "helper")


def test_zeroclaw_ratio_applies_to_the_agents_provider_window_not_the_fallback():
    coder = _read("zeroclaw_schema3.toml").select("coder")
    resolution = resolve_budget(coder.settings)
    assert resolution.window == 200_000 and resolution.window_source == "Configured"
    assert resolution.budget == 180_000  # 0.9 × 200,000, not 0.9 × 32,000 = 28,800


def test_zeroclaw_agent_reads_its_own_runtime_profile_and_history_pruning():
    helper = _read("zeroclaw_schema3.toml").select("helper")
    s = helper.settings
    assert (s.max_context_tokens, s.max_history_messages) == (8000, 20)
    assert (s.history_pruning_enabled, s.history_pruning_max_tokens) == (True, 6000)
    assert resolve_budget(s).budget == 6000


def test_zeroclaw_keys_not_modelled_are_kept_by_their_path_with_their_value():
    coder = _read("zeroclaw_schema3.toml").select("coder")
    kept = _kept(coder)
    assert kept["runtime_profiles.ratio.keep_tool_context_turns"] == 2
    assert kept["runtime_profiles.ratio.compact_context"] is True
    assert kept["runtime_profiles.ratio.context_compression"] == {"enabled": False}
    assert kept["providers.models.custom.text.uri"] == "http://127.0.0.1:8080/v1"
    assert kept["memory"] == {"backend": "sqlite"}


def test_zeroclaw_secret_values_are_listed_but_not_stored():
    coder = _read("zeroclaw_schema3.toml").select("coder")
    assert _kept(coder)["providers.models.custom.text.api_key"] != "sk-local-example"
    assert any("secret" in w and "api_key" in w for w in coder.warnings)


def test_zeroclaw_runtime_profiles_without_agents_give_one_profile_each():
    config = _read("zeroclaw_profiles_only.toml")
    assert config.names() == ("local_small", "wide")
    assert resolve_budget(config.select("local_small").settings).budget == 8000
    assert "runtime_profiles.local_small.keep_tool_context_turns" in _kept(config.select("local_small"))


def test_zeroclaw_out_of_range_ratio_is_ignored_as_zeroclaw_does_and_said_so():
    wide = _read("zeroclaw_profiles_only.toml").select("wide")
    assert resolve_budget(wide.settings).budget == 32_000
    warnings = wide.notes
    assert any(
        "context_compact_ratio = 1.5 is outside (0, 1]" in w and "32,000 fallback" in w for w in warnings
    )


def test_zeroclaw_ratio_says_which_version_reads_it():
    coder = _read("zeroclaw_schema3.toml").select("coder")
    warnings = coder.notes
    assert any("proposed (PRs #9368, #9535)" in w and "released (v0.8.4) ignores" in w for w in warnings)
    assert not any("outside (0, 1]" in w for w in warnings)


def test_zeroclaw_v1_config_is_migrated_like_zeroclaws_own_migration():
    config = _read("zeroclaw_v1.toml")
    assert "schema 1, migrated to 3" in config.shape
    (default,) = config.profiles
    s = default.settings
    # [agent] → runtime_profiles.default; default_model folded into the default_provider's entry,
    # whose context_window the synthesized default agent now resolves.
    assert default.name == "default"
    assert (s.max_context_tokens, s.context_window, s.model) == (120_000, 200_000, "claude-sonnet-4-6")
    assert resolve_budget(s).budget == 120_000
    kept = _kept(default)
    assert kept["agent.keep_tool_context_turns"] == 2 and kept["agent.compact_context"] is False
    assert kept["model_providers.anthropic.name"] == "anthropic"
    assert any("[agent] merged into [runtime_profiles.default]" in w for w in default.warnings)


def test_zeroclaw_v2_inline_agent_brains_move_to_their_own_provider_and_runtime_profile():
    config = _read("zeroclaw_v2_agents.toml")
    researcher, notes = config.select("researcher"), config.select("notes")
    assert researcher.settings.max_tool_iterations == 25
    assert researcher.settings.model == "anthropic/claude-sonnet-4-5"
    # max_iterations created runtime_profiles.agent_researcher, so [agent] (→ default) does not apply.
    assert researcher.settings.max_context_tokens is None
    assert notes.settings.max_context_tokens == 24_000
    # What the migration moves where Trimscope does not follow is kept under the agent's own keys.
    kept = _kept(researcher)
    assert kept["agents.researcher.temperature"] == 0.2
    assert kept["agents.researcher.allowed_tools"] == ["shell", "memory"]
    assert "agents.researcher.max_iterations" not in kept  # modelled: max_tool_iterations


@pytest.mark.parametrize(
    ("text", "field", "hint"),
    [
        (
            "schema_version = 3\n[runtime_profiles.x]\nmax_context_tokns = 5\n",
            "runtime_profiles.x.max_context_tokns",
            "did you mean 'max_context_tokens'",
        ),
        ("[agent]\nmax_context_tokens = 1\nbogus_key = 1\n", "agent.bogus_key", "no such key"),
        ("schema_version = 3\nshcema_version = 1\n", "shcema_version", "did you mean 'schema_version'"),
        ("schema_version = 4\n", "schema_version", "newer than"),
        (
            "schema_version = 3\n[runtime_profiles.x]\nmax_context_tokens = -5\n",
            "runtime_profiles.x.max_context_tokens",
            "negative",
        ),
    ],
)
def test_zeroclaw_problems_name_the_key_in_the_file(text, field, hint):
    with pytest.raises(ProfileError) as caught:
        read_config_text(text, filename="config.toml")
    assert caught.value.field == field and hint in caught.value.message


def test_zeroclaw_agent_with_an_undefined_provider_falls_back_and_says_so():
    text = 'schema_version = 3\n[agents.a]\nmodel_provider = "openai.gone"\nruntime_profile = "default"\n'
    (profile,) = read_config_text(text).profiles
    assert resolve_budget(profile.settings).window_source == "CompatibilityFallback"
    assert any("'openai.gone' is not defined" in w for w in profile.warnings)


# -- OpenClaw ------------------------------------------------------------------------------------------


def test_openclaw_json5_with_comments_and_trailing_commas_gives_one_profile_per_agent():
    config = _read("openclaw.json5")
    assert config.runtime == "openclaw" and config.names() == ("main", "local")
    main = config.select("main")
    assert (main.settings.mode, main.settings.ttl, main.settings.context_tokens) == (
        "cache-ttl",
        "1h",
        150_000,
    )
    assert main.settings.context_window_tokens() == 150_000  # 200,000 default capped by contextTokens


def test_openclaw_agent_model_picks_its_window_from_the_model_catalogue():
    local = _read("openclaw.json5").select("local")
    assert local.settings.context_window_tokens() == 32_768
    assert local.settings.mode == "cache-ttl"  # pruning comes from agents.defaults only
    assert any("agents.list[1].contextPruning is not consulted" in w for w in local.warnings)


def test_openclaw_rest_of_the_file_is_kept():
    main = _read("openclaw.json5").select("main")
    kept = _kept(main)
    assert kept["agents.defaults.compaction"] == {"mode": "safeguard"}
    assert kept["agents.list[0].workspace"] == "~/.openclaw/workspace"
    assert kept["models"]["providers"]["lmstudio"]["baseUrl"] == "http://127.0.0.1:1234/v1"


def test_openclaw_unparsable_ttl_is_ignored_as_openclaw_does_and_said_so():
    (profile,) = read_config_text(
        "{agents: {defaults: {contextPruning: {mode: 'cache-ttl', ttl: 'soon'}}}}"
    ).profiles
    assert profile.settings.ttl is None and profile.settings.effective().ttl_ms == 300_000
    assert _kept(profile)["agents.defaults.contextPruning.ttl"] == "soon"
    assert any("'soon' is not a duration: OpenClaw silently uses 5m" in w for w in profile.warnings)


def test_openclaw_legacy_agent_root_is_read_as_agents_defaults():
    config = _read("openclaw_legacy.json5")
    (profile,) = config.profiles
    assert (profile.settings.mode, profile.settings.ttl) == ("cache-ttl", "5m")
    assert "legacy agent root" in config.shape


@pytest.mark.parametrize(
    ("text", "field", "hint"),
    [
        (
            "{agents: {defaults: {contextPrunning: {mode: 'cache-ttl'}}}}",
            "agents.defaults.contextPrunning",
            "did you mean 'contextPruning'",
        ),
        (
            "{agents: {defaults: {contextPruning: {mode: 'cache-ttl', softTrimRatio: 1.5}}}}",
            "agents.defaults.contextPruning.softTrimRatio",
            "between 0 and 1",
        ),
        ("{agents: {list: [{name: 'x'}]}}", "agents.list[0].id", "required"),
        ("{\n  agents: {,}\n}", "(document)", "line 2"),
    ],
)
def test_openclaw_problems_name_the_key_in_the_file(text, field, hint):
    with pytest.raises(ProfileError) as caught:
        read_config_text(text, filename="openclaw.json")
    assert caught.value.field == field and hint in caught.value.message


# -- ai-profile ----------------------------------------------------------------------------------------


def test_ai_profile_token_limits_land_in_the_layer_their_sources_name():
    (profile,) = _read("ai_profile_limits.json").profiles
    s = profile.settings
    assert profile.name == "gemini-2.5-pro"
    assert (s.endpoint_context_window, s.user_max_output) == (1_048_576, 393_216)
    assert s.history_budget() is not None and s.history_budget() > 0


def test_ai_profile_bare_token_limits_are_named_after_the_file():
    text = '{"contextWindow": 128000, "maxOutput": 8192, "source": "preset"}'
    (profile,) = read_config_text(text, filename="deepseek-limits.json").profiles
    assert profile.name == "deepseek-limits" and profile.settings.model_context_window == 128_000


def test_ai_profile_presets_give_one_profile_per_chat_preset_with_the_default_models_limits():
    config = _read("ai_profile_presets.json")
    assert config.names() == ("deepseek", "zhipu")
    deepseek = config.select("deepseek").settings
    assert (deepseek.model_context_window, deepseek.model_max_output) == (1_000_000, 384_000)
    assert config.select("zhipu").settings.model_context_window is None
    assert any("'image_gen' is a image preset" in w for w in config.warnings)


def test_ai_profile_unknown_source_value_is_refused_like_serde_does():
    with pytest.raises(ProfileError) as caught:
        read_config_text('{"contextWindow": 1, "contextWindowSource": "model"}')
    assert caught.value.field == "contextWindowSource"


# -- selection, export, simulation --------------------------------------------------------------------


def test_selecting_a_missing_name_suggests_the_closest():
    with pytest.raises(ProfileError) as caught:
        _read("zeroclaw_schema3.toml").select("codr")
    assert "did you mean 'coder'" in caught.value.message


@pytest.mark.parametrize("name", [p.name for p in CONFIGS.iterdir()])
def test_every_profile_round_trips_through_its_json_export_with_kept_keys_unchanged(name):
    for profile in _read(name).profiles:
        again = profile_from_document(json.loads(profile_to_json(profile)), name=profile.name)
        assert again == profile
        assert profile_from_document(profile_to_document(profile), name=profile.name) == profile


def test_toml_export_gives_the_kept_keys_back():
    coder = _read("zeroclaw_schema3.toml").select("coder")
    again = profile_from_text(profile_to_toml(coder), name="coder")
    assert _kept(again) == _kept(coder) and again.settings == coder.settings


def test_a_config_profile_simulates_with_its_resolved_budget():
    transcript = parse_transcript(
        (SAMPLES_DIR / "claude_code_sample_session.jsonl").read_text(encoding="utf-8")
    )
    result = simulate(transcript, _read("zeroclaw_schema3.toml").select("coder"))
    assert result.budget.value == 180_000 and result.profile_name == "coder"


def test_a_hand_written_trimscope_profile_keeps_and_checks_its_runtime_profile_keys():
    text = (
        "[runtime_profiles.local_small]\nkeep_tool_context_turns = 1\n[provider]\ncontext_window = 128000\n"
    )
    (profile,) = read_config_text(text).profiles
    assert profile.name == "local_small" and profile.settings.context_window == 128_000
    assert _kept(profile) == {"runtime_profiles.local_small.keep_tool_context_turns": 1}
    with pytest.raises(ProfileError) as caught:
        read_config_text(text.replace("keep_tool_context_turns", "bogus_key"))
    assert caught.value.field == "runtime_profiles.local_small.bogus_key"


def test_a_disabled_zeroclaw_agent_is_flagged():
    text = 'schema_version = 3\n[agents.off]\nenabled = false\nruntime_profile = "default"\n'
    (profile,) = read_config_text(text).profiles
    assert any("enabled = false: ZeroClaw does not run it" in w for w in profile.warnings)


def test_a_config_profile_names_its_zeroclaw_version_by_the_registry_label():
    coder = _read("zeroclaw_schema3.toml").select("coder")
    proposed, released = versions("zeroclaw")
    assert coder.spec is proposed
    assert coder.label == "ZeroClaw proposed (PRs #9368, #9535)" == proposed.label
    on_release = replace(coder, settings=replace(coder.settings, version="upstream"))
    assert on_release.label == "ZeroClaw released (v0.8.4)" == released.label
    assert [n.note for n in on_release.knob_notes] == [
        f"context_compact_ratio = 0.9 is a {proposed.version_label} key: "
        f"ZeroClaw {released.version_label} ignores it"
    ]


def test_knob_notes_come_from_the_runtime_spec_by_knob_path():
    wide = _read("zeroclaw_profiles_only.toml").select("wide")
    notes = wide.spec.notes(wide.settings)
    knob_paths = {k.path for k in wide.spec.knobs}
    assert notes and all(n.path in knob_paths for n in notes)
    assert wide.knob_notes == notes
    # Runtimes whose knobs have nothing to say give no notes.
    openclaw = _read("openclaw.json5").profiles[0]
    assert openclaw.knob_notes == ()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("a = " + "{b=" * 645 + "1" + "}" * 645, "nested deeper than 128 levels"),
        ('{"a": ' + "[" * 3000 + "]" * 3000 + "}", "nested deeper than 128 levels"),
        ("a = " + "1" * 5000, "more than 4,300 digits"),
    ],
)
def test_a_config_over_the_parsers_limits_is_refused_naming_the_limit(text, reason):
    with pytest.raises(ProfileError, match=reason):
        parse_config_text(text)
