"""Operator actions on fleet alerts: acknowledge, mute, unmute, and edit the thresholds."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.db import transaction
from django.utils import timezone

from dashboard.models import AlertSilence, AlertThresholds

RULES = ("overflow_failed", "runtime_silent", "session_trims", "estimate_drift")
MUTE_SCOPES = ("rule", "runtime", "session")
THRESHOLD_MAX = 10_080  # a week of minutes; also the largest sane trim count per window


class AlertInvalid(ValueError):
    """An alert action that cannot be done as asked; ``field`` names the form field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def _user(user: AbstractBaseUser | AnonymousUser | None) -> User | None:
    return user if isinstance(user, User) else None


def _rule(rule: str) -> str:
    if rule not in RULES:
        raise AlertInvalid("rule", f"unknown alert rule {rule[:40]!r}; one of {', '.join(RULES)}")
    return rule


def alert_acknowledge(
    *, rule: str, runtime: str, session_id: str, user: AbstractBaseUser | AnonymousUser | None = None
) -> AlertSilence:
    """Hide one alert (rule + runtime + session) until it fires again after now."""
    return AlertSilence.objects.create(
        kind=AlertSilence.Kind.ACK,
        rule=_rule(rule),
        runtime=runtime[:120],
        session_id=session_id[:200],
        created_at=timezone.now(),
        created_by=_user(user),
    )


def alert_mute(
    *,
    rule: str,
    scope: str,
    runtime: str = "",
    session_id: str = "",
    user: AbstractBaseUser | AnonymousUser | None = None,
) -> AlertSilence:
    """Hide a rule's alerts until unmuted: all of them (``scope="rule"``), one runtime's or one session's."""
    if scope not in MUTE_SCOPES:
        raise AlertInvalid("scope", f"a mute is per {', '.join(MUTE_SCOPES)}, not {scope[:40]!r}")
    if scope == "runtime" and not runtime:
        raise AlertInvalid("runtime", "muting per runtime needs the runtime's name")
    if scope == "session" and not session_id:
        raise AlertInvalid("session_id", "muting per session needs the session id")
    silence, _ = AlertSilence.objects.get_or_create(
        kind=AlertSilence.Kind.MUTE,
        rule=_rule(rule),
        runtime=runtime[:120] if scope == "runtime" else "",
        session_id=session_id[:200] if scope == "session" else "",
        defaults={"created_at": timezone.now(), "created_by": _user(user)},
    )
    return silence


def alert_unmute(*, silence_id: int) -> bool:
    """Lift a mute; ``False`` when there was none with this id."""
    deleted, _ = AlertSilence.objects.filter(pk=silence_id, kind=AlertSilence.Kind.MUTE).delete()
    return deleted > 0


def alert_thresholds_update(
    *, session_trims_count: int, session_trims_minutes: int, runtime_silent_minutes: int
) -> AlertThresholds:
    """Store the thresholds the page edits (they override ``settings.TRIMSCOPE_ALERTS`` from now on)."""
    for name, value in (
        ("session_trims_count", session_trims_count),
        ("session_trims_minutes", session_trims_minutes),
        ("runtime_silent_minutes", runtime_silent_minutes),
    ):
        if not 1 <= value <= THRESHOLD_MAX:
            raise AlertInvalid(name, f"{name.replace('_', ' ')} must be between 1 and {THRESHOLD_MAX:,}")
    with transaction.atomic():
        AlertThresholds.objects.all().delete()
        return AlertThresholds.objects.create(
            session_trims_count=session_trims_count,
            session_trims_minutes=session_trims_minutes,
            runtime_silent_minutes=runtime_silent_minutes,
        )
