"""The slice of ``serde_json`` behaviour ZeroClaw's history code depends on.

Tool calls and tool results travel as JSON strings inside ``ChatMessage.content``; the orphan sweep and
tool-message truncation parse them with ``serde_json::from_str`` and write them back with
``Value::to_string``. The golden vectors were built with serde_json 1.0.87 *without* the
``preserve_order`` feature, so re-serialised objects come out with keys sorted (``BTreeMap``) and no
whitespace.

Divergences: float formatting follows Python's ``repr`` rather than ``ryu`` (e.g. ``1e+16`` vs
``1e16``) and integers beyond 64 bits stay exact instead of degrading to ``f64``; neither occurs in the
tool-call envelopes ZeroClaw writes. The 128-level recursion limit is not enforced.
"""

from __future__ import annotations

import json

from simulator.jsonvalue import JSON


class InvalidJson(ValueError):
    """The text is not JSON that ``serde_json::from_str`` would accept."""


def _reject_constant(name: str) -> JSON:
    raise InvalidJson(f"{name} is not valid JSON")


# ``json.loads(text, parse_constant=...)`` builds a decoder at every call (a third of a replay's parsing
# of tool-call envelopes); one kept decoder decodes the same.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def parse(text: str) -> JSON:
    """Parse like ``serde_json::from_str::<Value>``.

    Args:
        text: The JSON text.

    Returns:
        The parsed value.

    Raises:
        InvalidJson: When serde_json would reject the text (including ``NaN``/``Infinity``).
    """
    try:
        if text.startswith("\ufeff"):  # what ``json.loads`` refuses before decoding
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        value: JSON = _DECODER.decode(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InvalidJson(str(exc)) from exc
    return value


def to_string(value: JSON) -> str:
    """Serialise like ``serde_json::Value::to_string`` (compact, keys sorted, UTF-8 kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def get_str(value: JSON, key: str) -> str | None:
    """``value.get(key).and_then(Value::as_str)``: ``None`` unless an object with a string there."""
    if isinstance(value, dict):
        found = value.get(key)
        if isinstance(found, str):
            return found
    return None


def parse_or_none(text: str) -> tuple[bool, JSON]:
    """Parse, reporting success separately because JSON ``null`` is also ``None``."""
    try:
        return True, parse(text)
    except InvalidJson:
        return False, None
