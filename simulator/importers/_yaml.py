"""YAML input for the importers (SWE-agent demonstration files), read with PyYAML's safe loader.

SWE-agent's ``sweagent traj-to-demo`` command (``convert_traj_to_action_demo`` / ``save_demo``) writes a
trajectory's ``history`` and ``replay_config`` as YAML through ruamel.yaml: ``|-`` literal blocks for
multi-line strings and a ``#`` comment header. PyYAML's safe loader (libyaml's C parser when available)
builds only plain values, never Python objects. Three limits keep a hostile file cheap: the text is capped at
:data:`MAX_YAML_CHARS`, the result may not nest deeper than :data:`MAX_DEPTH`, and aliases may not expand
the value past one node per input character (an alias "billion laughs" fails instead of growing).
"""

from __future__ import annotations

import datetime

import yaml

from simulator.jsonvalue import JSON

MAX_YAML_CHARS = 5_000_000
"""Largest YAML text read (characters); larger files are refused before parsing."""
MAX_DEPTH = 200
"""Deepest nesting of lists and mappings accepted in a YAML document."""

try:
    _Loader: type[yaml.SafeLoader] | type[yaml.CSafeLoader] = yaml.CSafeLoader
except AttributeError:  # PyYAML built without libyaml
    _Loader = yaml.SafeLoader


class YamlFailure(Exception):
    """The text is not a YAML document this package can read."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


def looks_like_yaml_document(text: str) -> bool:
    """Whether a text that is not JSON is worth reading as YAML (JSON-looking text is reported as JSON)."""
    stripped = text.lstrip()
    return bool(stripped) and stripped[0] not in "{["


def load_yaml(text: str) -> JSON:
    """The YAML document in ``text`` as a JSON value.

    Raises:
        YamlFailure: for text over the size cap, invalid YAML (with its line), several documents, keys that
            are not strings, values JSON cannot hold, too deep nesting or aliases that expand too far.
    """
    if len(text) > MAX_YAML_CHARS:
        raise YamlFailure(f"YAML input is {len(text):,} characters; at most {MAX_YAML_CHARS:,} are read")
    try:
        value: object = yaml.load(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = mark.line + 1 if mark is not None else None
        where = f" (line {line}, column {mark.column + 1})" if mark is not None else ""
        raise YamlFailure(f"invalid YAML: {exc.problem or exc.context}{where}", line) from None
    except (yaml.YAMLError, RecursionError) as exc:
        raise YamlFailure(f"invalid YAML: {exc}") from None
    budget = [len(text) + 64]
    return _to_json(value, 0, budget)


def _to_json(value: object, depth: int, budget: list[int]) -> JSON:
    budget[0] -= 1
    if budget[0] < 0:
        raise YamlFailure("YAML aliases expand far beyond the document's size")
    if depth > MAX_DEPTH:
        raise YamlFailure(f"YAML nests deeper than {MAX_DEPTH} levels")
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime.date):
        # Unquoted timestamps load as dates; the JSON a trajectory came from held them as ISO text.
        return value.isoformat()
    if isinstance(value, list):
        return [_to_json(item, depth + 1, budget) for item in value]
    if isinstance(value, dict):
        out: dict[str, JSON] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise YamlFailure(f"YAML mapping key {key!r} is not a string")
            out[key] = _to_json(item, depth + 1, budget)
        return out
    raise YamlFailure(f"YAML value of type {type(value).__name__} has no JSON form")
