"""Presets: each parses, validates and round-trips through TOML and JSON, with the runtimes' defaults."""

from __future__ import annotations

import pytest

from simulator.presets import PRESETS, anthropic_smart_defaults_pruning, preset_get
from simulator.profiles import (
    profile_from_document,
    profile_from_text,
    profile_to_document,
    profile_to_json,
    profile_to_toml,
)
from simulator.runtimes.ai_profile import AiProfileSettings
from simulator.runtimes.openclaw.settings import OpenClawSettings
from simulator.runtimes.zeroclaw import resolve_budget
from simulator.runtimes.zeroclaw.settings import ZeroClawSettings


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.key)
def test_preset_parses_to_its_runtime_and_is_canonical(preset):
    profile = profile_from_document(dict(preset.document), name=preset.name)
    assert profile.runtime == preset.runtime
    assert profile_to_document(profile) == preset.document


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.key)
@pytest.mark.parametrize("syntax", ["toml", "json"])
def test_preset_round_trips_through_text(preset, syntax):
    profile = profile_from_document(dict(preset.document), name=preset.name)
    text = profile_to_toml(profile) if syntax == "toml" else profile_to_json(profile)
    again = profile_from_text(text, name=preset.name, syntax=syntax)
    assert again == profile


def test_preset_names_and_keys_are_unique():
    assert len({p.key for p in PRESETS}) == len({p.name for p in PRESETS}) == len(PRESETS)
    assert {p.runtime for p in PRESETS} == {"zeroclaw", "ai_profile", "openclaw", "as_recorded"}


def test_zeroclaw_documented_preset_has_a_128k_window_and_the_32k_fallback_budget():
    settings = profile_from_document(dict(preset_get("zeroclaw-documented").document), name="x").settings
    assert isinstance(settings, ZeroClawSettings)
    assert (settings.version, settings.context_window, settings.provider_model) == (
        "documented",
        128_000,
        "gpt-4o",
    )
    resolution = resolve_budget(settings)
    assert (resolution.budget, resolution.bound_by, resolution.window) == (32_000, "fallback", 128_000)
    assert settings.effective_max_history_messages() == 50


def test_zeroclaw_upstream_preset_is_master_without_a_window():
    settings = profile_from_document(dict(preset_get("zeroclaw-upstream").document), name="x").settings
    assert isinstance(settings, ZeroClawSettings)
    assert settings.version == "upstream"
    assert resolve_budget(settings).budget == 32_000
    assert resolve_budget(settings).window is None


def test_ai_profile_preset_budget_is_window_minus_output_minus_overhead():
    settings = profile_from_document(dict(preset_get("ai-profile").document), name="x").settings
    assert isinstance(settings, AiProfileSettings)
    assert (settings.model_context_window, settings.max_tokens, settings.max_attempts) == (200_000, 4096, 3)
    assert settings.history_budget() == 200_000 - 4096 - 8192


def test_openclaw_default_preset_prunes_with_the_5_minute_ttl():
    settings = profile_from_document(dict(preset_get("openclaw").document), name="x").settings
    assert isinstance(settings, OpenClawSettings)
    effective = settings.effective()
    assert effective is not None
    assert (effective.ttl_ms, effective.keep_last_assistants) == (300_000, 3)
    assert (effective.soft_trim_ratio, effective.hard_clear_ratio) == (0.3, 0.5)
    assert settings.context_window_tokens() == 200_000


def test_openclaw_anthropic_preset_is_what_the_smart_defaults_write():
    assert anthropic_smart_defaults_pruning() == {"mode": "cache-ttl", "ttl": "1h"}
    settings = profile_from_document(dict(preset_get("openclaw-anthropic").document), name="x").settings
    assert isinstance(settings, OpenClawSettings)
    effective = settings.effective()
    assert effective is not None and effective.ttl_ms == 3_600_000


def test_unknown_preset_key_is_none():
    assert preset_get("nope") is None
