"""Which OpenClaw version a config file was written for, read from its schema.

Sources: the zod config schemas of the two dists. openclaw@2026.7.1 (``zod-schema-*.js``) has
``agents.list`` (an array of agents) and, under ``agents.defaults``, ``contextPruning.keepLastAssistants``,
``softTrimRatio``, ``hardClearRatio``, ``minPrunableToolChars``, ``softTrim`` and
``compaction.reserveTokens``/``reserveTokensFloor``/``maxHistoryShare``. openclaw@2026.9.6 has
``agents.entries`` (agents keyed by id; ``legacy-config-migrations.runtime.entries.ts``: "agents.list
moved to keyed agents.entries") and its ``contextPruning`` schema is strict with only ``mode``, ``ttl``,
``tools``, ``hardClear``: the other keys are retired (``RETIRED_AGENT_TUNING_PATHS``, stripped by
``openclaw doctor``).

A config with neither marker fits both; None is returned and the caller keeps its default.
"""

from __future__ import annotations

from typing import Final

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.route import OpenClawVersion

RETIRED_CONTEXT_PRUNING_KEYS: Final = (
    "keepLastAssistants",
    "softTrimRatio",
    "hardClearRatio",
    "minPrunableToolChars",
    "softTrim",
)
RETIRED_COMPACTION_KEYS: Final = ("reserveTokens", "reserveTokensFloor", "maxHistoryShare")


def _agent_scopes(agents: dict[str, JSON]) -> list[dict[str, JSON]]:
    scopes = [agents.get("defaults")]
    listed = agents.get("list")
    if isinstance(listed, list):
        scopes.extend(listed)
    entries = agents.get("entries")
    if isinstance(entries, dict):
        scopes.extend(entries.values())
    return [s for s in scopes if isinstance(s, dict)]


def detect_config_version(config: JSON) -> OpenClawVersion | None:
    """The version whose schema a config uses, or None when it fits both.

    Args:
        config: A whole OpenClaw config (``{"agents": {...}, ...}``).

    Returns:
        ``"2026.9.6"`` for ``agents.entries``; ``"2026.7.1"`` for ``agents.list`` or any key 2026.9.6
        retired; None otherwise.
    """
    agents = config.get("agents") if isinstance(config, dict) else None
    if not isinstance(agents, dict):
        return None
    if isinstance(agents.get("entries"), dict):
        return "2026.9.6"
    if "list" in agents:
        return "2026.7.1"
    for scope in _agent_scopes(agents):
        pruning = scope.get("contextPruning")
        compaction = scope.get("compaction")
        if isinstance(pruning, dict) and any(k in pruning for k in RETIRED_CONTEXT_PRUNING_KEYS):
            return "2026.7.1"
        if isinstance(compaction, dict) and any(k in compaction for k in RETIRED_COMPACTION_KEYS):
            return "2026.7.1"
    return None
