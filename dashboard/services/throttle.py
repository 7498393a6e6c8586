"""Ingestion throttling per runtime: at most ``TRIMSCOPE_INGEST_LIMIT`` events in each window of
``TRIMSCOPE_INGEST_WINDOW`` seconds, across every socket and ``POST /api/events`` of a runtime
(default 5,000 in 10 s: 500 a second, far above what one runtime's trims produce).

A fixed-window counter in Django's cache (``cache.add`` + ``cache.incr``, both atomic in the local-memory,
Redis and Memcached backends): one cache call per stored batch, not per event. With the default local
memory cache each daphne worker counts on its own; a shared cache (Redis) makes the limit fleet-wide.
A fixed window lets up to twice the limit through across a window boundary, which is fine for a guard
against a runaway sender.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.cache import cache

logger = logging.getLogger(__name__)


def _limits() -> tuple[int, int]:
    limit: int = settings.TRIMSCOPE_INGEST_LIMIT
    window: int = settings.TRIMSCOPE_INGEST_WINDOW
    return limit, max(1, window)


def ingest_throttle(*, runtime_id: int, events: int) -> float:
    """Count ``events`` against the runtime's window; seconds to wait when over the limit, else 0.

    What is over the limit is refused whole (nothing stored, nothing acknowledged): the runtime backs off
    and resends, which is what it does after a 1013 close or a 429.
    """
    limit, window = _limits()
    if limit <= 0 or events <= 0:
        return 0.0
    now = time.time()
    slot = int(now // window)
    key = f"trimscope:ingest:{runtime_id}:{slot}"
    try:
        cache.add(key, 0, timeout=window * 2)
        try:
            count = cache.incr(key, events)
        except ValueError:  # evicted between add and incr: start the window again
            cache.set(key, events, timeout=window * 2)
            count = events
        if count <= limit:
            return 0.0
        # Refused events are not stored, so they do not use up the window: the resend after the wait fits.
        cache.decr(key, events)
    except Exception:
        # Storing events must not depend on a shared cache (Redis) being up: without it, no throttling.
        logger.warning("ingestion throttle unavailable; events accepted unthrottled", exc_info=True)
        return 0.0
    return max(0.001, (slot + 1) * window - now)
