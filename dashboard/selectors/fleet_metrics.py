"""Fleet metrics for Prometheus, computed from the database on each scrape.

Why from the database and not counters in the process: ``make run`` may serve with several daphne
workers, each of which sees only the events of its own sockets. prometheus-client's multiprocess mode
would need a shared directory of memory-mapped files and cleanup of dead workers; the database already
holds the totals (the ``RuntimeHour`` rollups) and the live state (``Runtime``), so any worker answers
a scrape with the same, complete numbers. Counters reset only when rollups past
``TRIMSCOPE_ROLLUP_RETENTION_DAYS`` are pruned, which Prometheus' ``rate()`` treats as a counter reset.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

from django.db.models import DurationField, ExpressionWrapper, F, Max, Sum
from django.utils import timezone
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from dashboard.models import Runtime, RuntimeHour, TrimEvent

ONLINE_SECONDS = 60
LAG_SECONDS = 60  # ingestion lag is measured over the events received this recently


class FleetCollector:
    """A prometheus-client collector over the fleet tables (register it in a registry per request)."""

    def __init__(self, now: datetime | None = None) -> None:
        self._now = now

    def collect(self) -> Iterator[Metric]:
        now = self._now or timezone.now()
        runtimes = list(Runtime.objects.order_by("name"))
        names = {r.pk: r.name for r in runtimes}
        totals = (
            RuntimeHour.objects.order_by()
            .values("runtime_id")
            .annotate(trims=Sum("trims"), dropped=Sum("dropped_messages"), failed=Sum("failed"))
        )
        events = CounterMetricFamily(
            "trimscope_events_ingested", "Trim events stored, per runtime", labels=["runtime"]
        )
        dropped = CounterMetricFamily(
            "trimscope_trimmed_messages", "Messages dropped by the runtime's trims", labels=["runtime"]
        )
        failed = CounterMetricFamily(
            "trimscope_overflow_failures", "Trims whose overflow recovery failed", labels=["runtime"]
        )
        seen: set[int] = set()
        for row in totals:
            name = names.get(row["runtime_id"])
            if name is None:
                continue
            seen.add(row["runtime_id"])
            events.add_metric([name], row["trims"] or 0)
            dropped.add_metric([name], row["dropped"] or 0)
            failed.add_metric([name], row["failed"] or 0)
        for runtime in runtimes:  # a runtime with no event yet still has its series, at 0
            if runtime.pk not in seen:
                for family in (events, dropped, failed):
                    family.add_metric([runtime.name], 0)
        yield from (events, dropped, failed)

        lag = GaugeMetricFamily(
            "trimscope_ingestion_lag_seconds",
            f"Longest delay from an event's own time to its storage, over the last {LAG_SECONDS} s",
            labels=["runtime"],
        )
        delay = ExpressionWrapper(F("received_at") - F("occurred_at"), output_field=DurationField())
        lags = (
            TrimEvent.objects.filter(received_at__gt=now - timedelta(seconds=LAG_SECONDS))
            .order_by()
            .values("runtime_id")
            .annotate(lag=Max(delay))
        )
        for runtime_id, longest in lags.values_list("runtime_id", "lag"):
            name = names.get(runtime_id)
            if name is not None and longest is not None:
                lag.add_metric([name], max(0.0, longest.total_seconds()))
        yield lag

        sockets = GaugeMetricFamily(
            "trimscope_runtime_sockets", "Open ingestion WebSockets per runtime", labels=["runtime"]
        )
        online = 0
        for runtime in runtimes:
            sockets.add_metric([runtime.name], runtime.connected)
            recent = runtime.last_seen_at is not None and now - runtime.last_seen_at <= timedelta(
                seconds=ONLINE_SECONDS
            )
            # Seen recently, not "a socket is counted": an open socket beats every 20 s, and a counter
            # left behind by a killed server would keep a runtime online forever.
            if runtime.revoked_at is None and recent:
                online += 1
        yield sockets
        yield GaugeMetricFamily(
            "trimscope_runtimes_connected",
            f"Runtimes seen in the last {ONLINE_SECONDS} s (an open socket beats every 20 s)",
            value=online,
        )
        yield GaugeMetricFamily(
            "trimscope_runtimes_registered",
            "Runtimes whose token is not revoked",
            value=sum(1 for r in runtimes if r.revoked_at is None),
        )
