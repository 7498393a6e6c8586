"""A whole OpenClaw ``openclaw.json`` (JSON5), read the way OpenClaw 2026.7.x loads it.

Source: the 2026.7.1 dist and the zod schema (``src/config/zod-schema.ts``,
``zod-schema.agents.ts``, ``zod-schema.agent-defaults.ts``, ``zod-schema.agent-runtime.ts``):

* ``agents`` is strict (``defaults``, ``list``); ``agents.defaults`` is strict (its keys below);
  ``contextPruning`` is strict and read by :meth:`OpenClawSettings.from_json`;
* ``agents.list[]`` entries (``AgentEntrySchema``, strict) each get a profile named by ``id``.
  Pruning itself comes only from ``agents.defaults.contextPruning``: ``buildContextPruningFactory``
  does not consult an agent's own ``contextPruning`` (spec §2), so one found there is kept and
  flagged. What an agent does override is its ``model``, which picks the window;
* the window (``resolveContextWindowInfo``, spec §3): the agent's model (``agents.list[].model``, else
  ``agents.defaults.model``; ``"provider/model"`` or ``{primary}``) looked up in
  ``models.providers.<provider>.models[]`` by ``id`` (``contextTokens``, else ``contextWindow``),
  else the 200,000 default, capped by ``agents.defaults.contextTokens``;
* the legacy ``agent`` root (``openclaw doctor`` migration ``agent.* → agents.defaults.*``):
  ``agent.model`` as a string becomes ``model.primary``; values already in ``agents.defaults`` win.

With no ``agents.list``, the file gives one profile named ``defaults``. The root object is strict
in OpenClaw; Trimscope does not carry the whole root schema, so an unknown root key close to a known
one is refused with a did-you-mean and any other one is kept with a warning.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import replace

from simulator.config_keys import ConfigFile, KeptCollector, check_keys, close_to, table, unknown_key_error
from simulator.errors import ProfileError
from simulator.jsonvalue import JSON
from simulator.profiles import Profile, profile_from_document
from simulator.runtimes.openclaw.duration import DurationError, parse_duration_ms
from simulator.runtimes.openclaw.versions import detect_config_version

RUNTIME = "OpenClaw"
ROOT_KEYS = frozenset(
    [
        "$schema",
        "meta",
        "env",
        "wizard",
        "diagnostics",
        "logging",
        "update",
        "browser",
        "ui",
        "auth",
        "models",
        "nodeHost",
        "agents",
        "tools",
        "bindings",
        "broadcast",
        "audio",
        "media",
        "messages",
        "commands",
        "approvals",
        "session",
        "cron",
        "hooks",
        "web",
        "channels",
        "discovery",
        "canvasHost",
        "talk",
        "gateway",
        "memory",
        "skills",
        "plugins",
        "secrets",
        "acp",
        "mcp",
        "sandbox",
        "agent",
        "routing",
        "identity",
        "providers",
    ]
)
AGENTS_KEYS = frozenset({"defaults", "list", "entries"})  # entries: 2026.9.6 (agents keyed by id)
DEFAULTS_KEYS = frozenset(
    [
        "params",
        "model",
        "imageModel",
        "imageGenerationModel",
        "videoGenerationModel",
        "musicGenerationModel",
        "voiceModel",
        "mediaGenerationAutoProviderFallback",
        "pdfModel",
        "pdfMaxBytesMb",
        "pdfMaxPages",
        "models",
        "workspace",
        "skills",
        "silentReply",
        "repoRoot",
        "promptOverlays",
        "skipBootstrap",
        "skipOptionalBootstrapFiles",
        "contextInjection",
        "bootstrapMaxChars",
        "bootstrapTotalMaxChars",
        "experimental",
        "bootstrapPromptTruncationWarning",
        "userTimezone",
        "startupContext",
        "contextLimits",
        "timeFormat",
        "envelopeTimezone",
        "envelopeTimestamp",
        "envelopeElapsed",
        "contextTokens",
        "cliBackends",
        "memorySearch",
        "contextPruning",
        "compaction",
        "runRetries",
        "embeddedAgent",
        "thinkingDefault",
        "verboseDefault",
        "toolProgressDetail",
        "reasoningDefault",
        "elevatedDefault",
        "blockStreamingDefault",
        "blockStreamingBreak",
        "blockStreamingChunk",
        "blockStreamingCoalesce",
        "humanDelay",
        "timeoutSeconds",
        "mediaMaxMb",
        "imageMaxDimensionPx",
        "imageQuality",
        "typingIntervalSeconds",
        "typingMode",
        "heartbeat",
        "maxConcurrent",
        "subagents",
        "sandbox",
    ]
)
AGENT_ENTRY_KEYS = frozenset(
    [
        "id",
        "default",
        "name",
        "workspace",
        "agentDir",
        "model",
        "skills",
        "memorySearch",
        "humanDelay",
        "heartbeat",
        "identity",
        "groupChat",
        "subagents",
        "sandbox",
        "tools",
        "params",
        "contextTokens",
        "contextPruning",
        "compaction",
        "thinkingDefault",
        "reasoningDefault",
        "runtime",
    ]
)
DEFAULT_CONTEXT_TOKENS = 200_000


def _model_ref(value: JSON, path: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    primary = table(value, path).get("primary")
    return primary if isinstance(primary, str) else None


def _catalogue_window(doc: Mapping[str, JSON], ref: str) -> tuple[int | None, str]:
    """``"p/model"`` in ``models.providers.<p>.models[]``: ``contextTokens``, else ``contextWindow``."""
    provider, _, model_id = ref.partition("/")
    providers = table(table(doc.get("models"), "models").get("providers"), "models.providers")
    entries = table(providers.get(provider), f"models.providers.{provider}").get("models")
    for index, entry in enumerate(entries if isinstance(entries, list) else []):
        if isinstance(entry, dict) and entry.get("id") == model_id:
            for key in ("contextTokens", "contextWindow"):
                value = entry.get(key)
                if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
                    return int(value), f"models.providers.{provider}.models[{index}].{key}"
    return None, ""


def _migrate_legacy_agent(doc: dict[str, JSON], notes: list[str]) -> None:
    legacy = doc.pop("agent", None)
    if legacy is None:
        return
    legacy_table = dict(table(legacy, "agent"))
    agents = table(doc.setdefault("agents", {}), "agents")
    defaults = table(agents.setdefault("defaults", {}), "agents.defaults")
    if isinstance(legacy_table.get("model"), str):
        legacy_table["model"] = {"primary": legacy_table["model"]}
    lost = [key for key in legacy_table if key in defaults]
    for key, value in legacy_table.items():
        defaults.setdefault(key, value)
    notes.append("legacy `agent` root read as agents.defaults (openclaw doctor migration)")
    if lost:
        notes.append(f"agents.defaults already sets {', '.join(lost)}: the legacy agent.* values lose")


def read_openclaw_config(raw: Mapping[str, JSON]) -> ConfigFile:
    """A parsed ``openclaw.json`` as OpenClaw loads it.

    Returns:
        One profile per ``agents.list[]`` entry (named by ``id``), else one named ``defaults``.

    Raises:
        ProfileError: for an unknown key (with a did-you-mean), naming its path in the file.
    """
    doc = copy.deepcopy(dict(raw))
    notes: list[str] = []
    legacy = "agent" in doc
    _migrate_legacy_agent(doc, notes)
    for key in doc:
        if key not in ROOT_KEYS:
            typo = close_to(key, ROOT_KEYS)
            if typo is not None:
                raise unknown_key_error("", key, ROOT_KEYS, RUNTIME)
            notes.append(f"root key {key!r} is not in the OpenClaw schema Trimscope knows (kept)")
    agents = table(doc.get("agents"), "agents")
    check_keys(agents, "agents", AGENTS_KEYS, RUNTIME)
    defaults_path = (
        "agent" if legacy and "defaults" not in table(raw.get("agents"), "agents") else "agents.defaults"
    )
    defaults = table(agents.get("defaults"), defaults_path)
    check_keys(defaults, defaults_path, DEFAULTS_KEYS, RUNTIME)
    entries = agents.get("list")
    if entries is not None and not isinstance(entries, list):
        raise ProfileError("agents.list", "must be a list of agents", allowed="a list")
    keyed = table(agents.get("entries"), "agents.entries")
    version = detect_config_version(doc)
    shape = "OpenClaw openclaw.json (JSON5" + (", legacy agent root)" if legacy else ")")
    if version is not None:
        shape += f", the {version} schema"
    targets: list[tuple[str, dict[str, JSON], str]] = []
    for index, entry in enumerate(entries or []):
        path = f"agents.list[{index}]"
        body = table(entry, path)
        check_keys(body, path, AGENT_ENTRY_KEYS, RUNTIME)
        agent_id = body.get("id")
        if not isinstance(agent_id, str) or not agent_id:
            raise ProfileError(f"{path}.id", "is required", allowed="the agent's id")
        targets.append((agent_id, body, path))
    for agent_id, entry in keyed.items():
        path = f"agents.entries.{agent_id}"
        body = table(entry, path)
        check_keys(body, path, AGENT_ENTRY_KEYS, RUNTIME)
        targets.append((agent_id, body, path))
    if not targets:
        targets.append(("defaults", {}, ""))
    profiles = tuple(
        _profile(doc, defaults, defaults_path, name, body, path, notes, version)
        for name, body, path in targets
    )
    kept: dict[str, None] = {k.path: None for p in profiles for k in p.kept}
    warnings = list(notes)
    if entries or keyed:
        where = "agents.list" if entries else "agents.entries"
        warnings.append(f"{len(profiles)} agent(s) in {where}: one profile each, named by id")
    return ConfigFile("openclaw", shape, profiles, tuple(warnings), tuple(kept))


def _profile(
    doc: Mapping[str, JSON],
    defaults: Mapping[str, JSON],
    defaults_path: str,
    name: str,
    agent: Mapping[str, JSON],
    agent_path: str,
    notes: list[str],
    version: str | None = None,
) -> Profile:
    warnings = list(notes)
    kept = KeptCollector()
    for key, value in doc.items():
        if key != "agents":
            kept.keep(key, value)
    kept.keep_rest(defaults, defaults_path, ("contextPruning", "contextTokens"))
    if agent_path:
        kept.keep_rest(agent, agent_path, ("id",))
        if "contextPruning" in agent:
            warnings.append(
                f"{agent_path}.contextPruning is not consulted: OpenClaw 2026.7 prunes with "
                "agents.defaults.contextPruning only"
            )
    ref_path = f"{agent_path}.model" if agent_path and "model" in agent else f"{defaults_path}.model"
    ref = _model_ref(agent.get("model", defaults.get("model")), ref_path)
    window: int | None = None
    if ref is not None:
        window, source = _catalogue_window(doc, ref)
        if window is None:
            warnings.append(
                f"model {ref!r} ({ref_path}) has no contextTokens/contextWindow in models.providers: "
                f"OpenClaw asks its model catalogue; Trimscope uses the {DEFAULT_CONTEXT_TOKENS:,} default"
            )
    else:
        warnings.append(f"no model set: the window is the {DEFAULT_CONTEXT_TOKENS:,} default")
    pruning = defaults.get("contextPruning")
    ttl = pruning.get("ttl") if isinstance(pruning, dict) else None
    if isinstance(pruning, dict) and isinstance(ttl, str):
        try:
            parse_duration_ms(ttl, "m")
        except DurationError:
            # computeEffectiveSettings keeps the 5m default when ttl does not parse, without a word.
            pruning = {k: v for k, v in pruning.items() if k != "ttl"}
            kept.keep(f"{defaults_path}.contextPruning.ttl", ttl)
            warnings.append(
                f"{defaults_path}.contextPruning.ttl {ttl!r} is not a duration: OpenClaw silently uses 5m"
            )
    if pruning is None:
        warnings.append(f"{defaults_path}.contextPruning is not set: OpenClaw does not prune")
    meta: dict[str, JSON] = {"runtime": "openclaw"}
    if version is not None:
        # The file's schema says which OpenClaw it was written for (agents.entries, or a retired key).
        meta["version"] = version
    document: dict[str, JSON] = {"trimscope": meta, "agents": {"defaults": {}}}
    defaults_doc = document["agents"]
    assert isinstance(defaults_doc, dict)
    target: dict[str, JSON] = {}
    defaults_doc["defaults"] = target
    if pruning is not None:
        target["contextPruning"] = pruning
    if defaults.get("contextTokens") is not None:
        target["contextTokens"] = defaults["contextTokens"]
    if window is not None:
        document["model"] = {"contextWindow": window}
    try:
        profile = profile_from_document(document, name=name)
    except ProfileError as exc:
        field = exc.field
        if field.startswith("contextPruning"):
            field = f"{defaults_path}.{field}"
        elif field == "agents.defaults.contextTokens":
            field = f"{defaults_path}.contextTokens"
        raise ProfileError(field, exc.problem, allowed=exc.allowed) from exc
    return replace(profile, source=name, kept=kept.keys(), warnings=(*warnings, *kept.warnings()))
