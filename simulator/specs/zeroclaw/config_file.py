"""A whole ZeroClaw ``config.toml``, read the way ZeroClaw loads it: one profile per agent.

Source: zeroclaw-labs/zeroclaw master 15d28660 (v0.8.4), crate ``zeroclaw-config``:

* ``migration.rs``: ``detect_version`` (no ``schema_version`` = 1; not a positive integer = error;
  above 3 = "newer than this binary supports") and the V1→V2→V3 chain;
* ``schema/v1.rs`` ``V1Config::migrate``: ``default_provider`` (alias ``model_provider``, unset =
  ``"openrouter"``) names the ``[model_providers.<id>]`` entry that ``default_model`` (alias
  ``model``) is folded into as ``model`` (an entry's own value wins); ``model_providers`` become
  ``providers.models``; a user-written ``[providers]`` is merged under the synthesized one;
* ``schema/v2.rs`` ``V2Config::migrate``: ``[agent]`` (minus ``allowed_tools``, which goes to the
  risk profile) is merged into ``[runtime_profiles.default]`` (values already there win);
  ``providers.models.<id>`` becomes ``providers.models.<type>.default`` through
  ``normalize_provider_type`` (``anthropic-custom:https://…`` splits into ``anthropic.custom`` with a
  ``uri``); ``[providers]`` globals ``default_provider``/``default_model`` fold into that entry;
  an agent's inline ``provider``/``model`` become ``providers.models.<provider>.agent_<alias>`` and
  its ``model_provider``; its ``max_iterations`` becomes ``runtime_profiles.agent_<alias>
  .max_tool_iterations``; an agent without a runtime profile gets ``default``; with no agents at
  all, ``agents.default`` is synthesized on the first provider entry (``synthesize_default_agent_if_needed``);
* ``schema.rs``: ``runtime_profile_for_agent`` (a missing or empty reference falls back to the
  defaults), ``resolved_model_provider_for_agent`` (``model_provider = "<type>.<alias>"``),
  ``configured_model_context_window`` (that entry's ``context_window``; unset → the 32,000
  ``UNCONFIGURED_CONTEXT_WINDOW_FALLBACK``), ``effective_max_tool_iterations`` (0 = 10),
  ``default_max_tool_result_chars`` (50,000) and ``HistoryPrunerConfig`` (``max_tokens`` 8,192
  when the table omits it).

``context_compact_ratio`` is the proposed key (PRs #9368, #9535); the released v0.8.4 has no such key
and ignores it. Divergences, on purpose: ZeroClaw logs and ignores an unknown key (or, for a wrong
type, drops the whole top-level section); Trimscope refuses both, naming the key. With several
``model_providers`` and no ``default_provider`` entry among them, ZeroClaw's pick of the first one
depends on hash order; Trimscope takes the first in the file and says so.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from simulator.config_keys import (
    ConfigFile,
    KeptCollector,
    check_keys,
    close_to,
    join,
    table,
    unknown_key_error,
)
from simulator.errors import ProfileError
from simulator.jsonvalue import JSON
from simulator.profiles import KeptKey, Profile, profile_from_document
from simulator.runtimes.zeroclaw.budget import LEGACY_CONTEXT_TOKENS
from simulator.specs.zeroclaw.config_schema import (
    AGENT_KEYS,
    HISTORY_PRUNING_KEYS,
    PROVIDER_FAMILIES,
    RUNTIME_PROFILE_KEYS,
    TOP_LEVEL_KEYS,
    V1_AGENT_KEYS,
    V2_AGENT_KEYS,
    normalize_provider_type,
    split_colon_url_provider,
)
from simulator.specs.zeroclaw.knobs import VERSION_LABELS

CURRENT_SCHEMA_VERSION = 3
DEFAULT_MAX_TOOL_RESULT_CHARS = 50_000
"""``schema.rs`` ``default_max_tool_result_chars``."""
DEFAULT_HISTORY_PRUNING_MAX_TOKENS = 8192
"""``scattered_types.rs`` ``HistoryPrunerConfig::default_max_tokens``."""
RUNTIME = "ZeroClaw"
_RELEASED = VERSION_LABELS["upstream"]
"""The key schema here is the released one's, named by its registry label."""

PROVIDER_MODELLED = ("context_window", "model")
RUNTIME_PROFILE_MODELLED = (
    "max_context_tokens",
    "context_compact_ratio",
    "max_history_messages",
    "max_tool_iterations",
    "max_tool_result_chars",
)


@dataclass(slots=True)
class _Migration:
    """The document being migrated, the notes it produced, and where moved keys came from."""

    doc: dict[str, JSON]
    notes: list[str] = field(default_factory=list)
    origin: dict[str, str] = field(default_factory=dict)
    """Migrated path → the path the key had in the file."""
    moved: dict[str, JSON] = field(default_factory=dict)
    """Keys the migration moves where Trimscope does not follow (risk profiles, skill bundles), by
    their path in the file: kept with the profiles they belong to."""

    def where(self, path: str) -> str:
        return self.origin.get(path, path)


def detect_version(doc: Mapping[str, JSON]) -> int:
    """``migration.rs`` ``detect_version``."""
    raw = doc.get("schema_version")
    if raw is None:
        return 1
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
        raise ProfileError(
            "schema_version", f"must be a positive integer, got {json.dumps(raw)}", allowed="1, 2 or 3"
        )
    if raw > CURRENT_SCHEMA_VERSION:
        raise ProfileError(
            "schema_version",
            f"{raw} is newer than ZeroClaw {_RELEASED} supports ({CURRENT_SCHEMA_VERSION})",
            allowed="1, 2 or 3",
        )
    return raw


def _merge_or_insert(target: dict[str, JSON], fields: Mapping[str, JSON]) -> list[str]:
    """``merge_into_profile_default``: values already in ``target`` win; returns the keys that lost."""
    lost = []
    for key, value in fields.items():
        if key in target:
            lost.append(key)
        else:
            target[key] = value
    return lost


def _v1_to_v2(m: _Migration) -> None:
    doc = m.doc
    default_provider = doc.pop("default_provider", doc.pop("model_provider", None))
    default_model = doc.pop("default_model", doc.pop("model", None))
    model_providers = table(doc.pop("model_providers", None), "model_providers")
    if default_provider is None and default_model is None and not model_providers:
        return
    key = default_provider if isinstance(default_provider, str) else "openrouter"
    models = {k: copy.deepcopy(v) for k, v in model_providers.items()}
    for k in models:
        m.origin[f"providers.models.{k}"] = f"model_providers.{k}"
    if default_model is not None:
        entry = table(models.get(key), f"model_providers.{key}")
        if "model" not in entry:
            entry["model"] = default_model
            m.origin[f"providers.models.{key}.model"] = "default_model"
        models[key] = entry
        m.notes.append(f"V1 default_model folded into [model_providers.{key}] (default_provider {key!r})")
    providers: dict[str, JSON] = {"fallback": key}
    if models:
        providers["models"] = models
    user = table(doc.get("providers"), "providers")
    doc["providers"] = {**user, **providers}


def _v2_to_v3(m: _Migration) -> None:
    doc = m.doc
    agent = doc.pop("agent", None)
    if agent is not None:
        agent_table = dict(table(agent, "agent"))
        check_keys(agent_table, "agent", V1_AGENT_KEYS, RUNTIME)
        if "allowed_tools" in agent_table:
            m.moved["agent.allowed_tools"] = agent_table.pop("allowed_tools")
        profiles = table(doc.setdefault("runtime_profiles", {}), "runtime_profiles")
        target = table(profiles.setdefault("default", {}), "runtime_profiles.default")
        lost = _merge_or_insert(target, agent_table)
        for key in agent_table:
            if key not in lost:
                m.origin[f"runtime_profiles.default.{key}"] = f"agent.{key}"
        m.notes.append("legacy [agent] merged into [runtime_profiles.default] (V2→V3 migration)")
        if lost:
            m.notes.append(
                f"[runtime_profiles.default] already sets {', '.join(lost)}: the [agent] values lose"
            )
    providers = table(doc.get("providers"), "providers")
    fallback = providers.pop("fallback", None)
    globals_provider = providers.pop("default_provider", None)
    globals_model = providers.pop("default_model", None)
    flat = table(providers.pop("models", None), "providers.models")
    aliased: dict[str, JSON] = {}
    default_ref = ""
    for provider_id, config in flat.items():
        raw, url = split_colon_url_provider(provider_id)
        family, alias = normalize_provider_type(raw)
        entry = dict(table(config, m.where(f"providers.models.{provider_id}")))
        if url is not None:
            entry.setdefault("uri", url)
        table(aliased.setdefault(family, {}), f"providers.models.{family}")[alias] = entry
        for suffix in ("", ".model"):
            old = m.origin.pop(f"providers.models.{provider_id}{suffix}", None)
            if old is not None:
                m.origin[f"providers.models.{family}.{alias}{suffix}"] = old
        # The synthesized agent's provider: the default provider's entry, else the first one.
        if provider_id == fallback or not default_ref:
            default_ref = f"{family}.{alias}"
    if globals_provider is not None or globals_model is not None:
        # fold_providers_globals_into_models: the entry named by default_provider, else the first.
        if isinstance(globals_provider, str):
            family, alias = normalize_provider_type(split_colon_url_provider(globals_provider)[0])
        else:
            family, alias = (next(iter(aliased)), "default") if aliased else ("openrouter", "default")
        family_table = table(aliased.setdefault(family, {}), f"providers.models.{family}")
        entry = table(family_table.setdefault(alias, {}), f"providers.models.{family}.{alias}")
        if globals_model is not None and "model" not in entry:
            entry["model"] = globals_model
            m.origin[f"providers.models.{family}.{alias}.model"] = "providers.default_model"
        default_ref = default_ref or f"{family}.{alias}"
    if len(flat) > 1 and fallback not in flat:
        m.notes.append(
            "several model providers and none is the default provider: ZeroClaw's pick for the "
            "synthesized agent depends on hash order; Trimscope takes the first in the file"
        )
    if aliased:
        providers["models"] = aliased
    if providers:
        doc["providers"] = providers
    agents = table(doc.get("agents"), "agents")
    if agents:
        for alias, body in agents.items():
            agents[alias] = _v2_agent(m, alias, dict(table(body, f"agents.{alias}")))
    elif default_ref:
        doc["agents"] = {"default": {"model_provider": default_ref, "runtime_profile": "default"}}
        table(doc.setdefault("runtime_profiles", {}), "runtime_profiles").setdefault("default", {})
        m.notes.append(f"no agents: [agents.default] synthesized on provider {default_ref} (V2→V3 migration)")
    doc["schema_version"] = CURRENT_SCHEMA_VERSION


def _v2_agent(m: _Migration, alias: str, agent: dict[str, JSON]) -> dict[str, JSON]:
    """``synthesize_agent_brains`` for one agent (the brain fields this reader models)."""
    check_keys(agent, f"agents.{alias}", AGENT_KEYS | V2_AGENT_KEYS, RUNTIME)
    provider = agent.pop("provider", None)
    model = agent.pop("model", None)
    brain: dict[str, JSON] = {
        k: agent.pop(k) for k in ("api_key", "temperature", "timeout_secs") if k in agent
    }
    if isinstance(provider, str):
        family, url = split_colon_url_provider(provider)
        entry: dict[str, JSON] = {}
        if url is not None:
            entry["uri"] = url
        if model is not None:
            entry["model"] = model
        entry.update(brain)
        for key in (*brain, "model"):
            m.origin[f"providers.models.{family}.agent_{alias}.{key}"] = f"agents.{alias}.{key}"
        providers = table(m.doc.setdefault("providers", {}), "providers")
        models = table(providers.setdefault("models", {}), "providers.models")
        table(models.setdefault(family, {}), f"providers.models.{family}")[f"agent_{alias}"] = entry
        agent["model_provider"] = f"{family}.agent_{alias}"
        m.notes.append(f"agents.{alias}: inline provider/model → providers.models.{family}.agent_{alias}")
    iterations_key = "max_iterations" if "max_iterations" in agent else "max_tool_iterations"
    iterations = agent.pop("max_iterations", agent.pop("max_tool_iterations", None))
    moves = (
        ("agentic", "agentic", agent.pop("agentic", None)),
        ("max_delegation_depth", "max_depth", agent.pop("max_depth", None)),
        ("agentic_timeout_secs", "agentic_timeout_secs", agent.pop("agentic_timeout_secs", None)),
        ("max_tool_iterations", iterations_key, iterations),
    )
    overrides = {key: value for key, _, value in moves if value is not None}
    for key, old, value in moves:
        if value is not None:
            m.origin[f"runtime_profiles.agent_{alias}.{key}"] = f"agents.{alias}.{old}"
    profiles = table(m.doc.setdefault("runtime_profiles", {}), "runtime_profiles")
    if overrides:
        profile = table(profiles.setdefault(f"agent_{alias}", {}), f"runtime_profiles.agent_{alias}")
        profile.update(overrides)
        agent.setdefault("runtime_profile", f"agent_{alias}")
    runtime_profile = agent.get("runtime_profile")
    if not isinstance(runtime_profile, str) or not runtime_profile.strip():
        agent["runtime_profile"] = "default"
    profiles.setdefault(str(agent["runtime_profile"]), {})
    for key in ("allowed_tools", "skills_directory", "memory_namespace", "system_prompt"):
        if key in agent:
            m.moved[f"agents.{alias}.{key}"] = agent.pop(key)
    return agent


def migrate(
    doc: Mapping[str, JSON],
) -> tuple[dict[str, JSON], int, list[str], dict[str, str], dict[str, JSON]]:
    """A parsed config as schema 3, its version, the migration notes, moved-key origins, moved-away keys.

    Raises:
        ProfileError: for a bad ``schema_version`` or a key ZeroClaw does not know.
    """
    version = detect_version(doc)
    m = _Migration(copy.deepcopy(dict(doc)))
    for key in doc:
        if key in TOP_LEVEL_KEYS:
            continue
        if version == CURRENT_SCHEMA_VERSION:
            raise unknown_key_error("", key, TOP_LEVEL_KEYS, RUNTIME)
        # Older schemas had sections V3 dropped; ZeroClaw logs "Unknown config key ignored".
        m.notes.append(f"[{key}] is not a ZeroClaw {_RELEASED} section: ZeroClaw ignores it (kept here)")
    if version == 1:
        _v1_to_v2(m)
    if version <= 2:
        _v2_to_v3(m)
    return m.doc, version, m.notes, m.origin, m.moved


# -- one profile per agent (or per runtime profile) ---------------------------------------------------


def _count(value: JSON, path: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProfileError(path, f"must be an integer, got {json.dumps(value)}", allowed="an integer ≥ 0")
    if value < 0:
        # usize: ZeroClaw's strict load fails; its resilient load drops the whole top-level section.
        raise ProfileError(
            path,
            f"{value} is negative: ZeroClaw cannot read it (usize) and drops the whole "
            f"[{path.split('.')[0]}] section",
            allowed="an integer ≥ 0",
        )
    return value


@dataclass(frozen=True, slots=True)
class _Target:
    name: str
    agent: str | None
    runtime_profile: str | None


def _profile(
    config: Mapping[str, JSON],
    target: _Target,
    origin: Mapping[str, str],
    notes: list[str],
    moved: Mapping[str, JSON],
) -> Profile:
    def where(path: str) -> str:
        # The longest migrated prefix of ``path`` names where it was in the file.
        parts = path.split(".")
        for end in range(len(parts), 0, -1):
            prefix = ".".join(parts[:end])
            if prefix in origin:
                return ".".join([origin[prefix], *parts[end:]])
        return path

    kept = KeptCollector()
    for path, value in moved.items():
        if path.startswith("agent.") or (
            target.agent is not None and path.startswith(f"agents.{target.agent}.")
        ):
            kept.keep(path, value)
    for key, value in config.items():
        if key not in ("agents", "runtime_profiles", "providers", "schema_version"):
            kept.keep(where(key), value)
    warnings = list(notes)
    agents = table(config.get("agents"), "agents")
    profiles = table(config.get("runtime_profiles"), "runtime_profiles")
    rp_name = target.runtime_profile
    provider: dict[str, JSON] = {}
    provider_path = ""
    if target.agent is not None:
        agent_path = f"agents.{target.agent}"
        agent = table(agents.get(target.agent), agent_path)
        check_keys(agent, where(agent_path), AGENT_KEYS, RUNTIME)
        kept.keep_rest(agent, agent_path, ("runtime_profile", "model_provider"), where)
        if agent.get("enabled") is False:
            warnings.append(f"{agent_path} has enabled = false: ZeroClaw does not run it")
        ref = agent.get("runtime_profile")
        rp_name = ref.strip() if isinstance(ref, str) and ref.strip() else None
        if rp_name is None:
            warnings.append(f"{agent_path} names no runtime_profile: ZeroClaw's defaults apply")
        elif rp_name not in profiles:
            warnings.append(
                f"{agent_path}.runtime_profile {rp_name!r} is not defined: ZeroClaw's defaults apply"
            )
            rp_name = None
        provider, provider_path = _provider_for(config, agent, agent_path, warnings)
    rp_path = f"runtime_profiles.{rp_name}" if rp_name is not None else ""
    rp = table(profiles.get(rp_name), rp_path) if rp_name is not None else {}
    for key in rp:
        if key not in RUNTIME_PROFILE_KEYS:
            raise unknown_key_error(
                where(join(rp_path, key)).rsplit(".", 1)[0], key, RUNTIME_PROFILE_KEYS, RUNTIME
            )
    pruning_path = join(rp_path, "history_pruning")
    pruning = table(rp.get("history_pruning"), where(pruning_path))
    check_keys(pruning, where(pruning_path), HISTORY_PRUNING_KEYS, RUNTIME)
    kept.keep_rest(rp, rp_path, (*RUNTIME_PROFILE_MODELLED, "history_pruning"), where)
    kept.keep_rest(pruning, pruning_path, ("enabled", "max_tokens"), where)
    if provider_path:
        kept.keep_rest(provider, provider_path, PROVIDER_MODELLED, where)

    def knob(key: str) -> int | None:
        return _count(rp.get(key), where(join(rp_path, key)))

    ratio = rp.get("context_compact_ratio")
    ratio_path = where(join(rp_path, "context_compact_ratio"))
    if ratio is not None and (isinstance(ratio, bool) or not isinstance(ratio, int | float)):
        raise ProfileError(
            ratio_path, f"must be a number, got {json.dumps(ratio)}", allowed="a number in (0, 1]"
        )
    # What ZeroClaw does with an out-of-range ratio follows from the value: the spec's knob notes (notes.py).
    iterations = knob("max_tool_iterations")
    if iterations == 0:
        warnings.append(f"{where(join(rp_path, 'max_tool_iterations'))} = 0 means ZeroClaw's default, 10")
    result_chars = knob("max_tool_result_chars")
    enabled = pruning.get("enabled", False)
    if not isinstance(enabled, bool):
        raise ProfileError(
            where(join(pruning_path, "enabled")),
            f"must be true or false, got {json.dumps(enabled)}",
            allowed="true, false",
        )
    pruning_max = _count(pruning.get("max_tokens"), where(join(pruning_path, "max_tokens")))
    window = (
        _count(provider.get("context_window"), where(join(provider_path, "context_window")))
        if provider_path
        else None
    )
    model = provider.get("model") if provider_path else None
    if model is not None and not isinstance(model, str):
        raise ProfileError(where(join(provider_path, "model")), "must be a string", allowed="a model name")
    if provider_path and not window:
        warnings.append(
            f"{where(provider_path)} declares no context_window: ZeroClaw uses the "
            f"{LEGACY_CONTEXT_TOKENS:,} fallback window"
        )
    if target.agent is None:
        warnings.append(
            f"no agent uses runtime profile {target.name!r}: no provider, so the window is the "
            f"{LEGACY_CONTEXT_TOKENS:,} fallback"
        )
    rp_doc: dict[str, JSON] = {
        "max_tool_iterations": iterations or 10,
        "max_tool_result_chars": DEFAULT_MAX_TOOL_RESULT_CHARS if result_chars is None else result_chars,
        "history_pruning": {
            "enabled": enabled,
            "max_tokens": DEFAULT_HISTORY_PRUNING_MAX_TOKENS if pruning_max is None else pruning_max,
        },
    }
    for key in ("max_context_tokens", "max_history_messages"):
        value = knob(key)
        if value is not None:
            rp_doc[key] = value
    if ratio is not None:
        rp_doc["context_compact_ratio"] = float(ratio)
    document: dict[str, JSON] = {
        "trimscope": {"runtime": "zeroclaw", "version": "documented"},
        "runtime_profiles": {"default": rp_doc},
    }
    provider_doc: dict[str, JSON] = {}
    if window:
        provider_doc["context_window"] = window
    if isinstance(model, str):
        provider_doc["model"] = model
    if provider_doc:
        document["provider"] = provider_doc
    profile = profile_from_document(document, name=target.name)
    return replace(
        profile,
        source=target.name,
        kept=kept.keys(),
        warnings=(*warnings, *kept.warnings()),
    )


def _provider_for(
    config: Mapping[str, JSON], agent: Mapping[str, JSON], agent_path: str, warnings: list[str]
) -> tuple[dict[str, JSON], str]:
    """``resolved_model_provider_for_agent``: ``model_provider = "<type>.<alias>"``, looked up."""
    ref = agent.get("model_provider")
    fallback = f"ZeroClaw uses the {LEGACY_CONTEXT_TOKENS:,} fallback window"
    if not isinstance(ref, str) or "." not in ref:
        warnings.append(f"{agent_path}.model_provider is not set as <type>.<alias>: {fallback}")
        return {}, ""
    family, alias = ref.split(".", 1)
    models = table(table(config.get("providers"), "providers").get("models"), "providers.models")
    if family not in PROVIDER_FAMILIES:
        warnings.append(
            f"providers.models.{family} is not a ZeroClaw provider family (ZeroClaw drops it): {fallback}"
        )
        return {}, ""
    entry = table(models.get(family), f"providers.models.{family}").get(alias)
    if entry is None:
        warnings.append(f"{agent_path}.model_provider {ref!r} is not defined in providers.models: {fallback}")
        return {}, ""
    path = f"providers.models.{family}.{alias}"
    body = table(entry, path)
    for key in body:
        typo = close_to(key, PROVIDER_MODELLED)
        if typo is not None:
            raise unknown_key_error(path, key, (*PROVIDER_MODELLED, typo), RUNTIME)
    return body, path


def read_zeroclaw_config(doc: Mapping[str, JSON]) -> ConfigFile:
    """A parsed ``config.toml`` as ZeroClaw loads it.

    Returns:
        One profile per agent, named after it; with no agents, one per runtime profile.

    Raises:
        ProfileError: for an unknown key (with a did-you-mean), a bad ``schema_version`` or a value
            ZeroClaw cannot read, naming its key path in the file.
    """
    config, version, notes, origin, moved = migrate(doc)
    shape = f"ZeroClaw config.toml (schema {version}" + (", migrated to 3)" if version < 3 else ")")
    agents = table(config.get("agents"), "agents")
    profiles = table(config.get("runtime_profiles"), "runtime_profiles")
    if agents:
        targets = [_Target(name, name, None) for name in agents]
    else:
        targets = [_Target(name, None, name) for name in profiles]
    if not targets:
        raise ProfileError(
            "(document)",
            "has no [agents.<name>] and no [runtime_profiles.<name>]: nothing to simulate",
            allowed="a ZeroClaw config.toml with agents or runtime profiles",
        )
    built = tuple(_profile(config, t, origin, notes, moved) for t in targets)
    used = {table(agents.get(t.name), "").get("runtime_profile") for t in targets if t.agent is not None}
    warnings = list(notes)
    kept_all: dict[str, None] = {}
    for name in profiles:
        if agents and name not in used:
            kept_all[f"runtime_profiles.{name}"] = None
    for p in built:
        for k in p.kept:
            kept_all[k.path] = None
    if agents:
        warnings.append(f"{len(built)} agent(s): one profile each, named after the agent")
    return ConfigFile("zeroclaw", shape, built, tuple(warnings), tuple(kept_all))


def runtime_profile_kept(profiles: Mapping[str, JSON]) -> tuple[KeptKey, ...]:
    """The keys of a hand-written profile's ``[runtime_profiles.<name>]`` that are kept, not modelled.

    They are checked as ZeroClaw checks its own file (an unknown key is refused with a did-you-mean).

    Raises:
        ProfileError: naming the first key ZeroClaw does not know.
    """
    checked = read_zeroclaw_config(
        {"schema_version": CURRENT_SCHEMA_VERSION, "runtime_profiles": dict(profiles)}
    )
    return checked.profiles[0].kept
