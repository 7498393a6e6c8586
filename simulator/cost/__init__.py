"""What a profile costs: a price table, a prompt-cache model priced per call, and adapters from replays.

* :mod:`simulator.cost.pricing` -- the versioned price table (``prices.toml``) and lookup by key.
* :mod:`simulator.cost.cache` -- the cache model: per call, uncached / cache-write / cache-read tokens.
* :mod:`simulator.cost.breakpoints` -- where each runtime places Anthropic ``cache_control`` breakpoints.
* :mod:`simulator.cost.from_replay` -- requests from a replay, the ``as-recorded`` baseline, and the
  comparison with the usage a transcript recorded.
* :mod:`simulator.cost.breaks` -- the calls where a trim, a prune or an expiry made the cache write again.
* :mod:`simulator.cost.shapes` -- the JSON objects ``simulate --json`` gives (``cost``, ``pricing``).
"""

from __future__ import annotations

from simulator.cost.breakpoints import BREAKPOINT_POLICIES, RUNTIME_POLICY, PolicyName
from simulator.cost.breaks import CacheBreak, cache_breaks
from simulator.cost.cache import CallCost, Request, Segment, SessionCost, price_requests
from simulator.cost.from_replay import (
    DEFAULT_GAP_SECONDS,
    TranscriptTokens,
    UsageComparison,
    as_recorded_requests,
    compare_with_recorded,
    requests_from_result,
)
from simulator.cost.pricing import CacheTtl, PriceTable, Pricing, PricingLookup, load_price_table, pricing_for
from simulator.cost.shapes import cost_json, pricing_json, summary_cost_usd

__all__ = [
    "BREAKPOINT_POLICIES",
    "DEFAULT_GAP_SECONDS",
    "RUNTIME_POLICY",
    "CacheBreak",
    "CacheTtl",
    "CallCost",
    "PolicyName",
    "PriceTable",
    "Pricing",
    "PricingLookup",
    "Request",
    "Segment",
    "SessionCost",
    "TranscriptTokens",
    "UsageComparison",
    "as_recorded_requests",
    "cache_breaks",
    "compare_with_recorded",
    "cost_json",
    "load_price_table",
    "price_requests",
    "pricing_for",
    "pricing_json",
    "requests_from_result",
    "summary_cost_usd",
]
