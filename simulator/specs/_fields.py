"""Typed readers for profile documents (parsed TOML/JSON), shared by the runtime specs.

Every reader names a bad value by its path in the document through :class:`ProfileError`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

from simulator.errors import ProfileError
from simulator.jsonvalue import JSON


def obj(value: JSON, path: str) -> dict[str, JSON]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ProfileError(path, "must be a table/object", allowed="a table of settings")
    return value


def integer(value: JSON, path: str, *, minimum: int = 0, optional: bool = True) -> int | None:
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


def number(value: JSON, path: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ProfileError(path, f"must be a number, got {json.dumps(value)}", allowed="a finite number")
    return float(value)


def boolean(value: JSON, path: str, default: bool) -> bool:
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ProfileError(path, f"must be true or false, got {json.dumps(value)}", allowed="true, false")
    return value


def string(value: JSON, path: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ProfileError(path, f"must be a string, got {json.dumps(value)}", allowed="a string")
    return value


def rebase(exc: ProfileError, names: Mapping[str, str], base: str) -> ProfileError:
    """A settings-level error renamed to the document path it came from."""
    field = names.get(exc.field, f"{base}.{exc.field}")
    return ProfileError(field, exc.problem, allowed=exc.allowed)
