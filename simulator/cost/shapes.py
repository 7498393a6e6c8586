"""The JSON objects ``simulate --json`` (and the API) give for cost, as specified in issue 12.

* each call: ``cost`` = ``{"input_tokens", "cache_write_tokens", "cache_read_tokens", "output_tokens",
  "usd"}`` (``input_tokens`` is uncached input);
* each result: ``pricing`` = ``{"model", "input_per_mtok", "output_per_mtok", "cache_write_multiplier",
  "cache_read_multiplier", "cache_ttl_seconds", "source"}``;
* ``summary.cost_usd`` = the sum of the calls' ``usd`` as printed, so the two always add up.
"""

from __future__ import annotations

from simulator.cost.cache import CallCost, SessionCost
from simulator.cost.pricing import CacheTtl, Pricing
from simulator.jsonvalue import JSON

USD_DECIMALS = 8


def cost_json(cost: CallCost) -> dict[str, JSON]:
    return {
        "input_tokens": cost.input_tokens,
        "cache_write_tokens": cost.cache_write_tokens,
        "cache_read_tokens": cost.cache_read_tokens,
        "output_tokens": cost.output_tokens,
        "usd": round(cost.usd, USD_DECIMALS),
    }


def pricing_json(pricing: Pricing, ttl: CacheTtl = "5m") -> dict[str, JSON]:
    return {
        "model": pricing.key,
        "input_per_mtok": pricing.input_per_mtok,
        "output_per_mtok": pricing.output_per_mtok,
        "cache_write_multiplier": pricing.write_multiplier(ttl),
        "cache_read_multiplier": pricing.cache_read_multiplier,
        "cache_ttl_seconds": pricing.ttl_seconds(ttl),
        "source": pricing.source,
    }


def summary_cost_usd(session: SessionCost) -> float:
    """``summary.cost_usd``: the sum of the per-call ``usd`` values as printed."""
    return round(sum(round(c.usd, USD_DECIMALS) for c in session.calls), USD_DECIMALS)


__all__ = ["USD_DECIMALS", "cost_json", "pricing_json", "summary_cost_usd"]
