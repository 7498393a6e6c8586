"""Fleet alerts an operator can live with: grouped, ordered by severity, filtered, acknowledged or muted.

One alert per rule and subject — a session (busy, failed recovery) or a runtime (silent) — with how
often it fired and when last. Failed overflow recoveries come first, then silent runtimes, then busy
sessions. Busy sessions are read from the per-minute rollups (``SessionMinute``): a session is busy in
each window of ``minutes`` (aligned on whole minutes, ending with the current one) in which it was
trimmed more than ``count`` times, over the page's range but the last hour at most. Failed recoveries are read
from the events through a partial index. Alerts are data; their titles and sentences are worded by
``dashboard.presenters.fleet_alerts``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

from django.conf import settings
from django.db.models import Count, ExpressionWrapper, F, IntegerField, Max, Sum, Value
from django.utils import timezone

from dashboard.models import AlertSilence, AlertThresholds, Runtime, SessionMinute, TrimEvent
from dashboard.presenters.fleet_alerts import AlertRow, MuteRow, alert_row, mute_row
from dashboard.selectors.fleet_drift import fleet_estimate_drift
from dashboard.selectors.fleet_filters import FleetFilters, epoch_minute

AlertKind = Literal["session_trims", "overflow_failed", "runtime_silent", "estimate_drift"]

SEVERITY: dict[str, int] = {
    "overflow_failed": 0,
    "runtime_silent": 1,
    "session_trims": 2,
    "estimate_drift": 3,
}
STRIP_SHOWN = 5  # rows on the strip; the rest behind "N more"
GROUPS_MAX = 200  # groups read per rule (the strip never shows more)
# Busy sessions are a rate alert about now: looked for in the last hour at most, whatever the range
# (per-minute rows; the sessions busy over a longer range are the page's top sessions).
BUSY_LOOKBACK_MAX = 60

DEFAULT_ALERTS: dict[str, object] = {
    "session_trims": {"count": 5, "minutes": 10},
    "overflow_failed_minutes": 60,
    "runtime_silent_minutes": 15,
    "estimate_drift": {"ratio": 2},
}


@dataclass(frozen=True, slots=True)
class Alert:
    """One alert group as data; ``dashboard.presenters.fleet_alerts`` words it."""

    kind: AlertKind
    session_id: str = ""
    runtime: str = ""
    count: int = 0
    at: datetime | None = None
    event_id: int | None = None
    age: timedelta = timedelta(0)
    """How long before the read the group last fired (the runtime was last seen)."""
    rule: float = 0
    """The threshold that fired: trims (busy), minutes (silent), provider/estimate ratio (drift)."""
    window_minutes: int = 0
    """Busy sessions: the width of a window."""
    windows: int = 1
    """Busy sessions: in how many windows the session was busy."""
    provider_tokens: int = 0
    """Estimate drift: the input the provider counted."""
    estimate_tokens: int = 0
    """Estimate drift: the runtime's estimate of that input."""
    ratio: float = 0.0
    """Estimate drift: provider / estimate."""

    @property
    def severity(self) -> int:
        return SEVERITY[self.kind]


@dataclass(frozen=True, slots=True)
class AlertRules:
    session_trims_count: int
    session_trims_minutes: int
    overflow_failed_minutes: int
    runtime_silent_minutes: int
    edited: bool = False
    estimate_drift_ratio: float = 2.0
    """Provider-reported input at least this many times the runtime's estimate raises an alert."""


def _positive(value: object, default: int) -> int:
    return value if isinstance(value, int) and value > 0 else default


def alert_rules(config: Mapping[str, object] | None = None) -> AlertRules:
    """The rules: ``config`` when given, else the thresholds edited on the page, else the settings."""
    raw: Mapping[str, object] = (
        config if config is not None else getattr(settings, "TRIMSCOPE_ALERTS", DEFAULT_ALERTS)
    )
    session = raw.get("session_trims")
    session_map: Mapping[str, object] = session if isinstance(session, Mapping) else {}
    drift = raw.get("estimate_drift")
    drift_ratio = drift.get("ratio") if isinstance(drift, Mapping) else None
    rules = AlertRules(
        session_trims_count=_positive(session_map.get("count"), 5),
        session_trims_minutes=_positive(session_map.get("minutes"), 10),
        overflow_failed_minutes=_positive(raw.get("overflow_failed_minutes"), 60),
        runtime_silent_minutes=_positive(raw.get("runtime_silent_minutes"), 15),
        estimate_drift_ratio=(
            float(drift_ratio)
            if isinstance(drift_ratio, int | float) and not isinstance(drift_ratio, bool) and drift_ratio > 1
            else 2.0
        ),
    )
    if config is not None:
        return rules
    edited = AlertThresholds.objects.order_by("-pk").first()
    if edited is None:
        return rules
    return AlertRules(
        session_trims_count=edited.session_trims_count,
        session_trims_minutes=edited.session_trims_minutes,
        overflow_failed_minutes=rules.overflow_failed_minutes,
        runtime_silent_minutes=edited.runtime_silent_minutes,
        edited=True,
        estimate_drift_ratio=rules.estimate_drift_ratio,
    )


def _failed(now: datetime, minutes: int, filters: FleetFilters) -> list[Alert]:
    rows = TrimEvent.objects.filter(
        overflow_recovery="failed", received_at__gt=now - timedelta(minutes=minutes), received_at__lte=now
    )
    rows = filters.narrow(rows)
    grouped = (
        rows.order_by()
        .values("runtime__name", "session_id")
        .annotate(n=Count("id"), last=Max("received_at"), last_id=Max("id"))
        .order_by("-last")[:GROUPS_MAX]
    )
    return [
        Alert(
            kind="overflow_failed",
            session_id=row["session_id"],
            runtime=row["runtime__name"],
            count=row["n"],
            at=row["last"],
            event_id=row["last_id"],
            age=now - row["last"],
        )
        for row in grouped
    ]


def _silent(now: datetime, rules: AlertRules, filters: FleetFilters) -> list[Alert]:
    if filters.session or filters.reason:
        return []  # a silent runtime has no session or reason: a narrowed page leaves it out
    silent = Runtime.objects.filter(
        revoked_at__isnull=True,
        last_seen_at__isnull=False,
        last_seen_at__lte=now - timedelta(minutes=rules.runtime_silent_minutes),
    )
    if filters.runtime:
        silent = silent.filter(name=filters.runtime)
    alerts = []
    for runtime in silent.order_by("last_seen_at", "name")[:GROUPS_MAX]:
        assert runtime.last_seen_at is not None  # filtered above
        alerts.append(
            Alert(
                kind="runtime_silent",
                runtime=runtime.name,
                count=1,
                at=runtime.last_seen_at,
                age=now - runtime.last_seen_at,
                rule=rules.runtime_silent_minutes,
            )
        )
    return alerts


def _busy(now: datetime, minutes: int, rules: AlertRules, filters: FleetFilters) -> list[Alert]:
    last_minute = epoch_minute(now)
    width = rules.session_trims_minutes
    rows = SessionMinute.objects.filter(minute__gt=last_minute - minutes, minute__lte=last_minute).exclude(
        session_id=""
    )
    rows = filters.narrow(rows)
    window = ExpressionWrapper((Value(last_minute) - F("minute")) / width, output_field=IntegerField())
    busy_windows = (
        rows.order_by()
        .annotate(window=window)
        .values("session_id", "runtime__name", "window")
        .annotate(n=Sum("trims"), last=Max("last_at"))
        .filter(n__gt=rules.session_trims_count)
        .order_by("-last")[: GROUPS_MAX * 10]
    )
    groups: dict[tuple[str, str], list[tuple[int, datetime]]] = {}
    for row in busy_windows:
        groups.setdefault((row["session_id"], row["runtime__name"]), []).append((row["n"], row["last"]))
    alerts = []
    for (session_id, runtime), windows in groups.items():
        peak = max(n for n, _ in windows)
        last = max(at for _, at in windows)
        alerts.append(
            Alert(
                kind="session_trims",
                session_id=session_id,
                runtime=runtime,
                count=peak,
                at=last,
                age=now - last,
                rule=rules.session_trims_count,
                window_minutes=width,
                windows=len(windows),
            )
        )
    return alerts


def _drift(now: datetime, minutes: int, rules: AlertRules, filters: FleetFilters) -> list[Alert]:
    alerts = []
    for d in fleet_estimate_drift(now=now, minutes=minutes, ratio=rules.estimate_drift_ratio):
        if (filters.runtime and d.runtime != filters.runtime) or (
            filters.session and d.session_id != filters.session
        ):
            continue
        alerts.append(
            Alert(
                kind="estimate_drift",
                session_id=d.session_id,
                runtime=d.runtime,
                count=1,
                at=d.at,
                event_id=d.event_id,
                age=now - d.at,
                rule=rules.estimate_drift_ratio,
                provider_tokens=d.provider,
                estimate_tokens=d.estimate,
                ratio=d.ratio,
            )
        )
    return alerts


def _silenced(alert: Alert, silences: Sequence[AlertSilence]) -> bool:
    for s in silences:
        if s.rule != alert.kind:
            continue
        if s.kind == AlertSilence.Kind.MUTE:
            if (not s.runtime or s.runtime == alert.runtime) and (
                not s.session_id or s.session_id == alert.session_id
            ):
                return True
        elif (
            s.runtime == alert.runtime
            and s.session_id == alert.session_id
            and (alert.at is None or alert.at <= s.created_at)
        ):
            return True
    return False


def fleet_alerts(
    *,
    now: datetime | None = None,
    rules: AlertRules | None = None,
    filters: FleetFilters | None = None,
    minutes: int | None = None,
    silenced: bool = False,
) -> list[Alert]:
    """Every alert group over the last ``minutes`` (the failed-recovery rule's window by default),
    most severe first and the latest first within a rule; acknowledged and muted ones left out unless
    ``silenced``."""
    now = now or timezone.now()
    rules = rules or alert_rules()
    filters = filters or FleetFilters()
    lookback = minutes if minutes is not None else rules.overflow_failed_minutes
    alerts = (
        _failed(now, lookback, filters)
        + _silent(now, rules, filters)
        + _busy(now, min(lookback, BUSY_LOOKBACK_MAX), rules, filters)
        + _drift(now, lookback, rules, filters)
    )
    if not silenced:
        silences = list(AlertSilence.objects.all())
        alerts = [a for a in alerts if not _silenced(a, silences)]
    return sorted(alerts, key=lambda a: (a.severity, -(a.at.timestamp() if a.at else 0.0)))


@dataclass(frozen=True, slots=True)
class AlertStrip:
    shown: list[AlertRow]
    more: list[AlertRow]
    rules: AlertRules
    mutes: list[MuteRow] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.shown) + len(self.more)


def fleet_alert_strip(*, filters: FleetFilters, now: datetime | None = None) -> AlertStrip:
    """The fleet page's strip: the alerts of the page's filters and time range, capped."""
    rules = alert_rules()
    alerts = fleet_alerts(now=now, rules=rules, filters=filters, minutes=filters.time_range.minutes)
    mutes = [mute_row(m) for m in AlertSilence.objects.filter(kind=AlertSilence.Kind.MUTE)]
    rows = [alert_row(a) for a in alerts]
    return AlertStrip(rows[:STRIP_SHOWN], rows[STRIP_SHOWN:], rules, mutes)
