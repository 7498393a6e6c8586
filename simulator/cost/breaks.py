"""Calls where the cache broke: what was written again that the previous call had cached, and why.

A call that only extends the previous request writes its growth. Anything written beyond that, up to
what the previous call had in the cache (written or read), is a re-write: either the cache had expired
(the gap since the previous call is longer than the lifetime), or the request changed before the end of
the previous one (a dropped turn, a trimmed or cleared tool result, an inserted breadcrumb, a removed
image), or, with the request unchanged, no breakpoint was within Anthropic's 20-block lookback of the
entry. Writing a prefix for the first time (one that was below the minimum cacheable size before) is not
a break. The extra cost is what the re-written tokens cost at the write price over reading them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from simulator.cost.cache import TOKENS_PER_MTOK, Request, SessionCost, SharedPrefix, _shared_length

BreakCause = Literal["expired", "prefix-changed", "lookback"]


@dataclass(frozen=True, slots=True)
class CacheBreak:
    number: int
    """1-based call number."""
    cause: BreakCause
    rewritten_tokens: int
    """Tokens written again beyond the call's growth."""
    extra_usd: float
    """What the re-write cost over reading the same tokens from the cache."""
    first_changed: int | None
    """Position in the request of the first message that differs from the previous request."""

    def sentence(self) -> str:
        if self.cause == "expired":
            why = "the cache had expired"
        elif self.cause == "lookback":
            why = "no breakpoint was within 20 blocks of the cached entry"
        else:
            why = f"the request changed at message {self.first_changed}"
        return (
            f"Call {self.number}: {self.rewritten_tokens:,} tokens written to the cache again because {why}; "
            f"${self.extra_usd:.4f} more than reading them."
        )


def _first_difference(before: Request, now: Request) -> int | None:
    """Where ``now``'s request first differs from ``before``'s in a fingerprint (``None``: it extends it).

    Equal segments have equal fingerprints, so the common prefix the cache model finds piece by piece is
    skipped (two ropes that read the same lists alike agree without a comparison): a long session whose
    every call strips the thinking of the assistant before parts from it near its end, and comparing
    message by message from the start made the breaks the square of the session.
    :func:`_first_difference_walk` is the reference.
    """
    old, new = before.segments, now.segments
    if isinstance(old, SharedPrefix) and isinstance(new, SharedPrefix) and old.history is new.history:
        # Prefixes of one history agree up to the shorter one's end.
        return len(new) if len(new) < len(old) else None
    n = min(len(old), len(new))
    for position in range(_shared_length(old, new), n):
        # Most often the first unequal segment differs in its fingerprint: one look.
        if old[position].fingerprint != new[position].fingerprint:
            return position
    return n if len(new) < len(old) else None


def _first_difference_walk(before: Request, now: Request) -> int | None:
    """:func:`_first_difference`, comparing every segment from the start (the reference)."""
    for position, (a, b) in enumerate(zip(before.segments, now.segments, strict=False)):
        if a.fingerprint != b.fingerprint:
            return position
    if len(now.segments) < len(before.segments):
        return len(now.segments)
    return None


def cache_breaks(requests: Sequence[Request], session: SessionCost) -> tuple[CacheBreak, ...]:
    """The calls that wrote again what the call before had cached.

    Args:
        requests: The priced requests, in order.
        session: ``price_requests(requests, ...)``.
    """
    pricing, ttl = session.pricing, session.ttl
    premium = pricing.input_per_mtok * (pricing.write_multiplier(ttl) - pricing.cache_read_multiplier)
    lifetime = pricing.ttl_seconds(ttl)
    out: list[CacheBreak] = []
    for number in range(2, len(requests) + 1):
        before, now = requests[number - 2], requests[number - 1]
        cost = session.calls[number - 1]
        previous = session.calls[number - 2]
        # A request's tokens are what its call was priced on (a pruned call's request is not summed again).
        growth = max(0, cost.prompt_tokens - previous.prompt_tokens)
        rewritten = min(
            cost.cache_write_tokens - growth, previous.cache_write_tokens + previous.cache_read_tokens
        )
        if rewritten <= 0:
            continue
        expired = now.at_seconds - before.at_seconds >= lifetime
        changed = _first_difference(before, now)
        cause: BreakCause = (
            "expired" if expired else ("prefix-changed" if changed is not None else "lookback")
        )
        out.append(
            CacheBreak(
                number=number,
                cause=cause,
                rewritten_tokens=rewritten,
                extra_usd=rewritten * premium / TOKENS_PER_MTOK,
                first_changed=changed,
            )
        )
    return tuple(out)


__all__ = ["BreakCause", "CacheBreak", "cache_breaks"]
