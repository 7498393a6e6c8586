"""Fleet reads: sessions whose provider counted far more input than the runtime estimated.

A Trimscope envelope may carry both the runtime's estimate (``tokens_before``) and the provider's
reported input tokens (``provider_input_tokens``, kept in the stored frame); a runtime trimming on an
estimate that is half of reality overflows or pays for context it thinks it does not send.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from dashboard.models import TrimEvent


@dataclass(frozen=True, slots=True)
class EstimateDrift:
    session_id: str
    runtime: str
    estimate: int
    provider: int
    ratio: float
    at: datetime
    event_id: int


def _provider_count(payload: object) -> int | None:
    event = payload.get("event") if isinstance(payload, dict) else None
    value = event.get("provider_input_tokens") if isinstance(event, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def fleet_estimate_drift(
    *, now: datetime, minutes: int, ratio: float, limit: int = 500
) -> list[EstimateDrift]:
    """Per session, the event of the last ``minutes`` with the largest provider/estimate ratio ≥ ``ratio``.

    Reads at most ``limit`` recent envelope events that carry an estimate (the JSON field is read in
    Python, the same on SQLite and PostgreSQL).
    """
    events = (
        TrimEvent.objects.filter(
            shape=TrimEvent.Shape.ENVELOPE,
            tokens_before__gt=0,
            received_at__gte=now - timedelta(minutes=minutes),
            received_at__lte=now,
        )
        .select_related("runtime")
        .order_by("-received_at", "-id")[:limit]
    )
    worst: dict[str, EstimateDrift] = {}
    for event in events:
        provider = _provider_count(event.payload)
        estimate = event.tokens_before or 0
        if provider is None or provider < ratio * estimate:
            continue
        drift = EstimateDrift(
            event.session_id,
            event.runtime.name,
            estimate,
            provider,
            provider / estimate,
            event.received_at,
            event.pk,
        )
        if event.session_id not in worst or drift.ratio > worst[event.session_id].ratio:
            worst[event.session_id] = drift
    return sorted(worst.values(), key=lambda d: (-d.ratio, d.session_id))[:20]
