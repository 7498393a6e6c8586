"""One entry point for config files: text (and its file name) → named profiles, warnings, kept keys.

Recognised, in this order:

* a Trimscope profile document (a ``[trimscope]`` table, or the Trimscope-only keys ``[provider]``,
  top-level ``[history_pruning]``, ``contextPruning``/``model`` at the root, ai-profile
  ``limits.user|endpoint|preset``, ``max_tokens``, ``max_attempts``): one profile, as before;
* a ZeroClaw ``config.toml`` (TOML, or JSON with ZeroClaw keys): ``simulator.specs.zeroclaw.config_file``;
* an OpenClaw ``openclaw.json`` (JSON5: ``agents``, the legacy ``agent`` root):
  ``simulator.specs.openclaw.config_file``;
* ai-profile ``TokenLimits`` or ``presets.json``: ``simulator.specs.ai_profile.config_file``.

JSON is read with ``json5`` (PyPI ``json5``, a pure-Python implementation of the JSON5 spec that
follows the reference JavaScript parser OpenClaw itself uses), so comments, unquoted keys and
trailing commas in OpenClaw's documented configs parse; plain JSON is a subset. TOML uses the
stdlib ``tomllib``.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import replace
from typing import Literal, TypeAlias

import json5

from simulator import jsonlimits
from simulator.config_keys import ConfigFile, as_json
from simulator.errors import ProfileError
from simulator.jsonvalue import JSON
from simulator.profiles import profile_from_document
from simulator.specs.ai_profile.config_file import is_limits, is_preset, read_ai_profile_config
from simulator.specs.openclaw.config_file import read_openclaw_config
from simulator.specs.zeroclaw.config_file import read_zeroclaw_config, runtime_profile_kept

__all__ = [
    "SYNTAXES",
    "ConfigFile",
    "Syntax",
    "parse_config_text",
    "read_config_document",
    "read_config_text",
]

Syntax: TypeAlias = Literal["toml", "json", "json5", "auto"]
SYNTAXES: tuple[Syntax, ...] = ("auto", "toml", "json5", "json")
_JSON5_ERROR = re.compile(r"^<string>:(?P<line>\d+) (?P<msg>.*?)(?: at column (?P<col>\d+))?$")
_ZEROCLAW_KEYS = frozenset(
    {"schema_version", "runtime_profiles", "model_providers", "default_provider", "default_model"}
)


def _syntax_of(text: str, filename: str | None, syntax: Syntax) -> Literal["toml", "json5"]:
    if syntax != "auto":
        return "toml" if syntax == "toml" else "json5"
    suffix = (filename or "").rsplit(".", 1)[-1].lower() if filename and "." in filename else ""
    if suffix == "toml":
        return "toml"
    if suffix in ("json", "json5"):
        return "json5"
    head = text.lstrip("\ufeff \t\r\n")
    return "json5" if head.startswith(("{", "//", "/*")) else "toml"


def parse_config_text(text: str, *, filename: str | None = None, syntax: Syntax = "auto") -> JSON:
    """A config text as :data:`JSON`: TOML, or JSON5 (JSON included).

    Raises:
        ProfileError: ``(document)`` naming the line and column of a syntax error.
    """
    kind = _syntax_of(text, filename, syntax)
    if kind == "toml":
        try:
            return as_json(jsonlimits.toml_loads(text))
        except jsonlimits.DocumentRejected as exc:
            raise ProfileError("(document)", exc.reason, allowed="a config document") from exc
        except tomllib.TOMLDecodeError as exc:
            if syntax == "auto" and text.lstrip().startswith("["):
                # A JSON list (ai-profile presets) also starts with "[".
                try:
                    return _json5(text)
                except ProfileError:
                    pass
            raise ProfileError("(document)", f"invalid TOML: {exc}", allowed="a TOML document") from exc
    return _json5(text)


def _json5(text: str) -> JSON:
    try:
        value: object = json5.loads(text)
        # The document is kept as JSON: bounded nesting, no NUL or lone surrogate (PostgreSQL, UTF-8).
        jsonlimits.check_tree(value, nul=False)
    except RecursionError:
        raise ProfileError(
            "(document)",
            f"JSON5 nested deeper than {jsonlimits.MAX_DEPTH} levels",
            allowed="a config document",
        ) from None
    except jsonlimits.DocumentRejected as exc:
        raise ProfileError("(document)", exc.reason, allowed="a config document") from exc
    except ValueError as exc:
        if "integer string conversion" in str(exc):  # int() over sys.get_int_max_str_digits() digits
            raise ProfileError(
                "(document)", jsonlimits.too_long_number(), allowed="a config document"
            ) from None
        match = _JSON5_ERROR.match(str(exc))
        where = (
            f"line {match['line']}"
            + (f", column {match['col']}" if match["col"] else "")
            + f": {match['msg']}"
            if match
            else str(exc)
        )
        raise ProfileError(
            "(document)", f"invalid JSON5 at {where}", allowed="a JSON or JSON5 object"
        ) from exc
    return as_json(value)


def _is_trimscope_document(doc: Mapping[str, JSON]) -> bool:
    if "trimscope" in doc or "provider" in doc or "history_pruning" in doc:
        return True
    if "contextPruning" in doc or "max_tokens" in doc or "max_attempts" in doc:
        return True
    if isinstance(doc.get("model"), dict):
        return True
    limits = doc.get("limits")
    return isinstance(limits, dict) and bool(limits.keys() & {"user", "endpoint", "preset"})


def _trimscope_document(doc: dict[str, JSON], default_name: str) -> ConfigFile:
    meta = doc.get("trimscope")
    source = meta.get("source") if isinstance(meta, dict) else None
    name = source if isinstance(source, str) else default_name
    profiles = doc.get("runtime_profiles")
    if source is None and isinstance(profiles, dict) and len(profiles) == 1:
        name = next(iter(profiles))
    profile = profile_from_document(doc, name=name)
    if profile.runtime == "zeroclaw" and isinstance(profiles, dict) and not profile.kept:
        # A hand-written profile: its runtime profile's keys are checked and kept as ZeroClaw's are.
        profile = replace(profile, source=name, kept=runtime_profile_kept(profiles))
    return ConfigFile(
        profile.runtime,
        "Trimscope profile",
        (profile,),
        profile.warnings,
        tuple(k.path for k in profile.kept),
    )


def read_config_document(doc: JSON, *, was_toml: bool, default_name: str = "profile") -> ConfigFile:
    """A parsed config as the runtime would load it.

    Args:
        doc: The parsed document.
        was_toml: Whether it came from TOML (OpenClaw configs never do).
        default_name: The name for a file whose profile has no name of its own (the file's stem).

    Raises:
        ProfileError: naming the key path of the first problem.
    """
    if isinstance(doc, list) or is_preset(doc) or (isinstance(doc, dict) and "presets" in doc):
        return read_ai_profile_config(doc)
    if not isinstance(doc, dict):
        raise ProfileError("(document)", "must be a table/object", allowed="a config file")
    if _is_trimscope_document(doc):
        return _trimscope_document(doc, default_name)
    if is_limits(doc) or "limits" in doc:
        return read_ai_profile_config(doc, default_name=default_name)
    agents = doc.get("agents")
    openclaw_agents = isinstance(agents, dict) and bool(agents.keys() & {"defaults", "list", "entries"})
    # OpenClaw configs are JSON5 (a TOML rendering of its agents.defaults/list is read too); a file
    # with ZeroClaw's keys, or TOML without OpenClaw's agents shape, is a ZeroClaw config.
    if doc.keys() & _ZEROCLAW_KEYS or (agents and not openclaw_agents) or (was_toml and not openclaw_agents):
        return read_zeroclaw_config(doc)
    return read_openclaw_config(doc)


def read_config_text(
    text: str, *, filename: str | None = None, syntax: Syntax = "auto", default_name: str | None = None
) -> ConfigFile:
    """A config file's text → every profile it yields, with warnings and the keys kept, not modelled.

    Args:
        text: The file's contents.
        filename: Its name, if known: ``.toml`` is TOML, ``.json``/``.json5`` is JSON5.
        syntax: Force ``toml`` or ``json5`` (``json`` is read as JSON5, its superset).
        default_name: The profile name when the file has none (default: the file's stem, else ``profile``).

    Raises:
        ProfileError: naming the key path (or line and column) of the first problem.
    """
    stem = (filename or "").replace("\\", "/").rsplit("/", 1)[-1].split(".", 1)[0]
    doc = parse_config_text(text, filename=filename, syntax=syntax)
    kind = _syntax_of(text, filename, syntax)
    return read_config_document(doc, was_toml=kind == "toml", default_name=default_name or stem or "profile")
