"""Throttles for sign-in attempts and API token use, counted with the ``limits`` library.

Moving windows (``limits.strategies.MovingWindowRateLimiter``): a rule such as ``10/15minutes`` allows
ten hits in any fifteen minutes, and the wait it answers is the time until the oldest hit leaves the
window, so ``Retry-After`` is exact. The counts live in Redis when ``REDIS_URL`` is set (shared by every
daphne worker) and in the process's memory otherwise (the embedded install runs one worker).

Redis being down must not lock operators out nor open the gate: on a storage error the process counts
in its own memory for ``FALLBACK_SECONDS`` and then tries Redis again.
"""

from __future__ import annotations

import logging
import math
import os
import time
from dataclasses import dataclass

from django.conf import settings
from limits import RateLimitItem, parse
from limits.storage import MemoryStorage, RedisStorage
from limits.strategies import MovingWindowRateLimiter

logger = logging.getLogger(__name__)

FALLBACK_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class Rule:
    """A named limit; its rate comes from ``settings.TRIMSCOPE_THROTTLE[name]``."""

    name: str

    def item(self) -> RateLimitItem:
        return parse(settings.TRIMSCOPE_THROTTLE[self.name])


LOGIN_USERNAME = Rule("login_username")
"""Failed sign-ins per username (whoever tries it)."""
LOGIN_ADDRESS = Rule("login_address")
"""Failed sign-ins per client address (whatever usernames it tries)."""
API_TOKEN = Rule("api_token")
"""Requests per API token."""
API_BAD_TOKEN = Rule("api_bad_token")
"""Requests per client address with a bearer token that opens nothing."""


class _Limiters:
    """The limiters of one process: a forked worker must not share its parent's counters or sockets."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.local = MovingWindowRateLimiter(MemoryStorage())
        self.shared: MovingWindowRateLimiter | None = None
        self.shared_down_until = 0.0
        redis_url: str | None = settings.REDIS_URL
        if redis_url:
            storage = RedisStorage(
                redis_url,
                key_prefix=settings.TRIMSCOPE_THROTTLE_KEY_PREFIX,
                wrap_exceptions=True,
                socket_connect_timeout=1.0,
                socket_timeout=1.0,
            )
            self.shared = MovingWindowRateLimiter(storage)

    def current(self) -> MovingWindowRateLimiter:
        if self.shared is not None and time.monotonic() >= self.shared_down_until:
            return self.shared
        return self.local

    def failed(self, limiter: MovingWindowRateLimiter, exc: Exception) -> None:
        if limiter is self.shared:
            logger.warning("throttle storage unavailable, counting per process for now: %s", exc)
            self.shared_down_until = time.monotonic() + FALLBACK_SECONDS


_process_limiters: _Limiters | None = None


def _limiters() -> _Limiters:
    global _process_limiters
    if _process_limiters is None or _process_limiters.pid != os.getpid():
        _process_limiters = _Limiters()
    return _process_limiters


def _seconds_left(limiter: MovingWindowRateLimiter, item: RateLimitItem, key: tuple[str, ...]) -> int:
    reset_at = limiter.get_window_stats(item, *key).reset_time
    return max(1, math.ceil(reset_at - time.time()))


def _run(rule: Rule, identifier: str, *, hit: bool) -> int | None:
    item, key = rule.item(), (rule.name, identifier)
    limiters = _limiters()
    for _attempt in range(2):  # the second one is local when the shared storage just failed
        limiter = limiters.current()
        try:
            allowed = limiter.hit(item, *key) if hit else limiter.test(item, *key)
            return None if allowed else _seconds_left(limiter, item, key)
        except Exception as exc:  # noqa: BLE001  # any storage error: count locally instead
            if limiter is limiters.local:
                raise
            limiters.failed(limiter, exc)
    return None  # pragma: no cover  # the local limiter either answered or raised


def throttle_wait(rule: Rule, identifier: str) -> int | None:
    """Seconds to wait when the rule's limit for ``identifier`` is used up; ``None`` when not (no hit)."""
    return _run(rule, identifier, hit=False)


def throttle_hit(rule: Rule, identifier: str) -> int | None:
    """Count one hit; ``None`` when it fitted, else the seconds to wait (the hit is then not counted)."""
    return _run(rule, identifier, hit=True)


def throttle_clear(rule: Rule, identifier: str) -> None:
    limiters = _limiters()
    limiter = limiters.current()
    try:
        limiter.clear(rule.item(), rule.name, identifier)
    except Exception as exc:  # noqa: BLE001  # clearing is a courtesy; a storage error must not fail sign-in
        limiters.failed(limiter, exc)
