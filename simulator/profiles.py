"""Profiles: which runtime (and version) plus every knob it reads, in the runtime's own config keys.

A profile document is plain JSON/TOML in the shape operators already have, so a real config block can
be pasted as is:

* ZeroClaw: ``[runtime_profiles.<name>]`` (``max_context_tokens``, ``context_compact_ratio``,
  ``max_history_messages``, ``max_tool_iterations``, ``max_tool_result_chars``, and
  ``[runtime_profiles.<name>.history_pruning]`` ``enabled``/``max_tokens``; a top-level
  ``[history_pruning]`` is read too), ``[provider]`` ``model``/``context_window``.
* ai-profile: ``[limits.user]``, ``[limits.endpoint]``, ``[limits.preset]`` in ``TokenLimits`` wire keys
  (``contextWindow``, ``maxOutput``), top-level ``max_tokens`` and ``max_attempts``, and
  ``[provider] context_window`` - the provider's real window the replay simulates overflows against.
* OpenClaw: ``[agents.defaults]`` ``contextTokens`` and ``[agents.defaults.contextPruning]`` (a bare
  top-level ``contextPruning`` block works too), ``[model]`` ``contextWindow``.

A ``[trimscope]`` table carries what is not runtime config: ``runtime`` (detected when absent),
``version`` (ZeroClaw ``documented``/``upstream``), the ZeroClaw route's selected ``model``, and for a
profile read from a whole config file (``simulator.config_files``) its ``source`` name there, the
``kept`` keys Trimscope does not model (``"dotted.path" = value``, given back unchanged on export) and
the reader's ``warnings``.
Every problem raises :class:`ProfileError` naming the field by its path in the document.
"""

from __future__ import annotations

import json
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypeAlias, TypedDict

from simulator.errors import ProfileError
from simulator.jsonvalue import JSON
from simulator.runtimes.ai_profile import AiProfileSettings
from simulator.runtimes.openclaw.settings import OpenClawSettings
from simulator.runtimes.zeroclaw.settings import ZeroClawSettings

Runtime: TypeAlias = Literal["zeroclaw", "ai_profile", "openclaw"]
RUNTIMES: tuple[Runtime, ...] = ("zeroclaw", "ai_profile", "openclaw")
RUNTIME_LABELS: Mapping[str, str] = {
    "zeroclaw": "ZeroClaw",
    "ai_profile": "ai-profile",
    "openclaw": "OpenClaw",
}
Settings: TypeAlias = "ZeroClawSettings | AiProfileSettings | OpenClawSettings"


@dataclass(frozen=True, slots=True)
class KeptKey:
    """A key of the source config that Trimscope does not model, by its dotted path there."""

    path: str
    value: JSON


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    runtime: Runtime
    settings: ZeroClawSettings | AiProfileSettings | OpenClawSettings
    provider_window: int | None = None
    """ai-profile only: the provider's real window for overflow simulation (None = the known window)."""
    source: str | None = None
    """The agent, runtime profile or preset key this profile was read as, in its config file."""
    kept: tuple[KeptKey, ...] = ()
    """Keys of the config file that are kept but not modelled."""
    warnings: tuple[str, ...] = ()
    """What the config reader noticed that changes what the runtime does (out-of-range values...)."""

    @property
    def label(self) -> str:
        version = f" ({self.settings.version})" if isinstance(self.settings, ZeroClawSettings) else ""
        return f"{RUNTIME_LABELS[self.runtime]}{version}"


# -- reading ------------------------------------------------------------------------------------------


def _obj(value: JSON, path: str) -> dict[str, JSON]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ProfileError(path, "must be a table/object", allowed="a table of settings")
    return value


def _int(value: JSON, path: str, *, minimum: int = 0, optional: bool = True) -> int | None:
    if value is None:
        if optional:
            return None
        raise ProfileError(path, "is required", allowed=f"an integer ≥ {minimum}")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProfileError(
            path, f"must be an integer, got {json.dumps(value)}", allowed=f"an integer ≥ {minimum}"
        )
    if value < minimum:
        raise ProfileError(path, f"{value} is below the minimum", allowed=f"an integer ≥ {minimum}")
    return value


def _float(value: JSON, path: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ProfileError(path, f"must be a number, got {json.dumps(value)}", allowed="a finite number")
    return float(value)


def _bool(value: JSON, path: str, default: bool) -> bool:
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ProfileError(path, f"must be true or false, got {json.dumps(value)}", allowed="true, false")
    return value


def _str(value: JSON, path: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ProfileError(path, f"must be a string, got {json.dumps(value)}", allowed="a string")
    return value


def detect_runtime(doc: Mapping[str, JSON]) -> Runtime:
    meta = _obj(doc.get("trimscope"), "trimscope")
    explicit = meta.get("runtime")
    if explicit is not None:
        if explicit not in RUNTIMES:
            raise ProfileError(
                "trimscope.runtime", f"unknown runtime {json.dumps(explicit)}", allowed=", ".join(RUNTIMES)
            )
        return explicit
    agents = _obj(doc.get("agents"), "agents")
    if "runtime_profiles" in doc or "history_pruning" in doc:
        return "zeroclaw"
    if "contextPruning" in doc or "contextPruning" in _obj(agents.get("defaults"), "agents.defaults"):
        return "openclaw"
    if "limits" in doc or "max_attempts" in doc:
        return "ai_profile"
    raise ProfileError(
        "trimscope.runtime",
        "cannot tell which runtime this profile is for",
        allowed="a runtime_profiles, contextPruning or limits block, or trimscope.runtime",
    )


def _zeroclaw(doc: Mapping[str, JSON]) -> ZeroClawSettings:
    meta = _obj(doc.get("trimscope"), "trimscope")
    profiles = _obj(doc.get("runtime_profiles"), "runtime_profiles")
    if len(profiles) > 1:
        raise ProfileError(
            "runtime_profiles",
            f"has {len(profiles)} profiles; a Trimscope profile holds one",
            allowed="exactly one [runtime_profiles.<name>] table",
        )
    name, body = next(iter(profiles.items()), ("default", None))
    rp = _obj(body, f"runtime_profiles.{name}")
    base = f"runtime_profiles.{name}"
    pruning_path = f"{base}.history_pruning" if "history_pruning" in rp else "history_pruning"
    pruning = _obj(rp.get("history_pruning", doc.get("history_pruning")), pruning_path)
    provider = _obj(doc.get("provider"), "provider")
    version = meta.get("version", "documented")
    settings = ZeroClawSettings(
        max_context_tokens=_int(rp.get("max_context_tokens"), f"{base}.max_context_tokens"),
        context_compact_ratio=_float(rp.get("context_compact_ratio"), f"{base}.context_compact_ratio"),
        history_pruning_enabled=_bool(pruning.get("enabled"), f"{pruning_path}.enabled", False),
        history_pruning_max_tokens=_int(pruning.get("max_tokens"), f"{pruning_path}.max_tokens") or 0,
        max_history_messages=_int(rp.get("max_history_messages"), f"{base}.max_history_messages"),
        max_tool_iterations=_int(rp.get("max_tool_iterations"), f"{base}.max_tool_iterations") or 10,
        max_tool_result_chars=_int(rp.get("max_tool_result_chars"), f"{base}.max_tool_result_chars") or 0,
        context_window=_int(provider.get("context_window"), "provider.context_window"),
        provider_model=_str(provider.get("model"), "provider.model"),
        model=_str(meta.get("model", provider.get("model")), "trimscope.model"),
        version=version,  # type: ignore[arg-type]  # validate() names a bad version
    )
    try:
        settings.validate()
    except ProfileError as exc:
        raise _rebase(
            exc,
            {
                "version": "trimscope.version",
                "model": "trimscope.model",
                "context_window": "provider.context_window",
                "provider_model": "provider.model",
                "history_pruning_enabled": f"{pruning_path}.enabled",
                "history_pruning_max_tokens": f"{pruning_path}.max_tokens",
            },
            base,
        ) from exc
    return settings


def _rebase(exc: ProfileError, names: Mapping[str, str], base: str) -> ProfileError:
    field = names.get(exc.field, f"{base}.{exc.field}")
    return ProfileError(field, exc.problem, allowed=exc.allowed)


def _ai_profile(doc: Mapping[str, JSON]) -> tuple[AiProfileSettings, int | None]:
    limits = _obj(doc.get("limits"), "limits")
    layers: dict[str, tuple[int | None, int | None]] = {}
    for layer in ("user", "endpoint", "preset"):
        block = _obj(limits.get(layer), f"limits.{layer}")
        layers[layer] = (
            _int(block.get("contextWindow"), f"limits.{layer}.contextWindow"),
            _int(block.get("maxOutput"), f"limits.{layer}.maxOutput"),
        )
    provider = _obj(doc.get("provider"), "provider")
    settings = AiProfileSettings(
        max_tokens=4096 if doc.get("max_tokens") is None else _int(doc.get("max_tokens"), "max_tokens") or 0,
        user_context_window=layers["user"][0],
        user_max_output=layers["user"][1],
        endpoint_context_window=layers["endpoint"][0],
        endpoint_max_output=layers["endpoint"][1],
        model_context_window=layers["preset"][0],
        model_max_output=layers["preset"][1],
        max_attempts=3
        if doc.get("max_attempts") is None
        else _int(doc.get("max_attempts"), "max_attempts") or 0,
    )
    names = {
        f"{p}_context_window": f"limits.{layer}.contextWindow"
        for p, layer in (("user", "user"), ("endpoint", "endpoint"), ("model", "preset"))
    }
    names |= {
        f"{p}_max_output": f"limits.{layer}.maxOutput"
        for p, layer in (("user", "user"), ("endpoint", "endpoint"), ("model", "preset"))
    }
    try:
        settings.validate()
    except ProfileError as exc:
        raise _rebase(exc, {**names, "max_tokens": "max_tokens", "max_attempts": "max_attempts"}, "") from exc
    return settings, _int(provider.get("context_window"), "provider.context_window", minimum=1)


def _openclaw(doc: Mapping[str, JSON]) -> OpenClawSettings:
    agents = _obj(doc.get("agents"), "agents")
    defaults = _obj(agents.get("defaults"), "agents.defaults")
    block = defaults.get("contextPruning", doc.get("contextPruning"))
    model = _obj(doc.get("model"), "model")
    settings = OpenClawSettings.from_json(
        block, model_context_window=model.get("contextWindow"), context_tokens=defaults.get("contextTokens")
    )
    settings.validate()
    return settings


def profile_from_document(doc: JSON, *, name: str) -> Profile:
    """Read a profile document (already parsed JSON/TOML).

    Raises:
        ProfileError: naming the bad field by its path and the allowed values.
    """
    if not isinstance(doc, dict):
        raise ProfileError("(document)", "must be a table/object", allowed="a profile document")
    runtime = detect_runtime(doc)
    origin = _origin(doc)
    if runtime == "zeroclaw":
        return Profile(name, runtime, _zeroclaw(doc), **origin)
    if runtime == "ai_profile":
        settings, window = _ai_profile(doc)
        return Profile(name, runtime, settings, provider_window=window, **origin)
    return Profile(name, runtime, _openclaw(doc), **origin)


class _Origin(TypedDict):
    source: str | None
    kept: tuple[KeptKey, ...]
    warnings: tuple[str, ...]


def _origin(doc: Mapping[str, JSON]) -> _Origin:
    meta = _obj(doc.get("trimscope"), "trimscope")
    kept = _obj(meta.get("kept"), "trimscope.kept")
    warnings = meta.get("warnings") or []
    if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
        raise ProfileError("trimscope.warnings", "must be a list of strings", allowed="a list of strings")
    return {
        "source": _str(meta.get("source"), "trimscope.source"),
        "kept": tuple(KeptKey(path, value) for path, value in kept.items()),
        "warnings": tuple(w for w in warnings if isinstance(w, str)),
    }


def profile_document_from_text(
    text: str, *, syntax: Literal["toml", "json", "auto"] = "auto"
) -> dict[str, JSON]:
    """A TOML or JSON profile text as a document, not yet validated (``auto``: JSON if it starts with ``{``).

    Raises:
        ProfileError: ``(document)`` for a syntax error or a non-table document; the key's path for a
            TOML date/time, which has no JSON form and no place in a profile.
    """
    use_json = syntax == "json" or (syntax == "auto" and text.lstrip().startswith("{"))
    try:
        doc: JSON = json.loads(text) if use_json else _toml_json(tomllib.loads(text))
    except json.JSONDecodeError as exc:
        raise ProfileError(
            "(document)",
            f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}",
            allowed="a JSON object",
        ) from exc
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError("(document)", f"invalid TOML: {exc}", allowed="a TOML document") from exc
    if not isinstance(doc, dict):
        raise ProfileError("(document)", "must be a table/object", allowed="a profile document")
    return doc


def _toml_json(value: object, path: str = "") -> JSON:
    if isinstance(value, dict):
        return {str(k): _toml_json(v, f"{path}.{k}" if path else str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_toml_json(v, path) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise ProfileError(
        path or "(document)", f"is a TOML date/time ({value})", allowed="a number, string or boolean"
    )


def profile_from_text(text: str, *, name: str, syntax: Literal["toml", "json", "auto"] = "auto") -> Profile:
    """Parse and validate a TOML or JSON profile text."""
    return profile_from_document(profile_document_from_text(text, syntax=syntax), name=name)


# -- writing ------------------------------------------------------------------------------------------


def profile_to_document(profile: Profile) -> dict[str, JSON]:
    """The profile as a document in the runtime's own keys (round-trips through the reader)."""
    doc = _document(profile)
    meta = doc["trimscope"]
    assert isinstance(meta, dict)
    if profile.source is not None:
        meta["source"] = profile.source
    if profile.kept:
        meta["kept"] = {k.path: k.value for k in profile.kept}
    if profile.warnings:
        meta["warnings"] = list(profile.warnings)
    return doc


def _document(profile: Profile) -> dict[str, JSON]:
    s = profile.settings
    if isinstance(s, ZeroClawSettings):
        rp: dict[str, JSON] = {
            "max_tool_iterations": s.max_tool_iterations,
            "max_tool_result_chars": s.max_tool_result_chars,
        }
        if s.max_context_tokens is not None:
            rp["max_context_tokens"] = s.max_context_tokens
        if s.context_compact_ratio is not None:
            rp["context_compact_ratio"] = s.context_compact_ratio
        if s.max_history_messages is not None:
            rp["max_history_messages"] = s.max_history_messages
        rp["history_pruning"] = {
            "enabled": s.history_pruning_enabled,
            "max_tokens": s.history_pruning_max_tokens,
        }
        doc: dict[str, JSON] = {
            "trimscope": {"runtime": "zeroclaw", "version": s.version},
            "runtime_profiles": {"default": rp},
        }
        provider: dict[str, JSON] = {}
        if s.provider_model is not None:
            provider["model"] = s.provider_model
        if s.context_window is not None:
            provider["context_window"] = s.context_window
        if provider:
            doc["provider"] = provider
        if s.model is not None and s.model != s.provider_model:
            meta = doc["trimscope"]
            assert isinstance(meta, dict)
            meta["model"] = s.model
        return doc
    if isinstance(s, AiProfileSettings):
        limits: dict[str, JSON] = {}
        for layer, cw, mo in (
            ("user", s.user_context_window, s.user_max_output),
            ("endpoint", s.endpoint_context_window, s.endpoint_max_output),
            ("preset", s.model_context_window, s.model_max_output),
        ):
            block: dict[str, JSON] = {}
            if cw is not None:
                block["contextWindow"] = cw
            if mo is not None:
                block["maxOutput"] = mo
            if block:
                limits[layer] = block
        doc = {
            "trimscope": {"runtime": "ai_profile"},
            "max_tokens": s.max_tokens,
            "max_attempts": s.max_attempts,
            "limits": limits,
        }
        if profile.provider_window is not None:
            doc["provider"] = {"context_window": profile.provider_window}
        return doc
    defaults: dict[str, JSON] = {"contextPruning": s.context_pruning_json()}
    if s.context_tokens is not None:
        defaults["contextTokens"] = s.context_tokens
    doc = {"trimscope": {"runtime": "openclaw"}, "agents": {"defaults": defaults}}
    if s.model_context_window is not None:
        doc["model"] = {"contextWindow": s.model_context_window}
    return doc


def profile_to_json(profile: Profile) -> str:
    return json.dumps(profile_to_document(profile), indent=2, ensure_ascii=False) + "\n"


def _toml_key(key: str) -> str:
    return key if key and all(c.isalnum() or c in "-_" for c in key) and key.isascii() else json.dumps(key)


def _toml_value(value: JSON) -> str:
    if isinstance(value, dict):
        # Kept keys may hold tables inside arrays; TOML writes them inline.
        items = (f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items() if v is not None)
        return "{ " + ", ".join(items) + " }" if value else "{}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        # TOML has no null: a null inside an array is dropped here (the JSON export keeps it).
        return "[" + ", ".join(_toml_value(v) for v in value if v is not None) + "]"
    raise ValueError(f"cannot write {value!r} as a TOML value")


def _toml_table(table: Mapping[str, JSON], path: str, out: list[str]) -> None:
    scalars = [(k, v) for k, v in table.items() if not isinstance(v, dict)]
    tables = [(k, v) for k, v in table.items() if isinstance(v, dict)]
    if path and (scalars or not tables):
        out.append(f"\n[{path}]")
    # A null has no TOML form: it is named in a comment (the JSON export keeps it).
    out.extend(f"{_toml_key(k)} = {_toml_value(v)}" if v is not None else f"# {k} = null" for k, v in scalars)
    for key, sub in tables:
        assert isinstance(sub, dict)
        _toml_table(sub, f"{path}.{_toml_key(key)}" if path else _toml_key(key), out)


def profile_to_toml(profile: Profile) -> str:
    lines: list[str] = [f"# Trimscope profile: {profile.name} ({profile.label})"]
    _toml_table(profile_to_document(profile), "", lines)
    return "\n".join(lines).strip() + "\n"
