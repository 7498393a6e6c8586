"""The cost parts of the simulation and compare pages: pricing, assumed gap and cache TTL from the URL, the
strip, the call's cost.

Kept apart from ``views/simulations.py`` so the page's view only adds one call to it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser, User
from django.urls import reverse

from dashboard import selectors
from dashboard.models import Transcript
from dashboard.presenters.cost_strip_svg import cost_bars_html
from dashboard.selectors.simulations import SessionTooLongToPrice
from dashboard.views.common import HtmxHttpRequest
from simulator import (
    CACHE_TTLS,
    DEFAULT_GAP_SECONDS,
    CacheTtl,
    CallRecord,
    PriceTableError,
    Profile,
    SimulationResult,
    TimelineShape,
    cost_strip,
    part_usd,
)

MAX_GAP_SECONDS = 7 * 24 * 3600


@dataclass(frozen=True, slots=True)
class CostParams:
    """The cost choices in the URL: ``pricing``, ``gap`` (seconds) and ``ttl`` (cache-write lifetime)."""

    pricing: str | None
    gap: float | None
    ttl: CacheTtl
    problem: str | None
    """A choice that could not be applied (its default is used), to show beside the cost."""

    def query(self) -> list[tuple[str, str]]:
        """The choices that differ from the defaults, to carry in links."""
        pairs = [("pricing", self.pricing or ""), ("gap", "" if self.gap is None else f"{self.gap:g}")]
        pairs.append(("ttl", "" if self.ttl == "5m" else self.ttl))
        return [(k, v) for k, v in pairs if v]


COST_INLINE_CHANGED = 100_000
"""A session drawn with its cost (up to a view's message limit) sends at most this many messages changed,
summed over its calls and replays: each is priced as sent at every call that changes it, so a short session
whose every call strips old thinking or cleans old screenshots (hundreds of messages per call) prices for
seconds, and its cost is asked for after the page like a long session's."""


def cost_inline(transcript: Transcript, results: Iterable[SimulationResult], *, messages: int) -> bool:
    """Whether the cost is drawn with the page: up to ``messages`` messages and ``COST_INLINE_CHANGED``
    messages sent changed."""
    if transcript.message_count > messages:
        return False
    changed = 0
    for result in results:
        for call in result.calls:
            changed += sum(len(group.indices) for group in call.fated)
            if changed > COST_INLINE_CHANGED:
                return False
    return True


def _ttl(raw: str) -> tuple[CacheTtl, str | None]:
    for ttl in CACHE_TTLS:
        if raw == ttl:
            return ttl, None
    if not raw:
        return "5m", None
    return "5m", f"cache TTL {raw!r} is not one of {', '.join(CACHE_TTLS)}: 5m used"


def _gap(raw: str) -> tuple[float | None, str | None]:
    if not raw:
        return None, None
    try:
        gap = float(raw)
    except ValueError:
        return None, f"assumed gap {raw!r} is not a number of seconds: not applied"
    if not math.isfinite(gap) or not 0 <= gap <= MAX_GAP_SECONDS:
        return None, f"assumed gap {raw} is outside 0 to {MAX_GAP_SECONDS:,} seconds: not applied"
    return gap, None


def cost_params(request: HtmxHttpRequest) -> CostParams:
    """``pricing``, ``gap`` and ``ttl`` from the URL, and the problems with them to show (each default is
    then used)."""
    ttl, ttl_problem = _ttl(request.GET.get("ttl") or "")
    gap, gap_problem = _gap(request.GET.get("gap") or "")
    problems = [p for p in (gap_problem, ttl_problem) if p]
    return CostParams(request.GET.get("pricing") or None, gap, ttl, "; ".join(problems) or None)


def _gap_context(params: CostParams) -> dict[str, object]:
    """What the page says about time between calls, and the gap control's current value."""
    return {
        "cost_gap": "" if params.gap is None else f"{params.gap:g}",
        "cost_gap_default": f"{DEFAULT_GAP_SECONDS:g}",
        "cost_ttl": params.ttl,
        "cache_ttls": CACHE_TTLS,
    }


def cost_context(
    *,
    user: User | AnonymousUser,
    transcript: Transcript,
    profile: Profile,
    record: CallRecord,
    shape: TimelineShape,
    params: CostParams,
    base_query: str,
) -> dict[str, object]:
    """The cost strip and the cost of call ``record`` (the selected one), priced as ``params`` say; the
    strip's bars link to the calls with ``base_query``."""
    pricing, gap, ttl, problem = params.pricing, params.gap, params.ttl, params.problem
    try:
        cost = selectors.simulation_cost(
            transcript=transcript,
            profile=profile,
            user=user,
            pricing=pricing,
            assumed_gap_seconds=gap,
            cache_ttl=ttl,
        )
    except SessionTooLongToPrice as exc:
        return {"cost_refused": exc.message}
    except PriceTableError as exc:
        problem = (
            f"pricing {pricing!r} is not in the price table: priced at the default instead ({exc.message})"
        )
        pricing = None
        cost = selectors.simulation_cost(
            transcript=transcript, profile=profile, user=user, assumed_gap_seconds=gap, cache_ttl=ttl
        )
    number = record.number
    session = cost.session
    call_cost = session.calls[number - 1]
    recorded = None
    if cost.recorded is not None:
        recorded = next((c for c in cost.recorded.calls if c.message_index == record.message_index), None)
    strip = cost_strip(shape, session, cost.breaks)
    usd, baseline_usd, difference_usd = cost.totals()  # each a sum over every call: summed once
    return {
        **_gap_context(params),
        "cost": cost,
        "cost_usd": usd,
        "cost_baseline_usd": baseline_usd,
        "cost_difference_usd": difference_usd,
        "cost_strip": strip,
        "cost_bars": cost_bars_html(strip, base_query=base_query, page_url=reverse("simulation")),
        "call_cost": call_cost,
        "call_parts": part_usd(session, call_cost),
        "call_break": next((b for b in cost.breaks if b.number == number), None),
        "call_recorded": recorded,
        "cost_problem": problem,
        "cost_pricing": pricing or "",
        "pricing_keys": [r.pricing.key for r in selectors.pricing_rows(user=user)],
        "cost_saving": -difference_usd,
    }


def compare_cost_context(
    *,
    request: HtmxHttpRequest,
    transcript: Transcript,
    profiles: list[Profile],
    table: list[dict[str, object]],
    params: CostParams,
) -> dict[str, object]:
    """The compare page's cost parts; also puts each cell's ``usd`` into ``table``'s rows."""
    pricing, gap, ttl, problem = params.pricing, params.gap, params.ttl, params.problem
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
            cache_ttl=ttl,
        )
    except PriceTableError:
        problem = f"pricing {pricing!r} is not in the price table: priced at the default instead"
        pricing = None
        costs, money = selectors.comparison_costs(
            transcript=transcript,
            profiles=profiles,
            user=request.user,
            assumed_gap_seconds=gap,
            cache_ttl=ttl,
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
        **_gap_context(params),
        "cost_pricing": pricing or "",
        "pricing_keys": [r.pricing.key for r in selectors.pricing_rows(user=request.user)],
        "money": money,
        "money_rows": [
            {"name": n, "cost": c, "total": t, "difference": d}
            for n, c, t, d in zip(names, costs, money.totals, money.differences, strict=True)
        ],
        "overtakes": overtakes,
        "money_pricing": costs[0].lookup.pricing.key if costs else "",
        "money_gap": costs[0].gap_statement if costs else "",
        "money_ttl": costs[0].ttl_statement if costs else "",
        "money_problem": problem,
    }
