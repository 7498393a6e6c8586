"""Prices as data: the versioned price table in ``prices.toml`` and its lookup by ``provider/model``.

Each entry carries the input and output price per million tokens, the cache-write multipliers (5-minute
and 1-hour, for Anthropic), the cache-read multiplier, the cache lifetime, the smallest cacheable prefix
and how the provider caches (``breakpoints`` for Anthropic, ``automatic`` for OpenAI, ``implicit`` for
Gemini), with the page the numbers come from and the date of that copy. The table is package data read
with ``importlib.resources``; callers may also pass a table they built from their own document.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Literal

from simulator.errors import SimulatorError

Caching = Literal["breakpoints", "automatic", "implicit"]
CacheTtl = Literal["5m", "1h"]
CACHE_TTLS: tuple[CacheTtl, ...] = ("5m", "1h")
"""The cache-write lifetimes a caller may choose (Anthropic sells both; others cache for their own TTL)."""

_CACHING: tuple[Caching, ...] = ("breakpoints", "automatic", "implicit")
_DATE_SUFFIX = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2})$")
ONE_HOUR_SECONDS = 3600


class PriceTableError(SimulatorError):
    """The price table document is malformed (a missing or mistyped field in one entry)."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"price table entry {key!r}: {reason}", {"key": key, "reason": reason})
        self.key = key
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Pricing:
    """One model's prices (USD per million tokens) and cache rules."""

    key: str
    input_per_mtok: float
    output_per_mtok: float
    cache_write_multiplier: float
    """Cache writes with the default lifetime, as a multiple of the input price (0 = writes are free)."""
    cache_write_1h_multiplier: float
    cache_read_multiplier: float
    cache_ttl_seconds: int
    min_cacheable_tokens: int
    caching: Caching
    source: str
    checked: str
    note: str = ""

    @property
    def provider(self) -> str:
        return self.key.split("/", 1)[0]

    @property
    def model(self) -> str:
        return self.key.split("/", 1)[-1]

    def write_multiplier(self, ttl: CacheTtl) -> float:
        return self.cache_write_1h_multiplier if ttl == "1h" else self.cache_write_multiplier

    def ttl_seconds(self, ttl: CacheTtl) -> int:
        """The cache lifetime for ``ttl``: 1 hour only where the provider sells it (Anthropic)."""
        if ttl == "1h" and self.caching == "breakpoints":
            return ONE_HOUR_SECONDS
        return self.cache_ttl_seconds


@dataclass(frozen=True, slots=True)
class PriceTable:
    version: str
    default: str
    entries: Mapping[str, Pricing]
    aliases: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class PricingLookup:
    """What a lookup found: the pricing used, and a warning when it fell back to the table's default."""

    pricing: Pricing
    requested: str | None
    warning: str | None = None


def _number(raw: Mapping[str, object], key: str, field: str) -> float:
    value = raw.get(field)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise PriceTableError(key, f"{field} must be a non-negative number")
    return float(value)


def _text(raw: Mapping[str, object], key: str, field: str, *, required: bool = True) -> str:
    value = raw.get(field, None if required else "")
    if not isinstance(value, str) or (required and not value):
        raise PriceTableError(key, f"{field} must be a non-empty string")
    return value


def _entry(key: str, raw: object) -> Pricing:
    if not isinstance(raw, Mapping):
        raise PriceTableError(key, "entry must be a table")
    if "/" not in key:
        raise PriceTableError(key, "key must be provider/model")
    caching = raw.get("caching")
    if caching not in _CACHING:
        raise PriceTableError(key, f"caching must be one of {', '.join(_CACHING)}")
    return Pricing(
        key=key,
        input_per_mtok=_number(raw, key, "input_per_mtok"),
        output_per_mtok=_number(raw, key, "output_per_mtok"),
        cache_write_multiplier=_number(raw, key, "cache_write_multiplier"),
        cache_write_1h_multiplier=_number(raw, key, "cache_write_1h_multiplier"),
        cache_read_multiplier=_number(raw, key, "cache_read_multiplier"),
        cache_ttl_seconds=int(_number(raw, key, "cache_ttl_seconds")),
        min_cacheable_tokens=int(_number(raw, key, "min_cacheable_tokens")),
        caching=next(c for c in _CACHING if c == caching),
        source=_text(raw, key, "source"),
        checked=_text(raw, key, "checked"),
        note=_text(raw, key, "note", required=False),
    )


def price_table_from_toml(text: str) -> PriceTable:
    """Parse a price table document (the shape of the bundled ``prices.toml``).

    Raises:
        PriceTableError: an entry is malformed, or the default or an alias names no entry.
    """
    doc = tomllib.loads(text)
    models = doc.get("models")
    if not isinstance(models, Mapping) or not models:
        raise PriceTableError("models", "the table has no [models] entries")
    entries = {key: _entry(key, raw) for key, raw in models.items()}
    aliases_raw = doc.get("aliases", {})
    if not isinstance(aliases_raw, Mapping):
        raise PriceTableError("aliases", "must be a table")
    aliases: dict[str, str] = {}
    for alias, target in aliases_raw.items():
        if not isinstance(target, str) or target not in entries:
            raise PriceTableError(alias, f"alias points at no entry: {target!r}")
        aliases[alias] = target
    version = doc.get("version")
    default = doc.get("default")
    if not isinstance(version, str) or not version:
        raise PriceTableError("version", "the table has no version")
    if not isinstance(default, str) or default not in entries:
        raise PriceTableError("default", f"default names no entry: {default!r}")
    return PriceTable(version=version, default=default, entries=entries, aliases=aliases)


@lru_cache(maxsize=1)
def load_price_table() -> PriceTable:
    """The bundled, versioned price table."""
    text = resources.files("simulator.cost").joinpath("prices.toml").read_text(encoding="utf-8")
    return price_table_from_toml(text)


def _normalise(key: str, provider: str | None) -> str:
    key = key.strip().lower()
    if "/" not in key and provider:
        key = f"{provider.strip().lower()}/{key}"
    return key


def resolve_key(table: PriceTable, key: str, provider: str | None = None) -> str | None:
    """The table key for ``key`` (``provider/model`` or a bare model id with ``provider``), or ``None``.

    Dated snapshot ids (``-20250929``, ``-2024-08-06``) fall back to their undated entry.
    """
    wanted = _normalise(key, provider)
    for candidate in (wanted, _DATE_SUFFIX.sub("", wanted)):
        if candidate in table.entries:
            return candidate
        if candidate in table.aliases:
            return table.aliases[candidate]
    if "/" not in wanted:
        # A bare model id with no provider: unique match on the model part.
        matches = [k for k in table.entries if k.split("/", 1)[1] in (wanted, _DATE_SUFFIX.sub("", wanted))]
        if len(matches) == 1:
            return matches[0]
    return None


def pricing_for(
    key: str | None, *, provider: str | None = None, table: PriceTable | None = None
) -> PricingLookup:
    """The pricing for ``key``; the table's named default, with a warning, when the table lacks it.

    Args:
        key: ``provider/model`` (``anthropic/claude-sonnet-4-5``) or a bare model id; ``None`` when the
            transcript records no model.
        provider: Provider to prefix a bare model id with (e.g. the transcript's provider).
        table: A price table; the bundled one by default.

    Returns:
        The pricing and, when the default was used, a warning naming the model that was not found.
    """
    table = table or load_price_table()
    resolved = None if key is None else resolve_key(table, key, provider)
    if resolved is not None:
        return PricingLookup(pricing=table.entries[resolved], requested=key)
    what = "no model recorded" if key is None else f"model {key!r} is not in the price table"
    warning = f"{what}; priced as {table.default} (price table {table.version})"
    return PricingLookup(pricing=table.entries[table.default], requested=key, warning=warning)


__all__ = [
    "CACHE_TTLS",
    "CacheTtl",
    "Caching",
    "PriceTable",
    "PriceTableError",
    "Pricing",
    "PricingLookup",
    "load_price_table",
    "price_table_from_toml",
    "pricing_for",
    "resolve_key",
]
