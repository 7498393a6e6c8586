"""What a trim reported by a live runtime cost in cache re-writes, from the event's own token counts.

A ZeroClaw trim drops the oldest turns after the system prompt, so the next request differs from the
previous one right after the system prompt: everything it still sends after that point is written to
the cache again instead of read from it. The event carries ``tokens_after`` (what the history holds
after the trim, in the runtime's own estimate); the estimate here is that all of it is written again at
the cache-write price rather than read at the cache-read price. It is an upper bound (the system prompt
stays cached and ZeroClaw counts it in the history), and events without token counts get none.
"""

from __future__ import annotations

from simulator.cost.cache import TOKENS_PER_MTOK
from simulator.cost.pricing import CacheTtl, Pricing


def trim_rewrite_usd(tokens_after: int, pricing: Pricing, ttl: CacheTtl = "5m") -> float:
    """The extra a trim's next call pays to write ``tokens_after`` tokens again instead of reading them."""
    premium = pricing.write_multiplier(ttl) - pricing.cache_read_multiplier
    return max(0, tokens_after) * pricing.input_per_mtok * premium / TOKENS_PER_MTOK


__all__ = ["trim_rewrite_usd"]
