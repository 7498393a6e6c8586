"""The price table API: read the prices in effect for the caller; edit them for the caller or the dashboard.

``GET /pricing`` is the checked-in table (``simulator/cost/prices.toml``) with the dashboard's edits and
then the caller's own on top, each entry saying where its numbers come from. ``PUT /pricing/{key}``
stores an edit (``scope`` ``user`` by default; ``dashboard`` is for staff), ``DELETE`` drops one. Keys
contain a ``/``, so the path takes the rest of the URL. A refusal (not signed in, not staff) is a 403,
an unknown key a 400 naming it, both mapped once in ``dashboard/api/errors.py``.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from ninja import Router, Status

from dashboard import selectors, services
from dashboard.api.docs import body_example
from dashboard.errors import ApplicationError
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


@router.get("", response=PriceTableOut, summary="Read the price table")
def get_price_table(request: HttpRequest) -> dict[str, object]:
    """The prices in effect for the caller: the checked-in table, the dashboard's edits, then the caller's
    own; each entry's `origin` says which (`table`, `dashboard`, `yours`).
    """
    table = selectors.price_table_for(user=request.user)
    rows = selectors.pricing_rows(user=request.user)
    return {"version": table.version, "default": table.default, "models": [_row(r) for r in rows]}


@router.put(
    "/{path:key}",
    response={200: PricingOut, 400: ErrorOut, 403: ErrorOut, 422: ErrorOut},
    summary="Edit a price table entry",
    openapi_extra=body_example(PriceEditIn),
)
def put_price(request: HttpRequest, key: str, payload: PriceEditIn) -> dict[str, object]:
    """Stores an edit of one entry (`key` as in the table, e.g. `anthropic/claude-sonnet-4-5`) for the caller
    (`scope` `user`) or for everyone (`dashboard`, staff only: 403 otherwise) and answers the entry as now in
    effect. A key not in the table or a number out of range answers 400 naming it; a missing field 422.
    """
    try:
        services.price_override_set(user=request.user, key=key, **payload.dict())
    except PermissionDenied as exc:
        raise ApplicationError(str(exc), status=403) from exc
    row = next(r for r in selectors.pricing_rows(user=request.user) if r.pricing.key == key)
    return _row(row)


@router.delete(
    "/{path:key}",
    response={204: None, 403: ErrorOut, 404: ErrorOut, 422: ErrorOut},
    summary="Drop a price table edit",
)
def delete_price(request: HttpRequest, key: str, scope: str = "user") -> Status[None]:
    """Drops the caller's own edit of `key` (or, with `scope=dashboard`, the dashboard's: staff only), so the
    next layer's numbers apply again. No such edit answers 404; another scope 422.
    """
    if scope not in ("user", "dashboard"):
        raise ApplicationError(f"scope must be user or dashboard, not {scope!r}", status=422)
    try:
        found = services.price_override_delete(
            user=request.user, key=key, scope="dashboard" if scope == "dashboard" else "user"
        )
    except PermissionDenied as exc:
        raise ApplicationError(str(exc), status=403) from exc
    if not found:
        raise ApplicationError(f"no {scope} edit of {key!r}", status=404)
    return Status(204, None)
