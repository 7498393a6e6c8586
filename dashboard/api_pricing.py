"""The price table API: read the prices in effect for the caller; edit them for the caller or the dashboard.

``GET /pricing`` is the checked-in table (``simulator/cost/prices.toml``) with the dashboard's edits and
then the caller's own on top, each entry saying where its numbers come from. ``PUT /pricing/{key}``
stores an edit (``scope`` ``user`` by default; ``dashboard`` is for staff), ``DELETE`` drops one. Keys
contain a ``/``, so the path takes the rest of the URL.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from ninja import Router, Status
from ninja.errors import HttpError

from dashboard import selectors, services
from dashboard.schemas import ErrorOut, PriceEditIn, PriceTableOut, PricingOut
from dashboard.selectors.pricing import PricingRow

router = Router(tags=["pricing"])


def _row(row: PricingRow) -> dict[str, object]:
    p = row.pricing
    return {
        "key": p.key,
        "input_per_mtok": p.input_per_mtok,
        "output_per_mtok": p.output_per_mtok,
        "cache_write_multiplier": p.cache_write_multiplier,
        "cache_write_1h_multiplier": p.cache_write_1h_multiplier,
        "cache_read_multiplier": p.cache_read_multiplier,
        "cache_ttl_seconds": p.cache_ttl_seconds,
        "min_cacheable_tokens": p.min_cacheable_tokens,
        "caching": p.caching,
        "source": p.source,
        "checked": p.checked,
        "note": p.note,
        "origin": row.origin,
    }


@router.get("", response=PriceTableOut)
def get_price_table(request: HttpRequest) -> dict[str, object]:
    table = selectors.price_table_for(user=request.user)
    rows = selectors.pricing_rows(user=request.user)
    return {"version": table.version, "default": table.default, "models": [_row(r) for r in rows]}


@router.put("/{path:key}", response={200: PricingOut, 400: ErrorOut, 403: ErrorOut, 422: ErrorOut})
def put_price(request: HttpRequest, key: str, payload: PriceEditIn) -> dict[str, object]:
    try:
        services.price_override_set(user=request.user, key=key, **payload.dict())
    except PermissionDenied as exc:
        raise HttpError(403, str(exc)) from exc
    row = next(r for r in selectors.pricing_rows(user=request.user) if r.pricing.key == key)
    return _row(row)


@router.delete("/{path:key}", response={204: None, 403: ErrorOut, 404: ErrorOut})
def delete_price(request: HttpRequest, key: str, scope: str = "user") -> Status[None]:
    if scope not in ("user", "dashboard"):
        raise HttpError(422, f"scope must be user or dashboard, not {scope!r}")
    try:
        found = services.price_override_delete(
            user=request.user, key=key, scope="dashboard" if scope == "dashboard" else "user"
        )
    except PermissionDenied as exc:
        raise HttpError(403, str(exc)) from exc
    if not found:
        raise HttpError(404, f"no {scope} edit of {key!r}")
    return Status(204, None)
