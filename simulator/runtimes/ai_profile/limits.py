"""``TokenLimits``: a model's context window and output cap, with where each value came from.

Upstream: ``bkywksj/ai-profile`` 0.1.7 ``crates/ai-profile/src/limits.rs`` (per-field sources as added
in 0.1.3). Layers are folded with :meth:`TokenLimits.or_` from highest to lowest priority:
user > endpoint-reported (``/models``) > preset. All values are ``u32``.

Wire form (serde): camelCase keys ``contextWindow``, ``maxOutput``, ``source``,
``contextWindowSource``, ``maxOutputSource``; sources ``"user"``, ``"endpoint"``, ``"preset"``.

Deliberate divergences / unverified points:

* :func:`serialize_limits` writes absent values as ``null`` in declaration order; the only upstream
  check is that the camelCase pairs appear, so whether upstream skips ``None`` fields is unknown.
* :func:`parse_model_limits` keeps looking past a present-but-unusable value (0, negative, too large,
  non-numeric) to the next key, then to the top level, which is what "count as absent" implies.
* Reading a layer whose per-field sources are missing (:meth:`TokenLimits.from_json`) fills them the
  way the constructors do, because the vectors describe layers by constructor.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from simulator.jsonvalue import JSON, type_name
from simulator.runtimes.ai_profile.compact_json import dumps_compact, quote_string
from simulator.runtimes.ai_profile.estimate import U32_MAX


class LimitSource(Enum):
    """Where a limit value came from."""

    USER = "user"
    ENDPOINT = "endpoint"
    PRESET = "preset"


# Rust's str::trim strips Unicode White_Space, which is not the set Python's str.strip uses
# (Python also strips U+001C..U+001F and leaves U+180E alone in some versions).
_RUST_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_ASCII_UINT = re.compile(r"\+?[0-9]+")


def rust_trim(text: str) -> str:
    """``str::trim``: strip leading and trailing Unicode ``White_Space``."""
    return text.strip(_RUST_WHITESPACE)


def limit_source_parse(text: str) -> LimitSource | None:
    """``LimitSource::parse``: trimmed, case-sensitive, ``None`` when unrecognised.

    Args:
        text: The raw text.

    Returns:
        The source, or ``None``.
    """
    trimmed = rust_trim(text)
    for source in LimitSource:
        if source.value == trimmed:
            return source
    return None


def saturating_sub(a: int, b: int) -> int:
    """``u32::saturating_sub``."""
    return max(a - b, 0)


def _check_u32(value: int | None, what: str) -> None:
    if value is not None and not 0 <= value <= U32_MAX:
        raise ValueError(f"{what} must be a u32 (0..={U32_MAX}), got {value}")


@dataclass(frozen=True, slots=True)
class TokenLimits:
    """Known limits of a model; ``None`` means unknown."""

    context_window: int | None
    max_output: int | None
    source: LimitSource
    context_window_source: LimitSource | None = None
    max_output_source: LimitSource | None = None

    def __post_init__(self) -> None:
        _check_u32(self.context_window, "context_window")
        _check_u32(self.max_output, "max_output")

    @classmethod
    def with_source(
        cls, context_window: int | None, max_output: int | None, source: LimitSource
    ) -> TokenLimits:
        """Limits from one place: each per-field source is ``source`` when that value is present.

        Args:
            context_window: The window, if known.
            max_output: The output cap, if known.
            source: Where both came from.

        Returns:
            The limits.
        """
        return cls(
            context_window,
            max_output,
            source,
            source if context_window is not None else None,
            source if max_output is not None else None,
        )

    @classmethod
    def from_user(cls, context_window: int | None, max_output: int | None) -> TokenLimits:
        """Limits the user configured."""
        return cls.with_source(context_window, max_output, LimitSource.USER)

    @classmethod
    def from_endpoint(cls, context_window: int | None, max_output: int | None) -> TokenLimits:
        """Limits the endpoint reported (``/models``)."""
        return cls.with_source(context_window, max_output, LimitSource.ENDPOINT)

    @classmethod
    def from_preset(cls, context_window: int | None, max_output: int | None) -> TokenLimits:
        """Limits from the built-in model preset table."""
        return cls.with_source(context_window, max_output, LimitSource.PRESET)

    def is_empty(self) -> bool:
        """Both values unknown."""
        return self.context_window is None and self.max_output is None

    def or_(self, fallback: TokenLimits) -> TokenLimits:
        """``TokenLimits::or``: fill unknown fields from ``fallback``.

        Args:
            fallback: The lower-priority layer.

        Returns:
            ``fallback`` whole when ``self`` is empty (so an empty layer cannot claim a source);
            otherwise field by field, each value with its own source, and ``self.source`` overall.
        """
        if self.is_empty():
            return fallback
        window = self if self.context_window is not None else fallback
        output = self if self.max_output is not None else fallback
        return TokenLimits(
            window.context_window,
            output.max_output,
            self.source,
            window.context_window_source,
            output.max_output_source,
        )

    def input_budget(self, reserve_output: int) -> int | None:
        """``context_window - reserve_output`` saturating at 0, or ``None`` when the window is unknown."""
        if self.context_window is None:
            return None
        return saturating_sub(self.context_window, reserve_output)

    def to_json(self) -> dict[str, JSON]:
        """The serde wire object (camelCase keys, ``null`` for unknown)."""
        return {
            "contextWindow": self.context_window,
            "maxOutput": self.max_output,
            "source": self.source.value,
            "contextWindowSource": _source_json(self.context_window_source),
            "maxOutputSource": _source_json(self.max_output_source),
        }

    @classmethod
    def from_json(cls, value: JSON) -> TokenLimits:
        """Read the wire object.

        Args:
            value: ``{"contextWindow", "maxOutput", "source"}`` plus, optionally, the per-field
                sources; when those keys are absent they are derived as :meth:`with_source` does.

        Returns:
            The limits.

        Raises:
            TypeError: A field has the wrong JSON type.
            ValueError: A source is not recognised or a value is not a ``u32``.
        """
        if not isinstance(value, dict):
            raise TypeError(f"limits must be an object, got {type_name(value)}")
        window = _opt_u32(value.get("contextWindow"), "contextWindow")
        output = _opt_u32(value.get("maxOutput"), "maxOutput")
        source = _required_source(value.get("source"), "source")
        derived = cls.with_source(window, output, source)
        window_source = (
            _optional_source(value["contextWindowSource"], "contextWindowSource")
            if "contextWindowSource" in value
            else derived.context_window_source
        )
        output_source = (
            _optional_source(value["maxOutputSource"], "maxOutputSource")
            if "maxOutputSource" in value
            else derived.max_output_source
        )
        return cls(window, output, source, window_source, output_source)


def _source_json(source: LimitSource | None) -> JSON:
    return None if source is None else source.value


def _opt_u32(value: JSON, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an integer or null, got {type_name(value)}")
    _check_u32(value, what)
    return value


def _required_source(value: JSON, what: str) -> LimitSource:
    source = _optional_source(value, what)
    if source is None:
        raise ValueError(f"{what} is required")
    return source


def _optional_source(value: JSON, what: str) -> LimitSource | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, got {type_name(value)}")
    # serde's derived enum deserialisation is exact: no trimming, unlike LimitSource::parse.
    for source in LimitSource:
        if source.value == value:
            return source
    raise ValueError(f"{what}: unknown limit source {value!r}")


def merge_limits(layers: Iterable[TokenLimits]) -> TokenLimits | None:
    """Fold layers with :meth:`TokenLimits.or_`, highest priority first.

    Args:
        layers: E.g. ``[user, endpoint, preset]``; absent layers are simply left out.

    Returns:
        The merged limits (the last layer when all are empty), or ``None`` when there are no layers.
    """
    merged: TokenLimits | None = None
    for layer in layers:
        merged = layer if merged is None else merged.or_(layer)
    return merged


def serialize_limits(limits: TokenLimits) -> str:
    """``serde_json::to_string(&limits)``: fields in declaration order, compact.

    Args:
        limits: The limits.

    Returns:
        E.g. ``{"contextWindow":128000,"maxOutput":8192,"source":"endpoint",...}``.
    """
    fields = limits.to_json()
    order = ("contextWindow", "maxOutput", "source", "contextWindowSource", "maxOutputSource")
    return "{" + ",".join(f"{quote_string(key)}:{dumps_compact(fields[key])}" for key in order) + "}"


_WINDOW_KEYS = ("context_length", "context_window", "max_context_length", "max_input_tokens")
_OUTPUT_KEYS = ("max_completion_tokens", "max_output_tokens", "max_tokens")


def parse_model_limits(item: JSON) -> TokenLimits | None:
    """Read the limits of one ``/models`` entry (the endpoint layer).

    Each value is looked up in ``item["top_provider"]`` (keys in table order) and then at the top
    level; window and output are resolved independently.

    Args:
        item: One entry of a ``/models`` listing.

    Returns:
        Endpoint-sourced limits, or ``None`` when neither value is usable.
    """
    window = _lookup(item, _WINDOW_KEYS)
    output = _lookup(item, _OUTPUT_KEYS)
    if window is None and output is None:
        return None
    return TokenLimits.from_endpoint(window, output)


def _lookup(item: JSON, keys: tuple[str, ...]) -> int | None:
    if not isinstance(item, dict):
        return None
    nested = item.get("top_provider")
    for scope in (nested, item):
        if not isinstance(scope, dict):
            continue
        for key in keys:
            if key in scope:
                found = _as_limit(scope[key])
                if found is not None:
                    return found
    return None


def _as_limit(value: JSON) -> int | None:
    """A usable limit: positive, fits ``u32``; floats truncated; strings trimmed, integers only."""
    number: int | None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float):
        # Rust's `f as u64` truncates toward zero; NaN cannot occur in a serde_json Value.
        number = math.trunc(value) if math.isfinite(value) and value >= 0 else None
    elif isinstance(value, str):
        trimmed = rust_trim(value)
        # Rust's integer FromStr accepts one leading '+', ASCII digits only (Python's int() is looser).
        number = int(trimmed) if _ASCII_UINT.fullmatch(trimmed) else None
    else:
        number = None
    if number is None or not 0 < number <= U32_MAX:
        return None
    return number
