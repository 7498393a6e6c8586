"""OpenClaw's ready-made profiles: 2026.7.1 ``DEFAULT_CONTEXT_PRUNING_SETTINGS`` and the Anthropic
smart defaults ``applyAnthropicConfigDefaults`` writes (spec ``openclaw.md`` §2 and §8); 2026.9.6's defaults
and a direct OpenAI route with its server compaction."""

from __future__ import annotations

from simulator.jsonvalue import JSON
from simulator.runtime_spec import PresetSource
from simulator.runtimes.openclaw.smart_defaults import apply_anthropic_config_defaults


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


PRESETS: tuple[PresetSource, ...] = (
    PresetSource(
        "openclaw",
        "OpenClaw defaults (cache-ttl 5m)",
        "contextPruning mode cache-ttl and nothing else: ttl 5m, keep the last 3 assistants, soft-trim "
        "at 0.3 and hard-clear at 0.5 of a 200,000-token window (hard-clear only once prunable tool "
        "results reach 50,000 chars).",
        {"agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}}},
    ),
    PresetSource(
        "openclaw-anthropic",
        "OpenClaw Anthropic smart defaults",
        "What applyAnthropicConfigDefaults writes for an Anthropic API-key setup whose contextPruning "
        "mode is unset: cache-ttl with a 1h ttl; every other knob keeps its default.",
        {"agents": {"defaults": {"contextPruning": anthropic_smart_defaults_pruning()}}},
    ),
)

PRESETS_2026_9_6: tuple[PresetSource, ...] = (
    PresetSource(
        "openclaw-2026.9.6",
        "OpenClaw 2026.9.6 defaults (cache-ttl 5m)",
        "contextPruning mode cache-ttl in OpenClaw 2026.9.6: ttl 5m; soft-trim at 0.3 and hard-clear "
        "at 0.5 of the attempt's budget and keep the last 3 assistants are fixed; trimmed results stay "
        "trimmed.",
        {
            "trimscope": {"runtime": "openclaw", "version": "2026.9.6"},
            "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}},
        },
    ),
    PresetSource(
        "openclaw-2026.9.6-openai",
        "OpenClaw 2026.9.6, direct OpenAI (server compaction)",
        "A direct OpenAI Responses route (gpt-5.4, 400,000-token window) in 2026.9.6: cache-TTL "
        "pruning is active for it, and OpenAI server compaction is on by default at 0.7 × the window; "
        "after it fires later calls send a 2,000-token summary.",
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
    ),
)
