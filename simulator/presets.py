"""Ready-made profile documents: each reproduced runtime's defaults, in the runtime's own config keys.

Every preset's ``document`` is the canonical document :func:`simulator.profiles.profile_to_document`
writes, so a profile created from it stores exactly this and round-trips through TOML and JSON.

Sources: ZeroClaw master 15d28660 and PRs 9368/9535 (``simulator/runtimes/zeroclaw/settings.py``),
ai-profile 0.1.7 (``max_tokens`` 4096, 3 attempts), OpenClaw 2026.7.1 ``DEFAULT_CONTEXT_PRUNING_SETTINGS``
and ``applyAnthropicConfigDefaults`` (spec ``openclaw.md`` §2 and §8).

Deliberate choices: the documented ZeroClaw preset declares a 128,000-token ``gpt-4o`` route so the
model-relative budget has a window to work with (without one PR 9535 falls back to 32,000 anyway);
the ai-profile preset knows only its built-in preset window (200,000, a Claude-class model), as an app
does before any ``/models`` call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from simulator.jsonvalue import JSON
from simulator.profiles import Runtime, profile_from_document, profile_to_document
from simulator.runtimes.openclaw.smart_defaults import apply_anthropic_config_defaults

DOCUMENTED_MODEL = "gpt-4o"
DOCUMENTED_WINDOW = 128_000
AI_PROFILE_PRESET_WINDOW = 200_000
AI_PROFILE_MAX_TOKENS = 4096


@dataclass(frozen=True, slots=True)
class Preset:
    """A named starting point: ``document`` is a canonical profile document for ``runtime``."""

    key: str
    name: str
    runtime: Runtime
    description: str
    document: Mapping[str, JSON]


def _canonical(raw: JSON, name: str) -> dict[str, JSON]:
    # Going through the loader validates the preset and yields exactly what a stored profile holds.
    return profile_to_document(profile_from_document(raw, name=name))


def anthropic_smart_defaults_pruning() -> dict[str, JSON]:
    """The ``contextPruning`` block OpenClaw's Anthropic smart defaults give a minimal API-key setup.

    Returns:
        The block ``applyAnthropicConfigDefaults`` writes into ``agents.defaults`` (mode and ttl).

    Raises:
        AssertionError: if the smart defaults stop producing a pruning block for this config.
    """
    config: JSON = {
        "auth": {"profiles": {"anthropic:default": {"provider": "anthropic", "mode": "api_key"}}},
        "agents": {"defaults": {"model": {"primary": "anthropic/claude-sonnet-4-6"}}},
    }
    applied = apply_anthropic_config_defaults(config, {})
    agents = applied.get("agents") if isinstance(applied, dict) else None
    defaults = agents.get("defaults") if isinstance(agents, dict) else None
    pruning = defaults.get("contextPruning") if isinstance(defaults, dict) else None
    if not isinstance(pruning, dict):
        raise AssertionError("Anthropic smart defaults produced no contextPruning block")
    return pruning


def _presets() -> tuple[Preset, ...]:
    zeroclaw_documented = _canonical(
        {
            "trimscope": {"runtime": "zeroclaw", "version": "documented"},
            "runtime_profiles": {"default": {}},
            "provider": {"model": DOCUMENTED_MODEL, "context_window": DOCUMENTED_WINDOW},
        },
        "zeroclaw-documented",
    )
    zeroclaw_upstream = _canonical(
        {"trimscope": {"runtime": "zeroclaw", "version": "upstream"}, "runtime_profiles": {"default": {}}},
        "zeroclaw-upstream",
    )
    ai_profile = _canonical(
        {
            "trimscope": {"runtime": "ai_profile"},
            "max_tokens": AI_PROFILE_MAX_TOKENS,
            "max_attempts": 3,
            "limits": {"preset": {"contextWindow": AI_PROFILE_PRESET_WINDOW}},
        },
        "ai-profile",
    )
    openclaw = _canonical({"agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}}}, "openclaw")
    openclaw_2026_9_6 = _canonical(
        {
            "trimscope": {"runtime": "openclaw", "version": "2026.9.6"},
            "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}},
        },
        "openclaw-2026.9.6",
    )
    openclaw_2026_9_6_openai = _canonical(
        {
            "trimscope": {"runtime": "openclaw", "version": "2026.9.6", "compactionSummaryTokens": 2000},
            "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}},
            "model": {
                "provider": "openai",
                "id": "gpt-5.4",
                "api": "openai-responses",
                "baseUrl": "https://api.openai.com/v1",
                "contextWindow": 400_000,
            },
        },
        "openclaw-2026.9.6-openai",
    )
    openclaw_smart = _canonical(
        {"agents": {"defaults": {"contextPruning": anthropic_smart_defaults_pruning()}}}, "openclaw-smart"
    )
    return (
        Preset(
            "zeroclaw-documented",
            "ZeroClaw proposed (PRs #9368, #9535) defaults",
            "zeroclaw",
            f"History-management docs (PRs 9368/9535/9379): a {DOCUMENTED_MODEL} route with a "
            f"{DOCUMENTED_WINDOW:,}-token window, no ratio and no max_context_tokens, so the budget is the "
            "32,000 fallback; 50 turns of history.",
            zeroclaw_documented,
        ),
        Preset(
            "zeroclaw-upstream",
            "ZeroClaw released (v0.8.4) defaults",
            "zeroclaw",
            "Master 15d28660: max_context_tokens defaults to 32,000 with no model window; history is capped "
            "at max(50, 2 × max_tool_iterations + 2) messages.",
            zeroclaw_upstream,
        ),
        Preset(
            "ai-profile",
            "ai-profile defaults",
            "ai_profile",
            f"ai-profile 0.1.7 with only the built-in preset window ({AI_PROFILE_PRESET_WINDOW:,}) known: "
            f"history budget = window − max_tokens {AI_PROFILE_MAX_TOKENS:,} − 8,192 overhead; 3 attempts.",
            ai_profile,
        ),
        Preset(
            "openclaw",
            "OpenClaw defaults (cache-ttl 5m)",
            "openclaw",
            "contextPruning mode cache-ttl and nothing else: ttl 5m, keep the last 3 assistants, soft-trim "
            "at 0.3 and hard-clear at 0.5 of a 200,000-token window (hard-clear only once prunable tool "
            "results reach 50,000 chars).",
            openclaw,
        ),
        Preset(
            "openclaw-anthropic",
            "OpenClaw Anthropic smart defaults",
            "openclaw",
            "What applyAnthropicConfigDefaults writes for an Anthropic API-key setup whose contextPruning "
            "mode is unset: cache-ttl with a 1h ttl; every other knob keeps its default.",
            openclaw_smart,
        ),
        Preset(
            "openclaw-2026.9.6",
            "OpenClaw 2026.9.6 defaults (cache-ttl 5m)",
            "openclaw",
            "contextPruning mode cache-ttl in OpenClaw 2026.9.6: ttl 5m; soft-trim at 0.3 and hard-clear "
            "at 0.5 of the attempt's budget and keep the last 3 assistants are fixed; trimmed results stay "
            "trimmed.",
            openclaw_2026_9_6,
        ),
        Preset(
            "openclaw-2026.9.6-openai",
            "OpenClaw 2026.9.6, direct OpenAI (server compaction)",
            "openclaw",
            "A direct OpenAI Responses route (gpt-5.4, 400,000-token window) in 2026.9.6: cache-TTL "
            "pruning is active for it, and OpenAI server compaction is on by default at 0.7 × the window; "
            "after it fires later calls send a 2,000-token summary.",
            openclaw_2026_9_6_openai,
        ),
    )


PRESETS: tuple[Preset, ...] = _presets()
PRESETS_BY_KEY: Mapping[str, Preset] = {p.key: p for p in PRESETS}


def preset_get(key: str) -> Preset | None:
    """The preset with ``key``, or ``None``."""
    return PRESETS_BY_KEY.get(key)
