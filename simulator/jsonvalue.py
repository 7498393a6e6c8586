"""The JSON value type shared by importers, conformance adapters and wire shapes.

Everything the simulator reads from or writes to JSON is typed as :data:`JSON`, so the core needs no
``Any``. Helpers here narrow a :data:`JSON` value to a concrete type or raise ``TypeError`` naming
what was expected, which callers turn into located errors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

JSON: TypeAlias = "None | bool | int | float | str | list[JSON] | dict[str, JSON]"
JSONObject: TypeAlias = "dict[str, JSON]"


def as_object(value: JSON, what: str = "value") -> dict[str, JSON]:
    if not isinstance(value, dict):
        raise TypeError(f"{what} must be an object, got {type_name(value)}")
    return value


def as_list(value: JSON, what: str = "value") -> list[JSON]:
    if not isinstance(value, list):
        raise TypeError(f"{what} must be a list, got {type_name(value)}")
    return value


def as_str(value: JSON, what: str = "value") -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, got {type_name(value)}")
    return value


def as_int(value: JSON, what: str = "value") -> int:
    # bool is an int subclass in Python but never a JSON integer.
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an integer, got {type_name(value)}")
    return value


def as_number(value: JSON, what: str = "value") -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{what} must be a number, got {type_name(value)}")
    return float(value)


def as_bool(value: JSON, what: str = "value") -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{what} must be a boolean, got {type_name(value)}")
    return value


def opt_str(obj: Mapping[str, JSON], key: str) -> str | None:
    value = obj.get(key)
    return None if value is None else as_str(value, key)


def type_name(value: JSON) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Sequence):
        return "list"
    return "object"
