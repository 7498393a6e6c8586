"""Profiles: which runtime (and version) plus every knob it reads, in the runtime's own config keys.

A profile document is plain JSON/TOML in the shape operators already have, so a real config block can
be pasted as is. Each runtime's keys are read and written by its spec (``simulator/specs/<runtime>/
config.py``): ZeroClaw ``[runtime_profiles.<name>]``, ai-profile ``[limits.*]``, OpenClaw
``agents.defaults.contextPruning``. A ``[trimscope]`` table carries what is not runtime config:
``runtime`` (detected when absent), ``version`` (ZeroClaw ``documented``/``upstream``) and the ZeroClaw
route's selected ``model``. Every problem raises :class:`ProfileError` naming the field by its path in
the document.

A profile read from a whole config file (``simulator.config_files``) also carries, in ``[trimscope]``,
its ``source`` name there, the ``kept`` keys Trimscope does not model (``"dotted.path" = value``,
given back unchanged on export) and the reader's ``warnings``.

This module keeps the stable public names (``Profile``, ``profile_from_document``,
``profile_document_from_text``, ``profile_to_document``, ``profile_to_toml``, ``profile_to_json``) and
delegates to the registry (``simulator/registry.py``).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypeAlias, TypedDict

from simulator import jsonlimits, registry
from simulator.errors import ProfileError
from simulator.jsonvalue import JSON
from simulator.knobs import KnobNote
from simulator.runtime_spec import AnyRuntimeSpec, Settings
from simulator.specs._fields import obj, string

Runtime: TypeAlias = str
"""A runtime key of the registry (``zeroclaw``, ``ai_profile``, ``openclaw``)."""
RUNTIMES: tuple[Runtime, ...] = registry.runtimes()
RUNTIME_LABELS: Mapping[str, str] = {r: registry.runtime_label(r) for r in RUNTIMES}


@dataclass(frozen=True, slots=True)
class KeptKey:
    """A key of the source config that Trimscope does not model, by its dotted path there."""

    path: str
    value: JSON


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    runtime: Runtime
    settings: Settings
    provider_window: int | None = None
    """ai-profile only: the provider's real window for overflow simulation (None = the known window)."""
    source: str | None = None
    """The agent, runtime profile or preset key this profile was read as, in its config file."""
    kept: tuple[KeptKey, ...] = ()
    """Keys of the config file that are kept but not modelled."""
    warnings: tuple[str, ...] = ()
    """What the config reader noticed that changes what the runtime does (out-of-range values...)."""

    @property
    def spec(self) -> AnyRuntimeSpec:
        """The runtime version this profile uses."""
        return registry.spec_for_settings(self.runtime, self.settings)

    @property
    def label(self) -> str:
        return self.spec.label

    @property
    def version(self) -> str:
        return self.spec.version

    @property
    def knob_notes(self) -> tuple[KnobNote, ...]:
        """What the runtime does with this profile's knob values (worked out again on every call)."""
        return self.spec.notes(self.settings)

    @property
    def notes(self) -> tuple[str, ...]:
        """The config reader's stored warnings, then what the runtime does with the knob values."""
        return (*self.warnings, *(n.note for n in self.knob_notes))


def detect_runtime(doc: Mapping[str, JSON]) -> Runtime:
    """The runtime a document is for (``trimscope.runtime``, else its config keys).

    Raises:
        ProfileError: when it cannot be told.
    """
    return registry.detect_runtime(doc)


def profile_from_document(doc: JSON, *, name: str) -> Profile:
    """Read a profile document (already parsed JSON/TOML).

    Raises:
        ProfileError: naming the bad field by its path and the allowed values.
    """
    if not isinstance(doc, dict):
        raise ProfileError("(document)", "must be a table/object", allowed="a profile document")
    _within_limits(doc)
    runtime = registry.detect_runtime(doc)
    # Every version of a runtime reads the same keys; the settings say which version they ask for.
    settings, window = registry.versions(runtime)[0].load_settings(doc)
    return Profile(name, runtime, settings, provider_window=window, **_origin(doc))


class _Origin(TypedDict):
    source: str | None
    kept: tuple[KeptKey, ...]
    warnings: tuple[str, ...]


def _origin(doc: Mapping[str, JSON]) -> _Origin:
    meta = obj(doc.get("trimscope"), "trimscope")
    kept = obj(meta.get("kept"), "trimscope.kept")
    warnings = meta.get("warnings") or []
    if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
        raise ProfileError("trimscope.warnings", "must be a list of strings", allowed="a list of strings")
    return {
        "source": string(meta.get("source"), "trimscope.source"),
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
        doc: JSON = jsonlimits.loads(text) if use_json else _toml_json(jsonlimits.toml_loads(text))
    except json.JSONDecodeError as exc:
        raise ProfileError(
            "(document)",
            f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}",
            allowed="a JSON object",
        ) from exc
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError("(document)", f"invalid TOML: {exc}", allowed="a TOML document") from exc
    except jsonlimits.DocumentRejected as exc:
        raise ProfileError("(document)", exc.reason, allowed="a profile document") from exc
    if not isinstance(doc, dict):
        raise ProfileError("(document)", "must be a table/object", allowed="a profile document")
    _within_limits(doc)
    return doc


def _within_limits(doc: Mapping[str, JSON]) -> None:
    # A profile is kept as a JSON document: no NUL (PostgreSQL's jsonb refuses it), bounded nesting.
    try:
        jsonlimits.check_tree(doc, nul=False)
    except jsonlimits.DocumentRejected as exc:
        raise ProfileError("(document)", exc.reason, allowed="a profile document") from exc


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
    doc = profile.spec.dump_document(profile.settings, profile.provider_window)
    meta = doc.setdefault("trimscope", {})
    assert isinstance(meta, dict)
    if profile.source is not None:
        meta["source"] = profile.source
    if profile.kept:
        meta["kept"] = {k.path: k.value for k in profile.kept}
    if profile.warnings:
        meta["warnings"] = list(profile.warnings)
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
