"""The cost parts of the simulation page: pricing and assumed gap from the URL, the strip, the call's cost.

Kept apart from ``views/simulations.py`` so the page's view only adds one call to it.
"""

from __future__ import annotations

import math

from django.contrib.auth.models import AnonymousUser, User

from dashboard import selectors
from dashboard.models import Transcript
from dashboard.selectors.simulations import SessionTooLongToPrice, SimulationScreen
from dashboard.views.common import HtmxHttpRequest
from simulator import PriceTableError, Profile, TimelineShape, cost_strip, part_usd

MAX_GAP_SECONDS = 7 * 24 * 3600


def cost_params(request: HtmxHttpRequest) -> tuple[str | None, float | None, str | None]:
    """``pricing`` and ``gap`` from the URL, and a problem with them to show (the default is then used)."""
    pricing = request.GET.get("pricing") or None
    raw = request.GET.get("gap") or ""
    if not raw:
        return pricing, None, None
    try:
        gap = float(raw)
    except ValueError:
        return pricing, None, f"assumed gap {raw!r} is not a number of seconds: not applied"
    if not math.isfinite(gap) or not 0 <= gap <= MAX_GAP_SECONDS:
        return pricing, None, f"assumed gap {raw} is outside 0 to {MAX_GAP_SECONDS:,} seconds: not applied"
    return pricing, gap, None


def cost_context(
    *,
    user: User | AnonymousUser,
    transcript: Transcript,
    profile: Profile,
    screen: SimulationScreen,
    shape: TimelineShape,
    pricing: str | None,
    gap: float | None,
    problem: str | None,
) -> dict[str, object]:
    try:
        cost = selectors.simulation_cost(
            transcript=transcript, profile=profile, user=user, pricing=pricing, assumed_gap_seconds=gap
        )
    except SessionTooLongToPrice as exc:
        return {"cost_refused": exc.message}
    except PriceTableError as exc:
        problem = (
            f"pricing {pricing!r} is not in the price table: priced at the default instead ({exc.message})"
        )
        pricing = None
        cost = selectors.simulation_cost(
            transcript=transcript, profile=profile, user=user, assumed_gap_seconds=gap
        )
    number = screen.call.call.number
    session = cost.session
    call_cost = session.calls[number - 1]
    recorded = None
    if cost.recorded is not None:
        recorded = next(
            (c for c in cost.recorded.calls if c.message_index == screen.call.call.message_index), None
        )
    return {
        "cost": cost,
        "cost_strip": cost_strip(shape, session, cost.breaks),
        "call_cost": call_cost,
        "call_parts": part_usd(session, call_cost),
        "call_break": next((b for b in cost.breaks if b.number == number), None),
        "call_recorded": recorded,
        "cost_problem": problem,
        "cost_pricing": pricing or "",
        "cost_gap": "" if gap is None else f"{gap:g}",
        "pricing_keys": [r.pricing.key for r in selectors.pricing_rows(user=user)],
        "cost_saving": -cost.difference_usd,
    }


def compare_cost_context(
    *,
    request: HtmxHttpRequest,
    transcript: Transcript,
    profiles: list[Profile],
    table: list[dict[str, object]],
) -> dict[str, object]:
    """The compare page's cost parts; also puts each cell's ``usd`` into ``table``'s rows."""
    pricing, gap, problem = cost_params(request)
    if transcript.message_count > selectors.cost_max_messages():
        limit = selectors.cost_max_messages()
        return {"money_refused": SessionTooLongToPrice(transcript.message_count, limit).message}
    try:
        costs, money = selectors.comparison_costs(
            transcript=transcript,
            profiles=profiles,
            user=request.user,
            pricing=pricing,
            assumed_gap_seconds=gap,
        )
    except PriceTableError:
        problem = f"pricing {pricing!r} is not in the price table: priced at the default instead"
        costs, money = selectors.comparison_costs(
            transcript=transcript, profiles=profiles, user=request.user, assumed_gap_seconds=gap
        )
    for line in table:
        row, cells = line["row"], line["cells"]
        number = getattr(row, "number", 0)
        if isinstance(cells, list) and 1 <= number <= len(money.per_call):
            for cell, usd in zip(cells, money.per_call[number - 1], strict=False):
                if isinstance(cell, dict):
                    cell["usd"] = usd
    names = [p.name for p in profiles]
    overtakes = [
        {
            "profile": names[x.other],
            "against": names[x.first],
            "call": x.call,
            "cheaper": None if x.cheaper_after is None else names[x.cheaper_after],
        }
        for x in money.crossings
    ]
    return {
        "money": money,
        "money_rows": [
            {"name": n, "cost": c, "total": t, "difference": d}
            for n, c, t, d in zip(names, costs, money.totals, money.differences, strict=True)
        ],
        "overtakes": overtakes,
        "money_pricing": costs[0].lookup.pricing.key if costs else "",
        "money_gap": costs[0].gap_statement if costs else "",
        "money_problem": problem,
    }
