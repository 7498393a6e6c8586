"""Reads for prices: the checked-in table with the dashboard's and the user's edits on top."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Q

from dashboard.models import PriceOverride
from simulator import PriceEdit, PriceTable, Pricing, load_price_table, price_table_with, trim_rewrite_usd

Origin = Literal["table", "dashboard", "yours"]


def _user_id(user: User | AnonymousUser | None) -> int | None:
    return user.pk if isinstance(user, User) else None


def _edit(row: PriceOverride) -> PriceEdit:
    who = row.updated_by.get_username() if row.updated_by is not None else "someone"
    scope = "dashboard edit" if row.owner_id is None else f"{who}'s own edit"
    return PriceEdit(
        key=row.key,
        input_per_mtok=row.input_per_mtok,
        output_per_mtok=row.output_per_mtok,
        cache_write_multiplier=row.cache_write_multiplier,
        cache_read_multiplier=row.cache_read_multiplier,
        cache_ttl_seconds=row.cache_ttl_seconds,
        source=f"{scope} by {who}, {row.updated_at:%Y-%m-%d %H:%M} UTC",
    )


def price_overrides(*, user: User | AnonymousUser | None) -> list[PriceOverride]:
    """Dashboard-level edits, then the user's own (so the user's win when both edit one entry)."""
    uid = _user_id(user)
    rows = PriceOverride.objects.select_related("updated_by")
    mine = Q(owner__isnull=True) if uid is None else Q(owner__isnull=True) | Q(owner_id=uid)
    return sorted(rows.filter(mine), key=lambda r: (r.owner_id is not None, r.key))


def price_edits(*, user: User | AnonymousUser | None) -> tuple[PriceEdit, ...]:
    table = load_price_table()
    # An edit of an entry the checked-in table no longer has is ignored, not an error on every page.
    return tuple(_edit(r) for r in price_overrides(user=user) if r.key in table.entries)


def price_table_for(*, user: User | AnonymousUser | None) -> PriceTable:
    return price_table_with(load_price_table(), price_edits(user=user))


@dataclass(frozen=True, slots=True)
class PricingRow:
    pricing: Pricing
    """In effect for this user."""
    default: Pricing
    """As the checked-in table has it."""
    origin: Origin
    dashboard_edit: bool
    own_edit: bool


def pricing_rows(*, user: User | AnonymousUser | None) -> list[PricingRow]:
    base = load_price_table()
    overrides = price_overrides(user=user)
    dashboard = {r.key for r in overrides if r.owner_id is None}
    own = {r.key for r in overrides if r.owner_id is not None}
    table = price_table_with(base, tuple(_edit(r) for r in overrides if r.key in base.entries))
    rows: list[PricingRow] = []
    for key, pricing in sorted(table.entries.items()):
        origin: Origin = "yours" if key in own else ("dashboard" if key in dashboard else "table")
        rows.append(PricingRow(pricing, base.entries[key], origin, key in dashboard, key in own))
    return rows


@dataclass(frozen=True, slots=True)
class BreakCosts:
    """Per trim event (by row), the estimated cost of the cache re-write it caused, and the session's sum."""

    pricing_key: str
    per_row: tuple[float | None, ...]
    total: float
    counted: int


def fleet_session_break_costs(*, rows: Sequence[object], user: User | AnonymousUser | None) -> BreakCosts:
    """The cache-break estimate of each session row whose event carries ``tokens_after``.

    Priced at the table's default model (live events do not say which model the runtime called), with the
    prices in effect for ``user``.
    """
    table = price_table_for(user=user)
    pricing = table.entries[table.default]
    per_row: list[float | None] = []
    for row in rows:
        event = getattr(row, "event", None)
        after = getattr(event, "tokens_after", None)
        per_row.append(None if not isinstance(after, int) else trim_rewrite_usd(after, pricing))
    counted = [c for c in per_row if c is not None]
    return BreakCosts(pricing.key, tuple(per_row), sum(counted), len(counted))
