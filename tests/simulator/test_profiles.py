"""The profile loader: field paths in errors, runtime detection, real config blocks, round trips."""

from __future__ import annotations

import json

import pytest

from simulator.errors import ProfileError
from simulator.profiles import (
    detect_runtime,
    profile_from_document,
    profile_from_text,
    profile_to_document,
    profile_to_json,
    profile_to_toml,
)
from simulator.runtimes.ai_profile import AiProfileSettings
from simulator.runtimes.openclaw.settings import OpenClawSettings
from simulator.runtimes.zeroclaw.settings import ZeroClawSettings

ZEROCLAW_TOML = """
[runtime_profiles.coding]
max_context_tokens = 48000
context_compact_ratio = 0.5
max_history_messages = 40
max_tool_iterations = 20

[runtime_profiles.coding.history_pruning]
enabled = true
max_tokens = 40000

[provider]
model = "claude-sonnet-4-6"
context_window = 200000
"""

OPENCLAW_JSON = """{
  "agents": {"defaults": {"contextTokens": 150000, "contextPruning": {
    "mode": "cache-ttl", "ttl": "10m", "keepLastAssistants": 2, "softTrimRatio": 0.4,
    "softTrim": {"maxChars": 3000}, "hardClear": {"enabled": false},
    "tools": {"deny": ["browser*"]}
  }}}
}"""


def test_a_real_zeroclaw_runtime_profile_block_loads_every_knob():
    profile = profile_from_text(ZEROCLAW_TOML, name="coding")
    s = profile.settings
    assert profile.runtime == "zeroclaw" and isinstance(s, ZeroClawSettings)
    assert (s.max_context_tokens, s.context_compact_ratio, s.max_history_messages) == (48_000, 0.5, 40)
    assert (s.history_pruning_enabled, s.history_pruning_max_tokens, s.max_tool_iterations) == (
        True,
        40_000,
        20,
    )
    assert (s.context_window, s.provider_model, s.version) == (200_000, "claude-sonnet-4-6", "documented")


def test_a_real_openclaw_context_pruning_block_loads():
    profile = profile_from_text(OPENCLAW_JSON, name="oc")
    s = profile.settings
    assert profile.runtime == "openclaw" and isinstance(s, OpenClawSettings)
    assert (s.mode, s.ttl, s.keepLastAssistants, s.softTrimRatio) == ("cache-ttl", "10m", 2, 0.4)
    assert s.tools.deny == ("browser*",) and s.hardClear.enabled is False
    assert s.context_window_tokens() == 150_000


def test_a_bare_context_pruning_block_is_openclaw():
    profile = profile_from_text('[contextPruning]\nmode = "cache-ttl"\nttl = "1h"\n', name="bare")
    assert profile.runtime == "openclaw"
    assert isinstance(profile.settings, OpenClawSettings) and profile.settings.ttl == "1h"


def test_ai_profile_limits_block_is_detected():
    profile = profile_from_text("[limits.user]\ncontextWindow = 64000\nmaxOutput = 2048\n", name="ai")
    assert profile.runtime == "ai_profile"
    assert isinstance(profile.settings, AiProfileSettings)
    assert profile.settings.history_budget() == 64_000 - 2048 - 8192


@pytest.mark.parametrize(
    ("doc", "runtime"),
    [
        ({"runtime_profiles": {}}, "zeroclaw"),
        ({"history_pruning": {"enabled": True}}, "zeroclaw"),
        ({"agents": {"defaults": {"contextPruning": {}}}}, "openclaw"),
        ({"contextPruning": {}}, "openclaw"),
        ({"limits": {}}, "ai_profile"),
        ({"max_attempts": 2}, "ai_profile"),
        ({"trimscope": {"runtime": "openclaw"}, "runtime_profiles": {}}, "openclaw"),
    ],
)
def test_runtime_detection(doc, runtime):
    assert detect_runtime(doc) == runtime


def test_an_undetectable_document_says_what_would_identify_it():
    with pytest.raises(ProfileError) as info:
        profile_from_document({"provider": {"model": "x"}}, name="x")
    assert info.value.field == "trimscope.runtime"
    assert "runtime_profiles" in (info.value.allowed or "")


@pytest.mark.parametrize(
    ("doc", "field", "fragment"),
    [
        (
            {"runtime_profiles": {"default": {"max_context_tokens": -5}}},
            "runtime_profiles.default.max_context_tokens",
            "below the minimum",
        ),
        (
            {"runtime_profiles": {"coding": {"max_history_messages": "ten"}}},
            "runtime_profiles.coding.max_history_messages",
            "must be an integer",
        ),
        (
            {"runtime_profiles": {"d": {"history_pruning": {"enabled": "yes"}}}},
            "runtime_profiles.d.history_pruning.enabled",
            "true or false",
        ),
        ({"trimscope": {"version": "v9"}, "runtime_profiles": {}}, "trimscope.version", "unknown version"),
        ({"limits": {"preset": {"contextWindow": -1}}}, "limits.preset.contextWindow", "below the minimum"),
        ({"limits": {}, "max_attempts": 11}, "max_attempts", "out of range"),
        ({"contextPruning": {"softTrimRatio": 1.5}}, "contextPruning.softTrimRatio", "between 0 and 1"),
        ({"contextPruning": {"ttl": "soon"}}, "contextPruning.ttl", ""),
        ({"contextPruning": {"mode": "always"}}, "contextPruning.mode", "unknown mode"),
        (
            {"contextPruning": {"softTrim": {"maxChars": 1, "bogus": 2}}},
            "contextPruning.softTrim.bogus",
            "unknown key",
        ),
        (
            {"agents": {"defaults": {"contextPruning": {}, "contextTokens": 0}}},
            "agents.defaults.contextTokens",
            "",
        ),
    ],
)
def test_errors_name_the_field_by_its_path(doc, field, fragment):
    with pytest.raises(ProfileError) as info:
        profile_from_document(doc, name="x")
    assert info.value.field == field
    assert fragment in info.value.problem
    assert info.value.extra["field"] == field


def test_the_error_message_carries_the_allowed_range():
    with pytest.raises(ProfileError) as info:
        profile_from_document({"runtime_profiles": {"default": {"max_context_tokens": -5}}}, name="x")
    assert str(info.value) == (
        "runtime_profiles.default.max_context_tokens: -5 is below the minimum (allowed: an integer ≥ 0)"
    )


def test_two_runtime_profiles_in_one_document_are_refused():
    with pytest.raises(ProfileError) as info:
        profile_from_document({"runtime_profiles": {"a": {}, "b": {}}}, name="x")
    assert info.value.field == "runtime_profiles"


def test_a_toml_date_in_a_numeric_knob_is_rejected_naming_the_field():
    with pytest.raises(ProfileError) as info:
        profile_from_text("[runtime_profiles.default]\nmax_context_tokens = 2026-01-01\n", name="x")
    assert info.value.field == "runtime_profiles.default.max_context_tokens"
    assert "2026-01-01" in info.value.problem


def test_syntax_errors_are_document_errors_with_the_place():
    with pytest.raises(ProfileError) as info:
        profile_from_text('{"limits": }', name="x")
    assert info.value.field == "(document)" and "line 1" in info.value.problem
    with pytest.raises(ProfileError) as info:
        profile_from_text("[runtime_profiles\n", name="x", syntax="toml")
    assert info.value.field == "(document)" and "TOML" in info.value.problem


def test_a_non_object_document_is_refused():
    with pytest.raises(ProfileError) as info:
        profile_from_text("[1, 2]", name="x")
    assert info.value.field == "(document)"


@pytest.mark.parametrize("text", [ZEROCLAW_TOML, OPENCLAW_JSON, "[limits.endpoint]\ncontextWindow = 32000\n"])
def test_round_trips_through_toml_and_json(text):
    profile = profile_from_text(text, name="p")
    assert profile_from_text(profile_to_toml(profile), name="p", syntax="toml") == profile
    assert profile_from_text(profile_to_json(profile), name="p", syntax="json") == profile
    assert json.loads(profile_to_json(profile)) == profile_to_document(profile)


def test_canonical_document_names_the_zeroclaw_profile_default():
    doc = profile_to_document(profile_from_text(ZEROCLAW_TOML, name="coding"))
    assert list(doc["runtime_profiles"]) == ["default"]
