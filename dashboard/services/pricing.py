"""Price edits: stored per user or for the whole dashboard; the checked-in table stays the default."""

from __future__ import annotations

from typing import Literal

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied

from dashboard.models import PriceOverride
from simulator import PriceEdit, PriceTableError, load_price_table

Scope = Literal["user", "dashboard"]


def _owner(user: User | AnonymousUser | None, scope: Scope) -> User | None:
    if not isinstance(user, User):
        raise PermissionDenied("sign in to edit prices")
    if scope == "dashboard":
        if not user.is_staff:
            raise PermissionDenied("only staff may edit the dashboard's prices; edit your own instead")
        return None
    return user


def price_override_set(
    *,
    user: User | AnonymousUser | None,
    key: str,
    scope: Scope,
    input_per_mtok: float,
    output_per_mtok: float,
    cache_write_multiplier: float,
    cache_read_multiplier: float,
    cache_ttl_seconds: int,
) -> PriceOverride:
    """Store an edit of the table entry ``key`` for ``user`` (scope ``user``) or everyone (``dashboard``).

    Raises:
        PriceTableError: no such entry, or a number out of range (nothing stored).
        PermissionDenied: not signed in, or a dashboard-level edit by a user who is not staff.
    """
    owner = _owner(user, scope)
    if key not in load_price_table().entries:
        raise PriceTableError(key, "no such entry in the price table")
    PriceEdit(
        key,
        input_per_mtok,
        output_per_mtok,
        cache_write_multiplier,
        cache_read_multiplier,
        cache_ttl_seconds,
        "",
    ).check()
    row, _ = PriceOverride.objects.update_or_create(
        owner=owner,
        key=key,
        defaults={
            "input_per_mtok": input_per_mtok,
            "output_per_mtok": output_per_mtok,
            "cache_write_multiplier": cache_write_multiplier,
            "cache_read_multiplier": cache_read_multiplier,
            "cache_ttl_seconds": cache_ttl_seconds,
            "updated_by": user if isinstance(user, User) else None,
        },
    )
    return row


def price_override_delete(*, user: User | AnonymousUser | None, key: str, scope: Scope) -> bool:
    """Drop the edit (back to the dashboard's or the table's price). Returns whether there was one."""
    owner = _owner(user, scope)
    deleted, _ = PriceOverride.objects.filter(owner=owner, key=key).delete()
    return deleted > 0
