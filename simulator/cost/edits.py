"""Price edits layered on the checked-in table (the dashboard stores them; the table file stays the default).

An edit replaces the five numbers the cost objects show (input and output price, cache-write and
cache-read multipliers, cache lifetime) of one entry and names who made it in the entry's ``source``;
the entry's caching kind, minimum cacheable prefix and 1-hour multiplier stay the table's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from simulator.cost.pricing import PriceTable, PriceTableError

MAX_PER_MTOK = 10_000.0
MAX_MULTIPLIER = 100.0
MAX_TTL_SECONDS = 7 * 24 * 3600


@dataclass(frozen=True, slots=True)
class PriceEdit:
    key: str
    input_per_mtok: float
    output_per_mtok: float
    cache_write_multiplier: float
    cache_read_multiplier: float
    cache_ttl_seconds: int
    source: str
    """Who made the edit and when (shown as the entry's source)."""

    def check(self) -> None:
        """Raises :class:`PriceTableError` naming the first number out of range."""
        limits = (
            ("input_per_mtok", self.input_per_mtok, MAX_PER_MTOK),
            ("output_per_mtok", self.output_per_mtok, MAX_PER_MTOK),
            ("cache_write_multiplier", self.cache_write_multiplier, MAX_MULTIPLIER),
            ("cache_read_multiplier", self.cache_read_multiplier, MAX_MULTIPLIER),
            ("cache_ttl_seconds", float(self.cache_ttl_seconds), float(MAX_TTL_SECONDS)),
        )
        for field, value, maximum in limits:
            if not 0 <= value <= maximum:  # NaN fails both comparisons
                raise PriceTableError(self.key, f"{field} must be between 0 and {maximum:g}")


def price_table_with(table: PriceTable, edits: Sequence[PriceEdit]) -> PriceTable:
    """``table`` with ``edits`` applied in order (a later edit of the same key wins).

    Raises:
        PriceTableError: an edit names no entry of the table, or a number is out of range.
    """
    if not edits:
        return table
    entries = dict(table.entries)
    for edit in edits:
        edit.check()
        if edit.key not in entries:
            raise PriceTableError(edit.key, "no such entry in the price table")
        entries[edit.key] = replace(
            entries[edit.key],
            input_per_mtok=edit.input_per_mtok,
            output_per_mtok=edit.output_per_mtok,
            cache_write_multiplier=edit.cache_write_multiplier,
            cache_read_multiplier=edit.cache_read_multiplier,
            cache_ttl_seconds=edit.cache_ttl_seconds,
            source=edit.source,
        )
    version = f"{table.version}+{len(edits)} edit{'s' if len(edits) != 1 else ''}"
    return replace(table, entries=entries, version=version)


__all__ = ["PriceEdit", "price_table_with"]
