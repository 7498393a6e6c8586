"""How a grouped fleet alert is shown: its title, its sentence and the session it links to.

``dashboard.selectors.fleet_alerts`` reads the alert groups as data (which rule, whose, how often, how
long ago, the rule's threshold); this module turns one into an :class:`AlertRow` for the fleet page's
strip and the fleet API. Everything here is a pure function of the values handed in: no query, no
settings, no clock (the age of an alert is read with it). What may import this module: selectors (the
fleet screen's strip), views, consumers, the API.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from dashboard.models import AlertSilence
from dashboard.presenters.fleet import fleet_session_url

KIND_LABELS: dict[str, str] = {
    "overflow_failed": "Overflow failed",
    "runtime_silent": "Silent runtime",
    "session_trims": "Busy session",
    "estimate_drift": "Estimate drift",
}


class AlertFacts(Protocol):
    """What an alert group says as data (``dashboard.selectors.fleet_alerts.Alert`` is one)."""

    @property
    def kind(self) -> str: ...
    @property
    def session_id(self) -> str: ...
    @property
    def runtime(self) -> str: ...
    @property
    def count(self) -> int: ...
    @property
    def at(self) -> datetime | None: ...
    @property
    def event_id(self) -> int | None: ...
    @property
    def age(self) -> timedelta: ...
    @property
    def rule(self) -> float: ...
    @property
    def window_minutes(self) -> int: ...
    @property
    def windows(self) -> int: ...
    @property
    def provider_tokens(self) -> int: ...
    @property
    def estimate_tokens(self) -> int: ...
    @property
    def ratio(self) -> float: ...


@dataclass(frozen=True, slots=True)
class AlertRow:
    """One alert as the strip and the API show it."""

    kind: str
    label: str
    message: str
    session_id: str
    runtime: str
    count: int
    at: datetime | None
    event_id: int | None

    @property
    def session_url(self) -> str:
        return fleet_session_url(self.session_id)


def _ago(delta: timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    if minutes < 1:
        return "under a minute"
    if minutes < 120:
        return f"{minutes} min"
    hours = minutes // 60
    if hours < 48:
        return f"{hours} h"
    return f"{hours // 24} days"


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n:,} times"


def alert_message(alert: AlertFacts) -> str:
    """The alert's sentence: what fired, whose, how often or how far, the rule, and how long ago."""
    if alert.kind == "overflow_failed":
        where = f"session {alert.session_id}" if alert.session_id else "a session without an id"
        return (
            f"Overflow recovery failed {_times(alert.count)} in {where} on {alert.runtime} "
            f"(last {_ago(alert.age)} ago)"
        )
    if alert.kind == "runtime_silent":
        return f"Runtime {alert.runtime} silent for {_ago(alert.age)} (rule: {int(alert.rule)} min)"
    if alert.kind == "session_trims":
        spans = "" if alert.windows == 1 else f" in {alert.windows} windows"
        return (
            f"Session {alert.session_id} on {alert.runtime} trimmed up to {alert.count:,} times in "
            f"{alert.window_minutes} min{spans} "
            f"(rule: more than {int(alert.rule)}; last {_ago(alert.age)} ago)"
        )
    return (
        f"Session {alert.session_id} on {alert.runtime}: the provider counted {alert.provider_tokens:,} "
        f"input tokens, {alert.ratio:.1f}× the runtime's estimate of {alert.estimate_tokens:,} "
        f"(rule: {alert.rule:g}×)"
    )


def alert_row(alert: AlertFacts) -> AlertRow:
    """The alert with its title and sentence, as the strip and the API show it."""
    return AlertRow(
        kind=alert.kind,
        label=KIND_LABELS[alert.kind],
        message=alert_message(alert),
        session_id=alert.session_id,
        runtime=alert.runtime,
        count=alert.count,
        at=alert.at,
        event_id=alert.event_id,
    )


@dataclass(frozen=True, slots=True)
class MuteRow:
    """One muted rule in the strip's "Muted" list, named as its alerts are named."""

    pk: int
    label: str
    runtime: str
    session_id: str


def mute_row(silence: AlertSilence) -> MuteRow:
    return MuteRow(
        silence.pk, KIND_LABELS.get(silence.rule, silence.rule), silence.runtime, silence.session_id
    )
