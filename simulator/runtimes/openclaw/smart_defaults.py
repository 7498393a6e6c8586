"""Anthropic smart defaults: ``applyAnthropicConfigDefaults({config, env})``.

Upstream: openclaw@2026.7.1 ``extensions/anthropic/config-defaults.ts`` with
``extensions/anthropic/claude-model-refs.ts`` and ``cli-constants.ts``. When Anthropic auth is
detected (auth profiles, ``auth.order``, else ``ANTHROPIC_OAUTH_TOKEN`` / ``ANTHROPIC_API_KEY``) and
``agents.defaults`` exists: ``contextPruning`` gets ``mode: "cache-ttl"`` (and ``ttl: "1h"`` unless
set) only when ``mode`` is unset; ``heartbeat.every`` gets ``1h`` (OAuth) or ``30m`` (API key); API-key
setups get ``params.cacheRetention: "short"`` on Anthropic model entries; OAuth setups using the
Claude CLI get ``agentRuntime.id: "claude-cli"`` on their model entries.

The config is free-form JSON, so this module works on JSON values with JavaScript property
semantics (``undefined`` vs ``null``, truthiness, object spread). Inputs are never mutated.

Deliberate divergences: where JS would throw (e.g. spreading a non-iterable ``auth.order`` entry),
the value is treated as empty. The Claude model-ref normalisation tables were read from the
OpenClaw source nearest to 2026.7.1, not from the 2026.7.1 dist itself.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from typing import Final, TypeAlias

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.jsstr import js_json_stringify, js_number_to_string, js_trim


class _Undefined(enum.Enum):
    UNDEFINED = "undefined"


UNDEFINED: Final = _Undefined.UNDEFINED
JSValue: TypeAlias = "JSON | _Undefined"

CLAUDE_CLI_BACKEND_ID: Final = "claude-cli"
ANTHROPIC_API_KEY_DEFAULT_ALLOWLIST_REFS: Final = ("anthropic/claude-sonnet-5", "anthropic/claude-sonnet-4-6")
CLAUDE_CLI_DEFAULT_ALLOWLIST_REFS: Final = (
    "claude-cli/claude-opus-4-8",
    "claude-cli/claude-sonnet-5",
    "claude-cli/claude-opus-4-7",
    "claude-cli/claude-sonnet-4-6",
    "claude-cli/claude-opus-4-6",
)
CLAUDE_CLI_MODEL_ALIASES: Final[Mapping[str, str]] = {
    "opus": "opus",
    "opus-4.8": "claude-opus-4-8",
    "opus-4.7": "claude-opus-4-7",
    "opus-4.6": "claude-opus-4-6",
    "claude-opus-4-8": "claude-opus-4-8",
    "claude-opus-4-7": "claude-opus-4-7",
    "claude-opus-4-6": "claude-opus-4-6",
    "sonnet": "sonnet",
    "sonnet-5": "claude-sonnet-5",
    "claude-sonnet-5": "claude-sonnet-5",
    "sonnet-4.6": "claude-sonnet-4-6",
    "claude-sonnet-4-6": "claude-sonnet-4-6",
    "haiku": "haiku",
}
DEFAULT_CLAUDE_MODEL_BY_FAMILY: Final[Mapping[str, str]] = {
    "opus": "claude-opus-4-8",
    "sonnet": "claude-sonnet-5",
    "haiku": "claude-haiku-4-5",
}


# --- JavaScript property semantics over JSON ---------------------------------------------------


def _key(value: JSValue) -> str:
    """``String(value)`` as used for a computed property key."""
    if isinstance(value, str):
        return value
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number_to_string(value)
    return "[object Object]" if isinstance(value, dict) else ",".join(_key(v) for v in value)


def get(obj: JSValue, key: str) -> JSValue:
    """``obj?.[key]`` for JSON: own keys of objects, indexes of arrays and strings, else undefined."""
    if isinstance(obj, dict):
        return obj.get(key, UNDEFINED)
    if isinstance(obj, list | str) and key.isascii() and key.isdigit() and str(int(key)) == key:
        index = int(key)
        if index < len(obj):
            return obj[index]
    return UNDEFINED


def truthy(value: JSValue) -> bool:
    """JavaScript truthiness of a JSON value."""
    if value is UNDEFINED or value is None:
        return False
    if isinstance(value, dict | list):
        return True
    return bool(value)


def nullish_or(value: JSValue, fallback: JSON) -> JSON:
    """``value ?? fallback``."""
    return fallback if value is UNDEFINED or value is None else value


def spread(value: JSValue) -> dict[str, JSON]:
    """``{...value}``: own enumerable entries (objects, arrays and strings by index)."""
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return {str(i): v for i, v in enumerate(value)}
    if isinstance(value, str):
        return {str(i): ch for i, ch in enumerate(value)}
    return {}


def entries(value: JSValue) -> list[tuple[str, JSON]]:
    """``Object.entries(value)``."""
    return list(spread(value).items())


def iterate(value: JSValue) -> list[JSON]:
    """``[...value]`` for arrays and strings; other values count as empty (JS would throw)."""
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        return list(value)
    return []


def is_record(value: JSValue) -> bool:
    """OpenClaw's ``isRecord``: a non-null, non-array object."""
    return isinstance(value, dict)


def lower_or_empty(value: JSValue) -> str:
    """``normalizeLowercaseStringOrEmpty``."""
    return js_trim(value).lower() if isinstance(value, str) else ""


# --- model refs ----------------------------------------------------------------------------------


def _normalize_provider_id(provider: str) -> str:
    normalized = lower_or_empty(provider)
    return "amazon-bedrock" if normalized in ("bedrock", "aws-bedrock") else normalized


def parse_provider_model_ref(
    raw: str, default_provider: str, *, normalize: bool = True
) -> tuple[str, str] | None:
    """Split ``provider/model`` (first slash); a ref without provider uses ``default_provider``.

    Returns:
        ``(provider, model)`` or None when empty or either side is blank.
    """
    trimmed = js_trim(raw)
    if not trimmed:
        return None
    slash = trimmed.find("/")
    if slash <= 0:
        return default_provider, trimmed
    provider = js_trim(trimmed[:slash])
    model = js_trim(trimmed[slash + 1 :])
    if not provider or not model:
        return None
    return (_normalize_provider_id(provider) if normalize else lower_or_empty(provider)), model


def is_cache_retention_target(parsed: tuple[str, str] | None) -> bool:
    """Anthropic models, or Bedrock models whose id contains ``anthropic.claude``."""
    if parsed is None:
        return False
    provider, model = parsed
    return provider == "anthropic" or (
        provider == "amazon-bedrock" and "anthropic.claude" in lower_or_empty(model)
    )


def _split_trailing_auth_profile(raw: str) -> tuple[str, str | None]:
    trimmed = js_trim(raw)
    if not trimmed:
        return "", None
    last_slash = trimmed.rfind("/")
    delimiter = trimmed.find("@", last_slash + 1)
    if delimiter <= 0:
        return trimmed, None
    if re.match(r"^[0-9]{8}(?:@|$)", trimmed[delimiter + 1 :]):
        next_delimiter = trimmed.find("@", delimiter + 9)
        if next_delimiter < 0:
            return trimmed, None
        delimiter = next_delimiter
    model = js_trim(trimmed[:delimiter])
    profile = js_trim(trimmed[delimiter + 1 :])
    return (model, profile) if model and profile else (trimmed, None)


def _with_profile(model: str, profile: str | None) -> str:
    return f"{model}@{profile}" if profile else model


def _has_retired_prefix(normalized: str, prefixes: tuple[str, ...]) -> bool:
    for prefix in prefixes:
        if normalized == prefix:
            return True
        if normalized.startswith(prefix) and normalized[len(prefix) : len(prefix) + 1] in (
            "-",
            ".",
            ":",
            "@",
        ):
            return True
    return False


_CURRENT_PREFIXES: Final = (
    "claude-opus-4-8",
    "claude-opus-4.8",
    "claude-opus-4-7",
    "claude-opus-4.7",
    "claude-opus-4-6",
    "claude-opus-4.6",
    "claude-sonnet-4-6",
    "claude-sonnet-4.6",
    "claude-haiku-4-5",
    "claude-haiku-4.5",
)


def _upgrade_old_claude_model_id(normalized: str) -> str | None:
    if any(normalized.startswith(p) for p in _CURRENT_PREFIXES):
        return None
    if (
        normalized == "claude-opus-4"
        or _has_retired_prefix(
            normalized,
            (
                "claude-opus-4-7",
                "claude-opus-4.7",
                "claude-opus-4-5",
                "claude-opus-4.5",
                "claude-opus-4-1",
                "claude-opus-4.1",
                "claude-opus-4-0",
                "claude-opus-4.0",
            ),
        )
        or re.match(r"^claude-opus-4-20[0-9]{6}", normalized)
    ):
        return "claude-opus-4-8"
    if (
        normalized == "claude-sonnet-4"
        or _has_retired_prefix(
            normalized,
            (
                "claude-sonnet-4-5",
                "claude-sonnet-4.5",
                "claude-sonnet-4-1",
                "claude-sonnet-4.1",
                "claude-sonnet-4-0",
                "claude-sonnet-4.0",
            ),
        )
        or re.match(r"^claude-sonnet-4-20[0-9]{6}", normalized)
    ):
        return "claude-sonnet-4-6"
    if normalized.startswith("claude-3") and "opus" in normalized:
        return "claude-opus-4-8"
    if normalized.startswith("claude-3") and ("sonnet" in normalized or "haiku" in normalized):
        return "claude-sonnet-4-6"
    if normalized in ("opus-4.5", "opus-4.1", "opus-4", "opus-3"):
        return "claude-opus-4-8"
    if normalized in (
        "sonnet-4.5",
        "sonnet-4.1",
        "sonnet-4.0",
        "sonnet-4",
        "sonnet-3.7",
        "sonnet-3.5",
        "sonnet-3",
        "haiku-3.5",
        "haiku-3",
    ):
        return "claude-sonnet-4-6"
    return None


def _canonicalize_known_claude_model_id(model_id: str) -> str | None:
    model, profile = _split_trailing_auth_profile(model_id)
    trimmed = js_trim(model)
    normalized = lower_or_empty(trimmed)
    if not normalized or normalized.startswith("claude-sonnet-5"):
        return None
    upgraded = _upgrade_old_claude_model_id(normalized)
    if upgraded:
        return _with_profile(upgraded, profile)
    if normalized.startswith("claude-"):
        return _with_profile(trimmed, profile)
    family = DEFAULT_CLAUDE_MODEL_BY_FAMILY.get(normalized)
    if family:
        return _with_profile(family, profile)
    aliased = CLAUDE_CLI_MODEL_ALIASES.get(normalized)
    return _with_profile(aliased, profile) if aliased and aliased.startswith("claude-") else None


def resolve_claude_cli_anthropic_model_refs(raw: str) -> tuple[tuple[str, ...], str | None] | None:
    """``resolveClaudeCliAnthropicModelRefs``: ``(runtimeRefs, rewriteRef)`` or None."""
    parsed = parse_provider_model_ref(raw, "anthropic", normalize=False)
    if parsed is None:
        return None
    provider, model = parsed
    explicit = js_trim(raw).find("/") > 0
    if provider not in ("anthropic", CLAUDE_CLI_BACKEND_ID):
        return None
    refs = [f"anthropic/{model}"]
    canonical = _canonicalize_known_claude_model_id(model)
    if not explicit and not canonical:
        return None
    rewrite = f"anthropic/{canonical or model}" if canonical or provider == CLAUDE_CLI_BACKEND_ID else None
    if rewrite and rewrite not in refs:
        refs.append(rewrite)
    return tuple(refs), rewrite


def resolve_known_anthropic_model_ref(raw: str | None) -> str | None:
    """``resolveKnownAnthropicModelRef``: the current Anthropic ref for a known/retired model."""
    if not raw:
        return None
    trimmed = js_trim(raw)
    if not trimmed:
        return None
    resolved = resolve_claude_cli_anthropic_model_refs(trimmed)
    return resolved[1] if resolved is not None and resolved[1] else trimmed


# --- auth mode -----------------------------------------------------------------------------------


def _order(config: JSON) -> list[JSON]:
    order = get(get(config, "auth"), "order")
    return iterate(nullish_or(get(order, "anthropic"), [])) + iterate(
        nullish_or(get(order, CLAUDE_CLI_BACKEND_ID), [])
    )


def _profiles(config: JSON) -> JSON:
    return nullish_or(get(get(config, "auth"), "profiles"), {})


def resolve_anthropic_default_auth_mode(config: JSON, env: Mapping[str, JSON]) -> str | None:
    """``"api_key"``, ``"oauth"`` or None (no Anthropic auth), as OpenClaw decides it."""
    profiles = _profiles(config)
    for profile_id in _order(config):
        entry = get(profiles, _key(profile_id))
        provider = get(entry, "provider")
        if not truthy(entry) or provider not in ("anthropic", CLAUDE_CLI_BACKEND_ID):
            continue
        if provider == CLAUDE_CLI_BACKEND_ID:
            return "oauth"
        mode = get(entry, "mode")
        if mode == "api_key":
            return "api_key"
        if mode in ("oauth", "token"):
            return "oauth"
    anthropic = [
        p for _, p in entries(profiles) if get(p, "provider") in ("anthropic", CLAUDE_CLI_BACKEND_ID)
    ]
    has_api_key = any(get(p, "provider") == "anthropic" and get(p, "mode") == "api_key" for p in anthropic)
    has_oauth = any(
        get(p, "provider") == CLAUDE_CLI_BACKEND_ID or get(p, "mode") in ("oauth", "token") for p in anthropic
    )
    if has_api_key and not has_oauth:
        return "api_key"
    if has_oauth and not has_api_key:
        return "oauth"
    oauth_token = env.get("ANTHROPIC_OAUTH_TOKEN")
    if isinstance(oauth_token, str) and js_trim(oauth_token):
        return "oauth"
    api_key = env.get("ANTHROPIC_API_KEY")
    if isinstance(api_key, str) and js_trim(api_key):
        return "api_key"
    return None


# --- Claude CLI selection ------------------------------------------------------------------------


def _primary_value(value: JSValue) -> str | None:
    if isinstance(value, str):
        return js_trim(value) or None
    primary = get(value, "primary")
    return (js_trim(primary) or None) if isinstance(primary, str) else None


def _uses_claude_cli_model_selection(defaults: JSValue) -> bool:
    primary = _primary_value(get(defaults, "model"))
    parsed = parse_provider_model_ref(primary, "anthropic") if primary else None
    if parsed is not None and parsed[0] == CLAUDE_CLI_BACKEND_ID:
        return True
    for key, entry in entries(nullish_or(get(defaults, "models"), {})):
        parsed_key = parse_provider_model_ref(key, "anthropic")
        if parsed_key is not None and parsed_key[0] == CLAUDE_CLI_BACKEND_ID:
            return True
        runtime = get(entry, "agentRuntime")
        runtime_id = get(runtime, "id") if is_record(runtime) else UNDEFINED
        if (
            parsed_key is not None
            and parsed_key[0] == "anthropic"
            and lower_or_empty(runtime_id) == CLAUDE_CLI_BACKEND_ID
        ):
            return True
    return False


def _uses_selected_claude_cli_auth_profile(config: JSON) -> bool:
    profiles = _profiles(config)
    for profile_id in _order(config):
        provider = get(get(profiles, _key(profile_id)), "provider")
        if provider == CLAUDE_CLI_BACKEND_ID:
            return True
        if provider == "anthropic":
            return False
    values = [p for _, p in entries(profiles)]
    has_cli = any(get(p, "provider") == CLAUDE_CLI_BACKEND_ID for p in values)
    has_anthropic = any(get(p, "provider") == "anthropic" for p in values)
    return has_cli and not has_anthropic


def _claude_cli_runtime_refs(config: JSON, defaults: JSValue) -> list[str]:
    selections: list[tuple[JSValue, JSValue]] = [(get(defaults, "model"), get(defaults, "models"))]
    for agent in iterate(nullish_or(get(get(config, "agents"), "list"), [])):
        selections.append((get(agent, "model"), get(agent, "models")))
    refs: list[str] = []
    for model, models in selections:
        selected: list[JSValue]
        if isinstance(model, str):
            selected = [model]
        else:
            selected = [get(model, "primary"), *iterate(nullish_or(get(model, "fallbacks"), []))]
        selected.extend(k for k, _ in entries(nullish_or(models, {})))
        for raw_ref in selected:
            if not isinstance(raw_ref, str):
                continue
            resolved = resolve_claude_cli_anthropic_model_refs(raw_ref)
            for ref in resolved[0] if resolved else ():
                if ref not in refs:
                    refs.append(ref)
    return refs


def _with_claude_cli_runtime(entry: JSValue) -> dict[str, JSON]:
    base = spread(entry) if is_record(entry) else {}
    runtime = base.get("agentRuntime", UNDEFINED)
    current = lower_or_empty(get(runtime, "id") if is_record(runtime) else UNDEFINED)
    if current and current != "auto":
        return base
    base["agentRuntime"] = {**(spread(runtime) if is_record(runtime) else {}), "id": CLAUDE_CLI_BACKEND_ID}
    return base


def _with_cache_retention(current: JSON) -> dict[str, JSON] | None:
    params = nullish_or(get(current, "params"), {})
    if isinstance(get(params, "cacheRetention"), str):
        return None
    return {**spread(current), "params": {**spread(params), "cacheRetention": "short"}}


# --- entry point ---------------------------------------------------------------------------------


def apply_anthropic_config_defaults(config: JSON, env: Mapping[str, JSON]) -> JSON:
    """Apply OpenClaw's Anthropic smart defaults to a config.

    Args:
        config: The OpenClaw config JSON (not mutated).
        env: Environment variables (``ANTHROPIC_OAUTH_TOKEN``, ``ANTHROPIC_API_KEY``).

    Returns:
        The input itself when nothing applies, else a new config with the defaults filled in.
    """
    agents = get(config, "agents")
    defaults = get(agents, "defaults")
    if not truthy(defaults):
        return config
    auth_mode = resolve_anthropic_default_auth_mode(config, env)
    if auth_mode is None:
        return config
    mutated = False
    next_defaults = spread(defaults)
    pruning = get(defaults, "contextPruning")
    if get(pruning, "mode") is UNDEFINED:
        next_defaults["contextPruning"] = {
            **spread(nullish_or(pruning, {})),
            "mode": "cache-ttl",
            "ttl": nullish_or(get(pruning, "ttl"), "1h"),
        }
        mutated = True
    heartbeat = get(defaults, "heartbeat")
    if get(heartbeat, "every") is UNDEFINED:
        next_defaults["heartbeat"] = {
            **spread(nullish_or(heartbeat, {})),
            "every": "1h" if auth_mode == "oauth" else "30m",
        }
        mutated = True
    models = get(defaults, "models")
    if auth_mode == "api_key":
        next_models = spread(models) if truthy(models) else {}
        models_mutated = False
        for key, entry in list(next_models.items()):
            if not is_cache_retention_target(parse_provider_model_ref(key, "anthropic")):
                continue
            updated = _with_cache_retention(nullish_or(entry, {}))
            if updated is not None:
                next_models[key] = updated
                models_mutated = True
        primary = resolve_known_anthropic_model_ref(_primary_value(get(defaults, "model")))
        parsed_primary = parse_provider_model_ref(primary, "anthropic") if primary else None
        if parsed_primary is not None and is_cache_retention_target(parsed_primary):
            key = f"{parsed_primary[0]}/{parsed_primary[1]}"
            updated = _with_cache_retention(nullish_or(next_models.get(key, UNDEFINED), {}))
            if updated is not None:
                next_models[key] = updated
                models_mutated = True
        if any(is_cache_retention_target(parse_provider_model_ref(k, "anthropic")) for k in next_models):
            for ref in ANTHROPIC_API_KEY_DEFAULT_ALLOWLIST_REFS:
                if ref not in next_models:
                    next_models[ref] = {"params": {"cacheRetention": "short"}}
                    models_mutated = True
        if models_mutated:
            next_defaults["models"] = dict(next_models)
            mutated = True
    if auth_mode == "oauth" and (
        _uses_claude_cli_model_selection(defaults) or _uses_selected_claude_cli_auth_profile(config)
    ):
        next_models = spread(models) if truthy(models) else {}
        models_mutated = False
        refs = _claude_cli_runtime_refs(config, defaults)
        for raw_ref in CLAUDE_CLI_DEFAULT_ALLOWLIST_REFS:
            ref = f"anthropic/{raw_ref[len(CLAUDE_CLI_BACKEND_ID) + 1 :]}"
            if ref not in refs:
                refs.append(ref)
        for ref in refs:
            current = next_models.get(ref, UNDEFINED)
            updated_entry = _with_claude_cli_runtime(current)
            before = js_json_stringify(nullish_or(current, {}))
            if js_json_stringify(updated_entry) == before:
                continue
            next_models[ref] = updated_entry
            models_mutated = True
        if models_mutated:
            next_defaults["models"] = dict(next_models)
            mutated = True
    if not mutated:
        return config
    return {**spread(config), "agents": {**spread(agents), "defaults": dict(next_defaults)}}
