"""The words of a grouped fleet alert, from its data alone (``dashboard.presenters.fleet_alerts``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dashboard import presenters
from dashboard.selectors.fleet_alerts import Alert

AT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_a_failed_recovery_says_how_often_where_and_how_long_ago():
    alert = Alert("overflow_failed", "s-1", "alpha", count=3, at=AT, event_id=7, age=timedelta(minutes=5))
    row = presenters.alert_row(alert)
    assert row.label == "Overflow failed"
    assert row.message == "Overflow recovery failed 3 times in session s-1 on alpha (last 5 min ago)"
    assert (row.kind, row.session_id, row.runtime, row.count, row.at, row.event_id) == (
        "overflow_failed",
        "s-1",
        "alpha",
        3,
        AT,
        7,
    )
    assert row.session_url.endswith("/s-1/")


def test_a_failed_recovery_without_a_session_says_so_and_once():
    alert = Alert("overflow_failed", "", "alpha", count=1, at=AT, age=timedelta(seconds=59))
    row = presenters.alert_row(alert)
    assert (
        row.message
        == "Overflow recovery failed once in a session without an id on alpha (last under a minute ago)"
    )
    assert row.session_url == ""


def test_a_silent_runtime_says_for_how_long_against_its_rule():
    alert = Alert("runtime_silent", runtime="beta", count=1, at=AT, age=timedelta(minutes=180), rule=15)
    assert presenters.alert_row(alert).label == "Silent runtime"
    assert presenters.alert_message(alert) == "Runtime beta silent for 3 h (rule: 15 min)"


def test_a_busy_session_says_its_peak_window_windows_and_rule():
    alert = Alert(
        "session_trims",
        "s-2",
        "alpha",
        count=1234,
        at=AT,
        age=timedelta(hours=50),
        rule=5,
        window_minutes=10,
        windows=3,
    )
    assert presenters.alert_row(alert).label == "Busy session"
    assert presenters.alert_message(alert) == (
        "Session s-2 on alpha trimmed up to 1,234 times in 10 min in 3 windows "
        "(rule: more than 5; last 2 days ago)"
    )
    one_window = Alert(
        "session_trims", "s-2", "alpha", count=6, age=timedelta(minutes=119), rule=5, window_minutes=10
    )
    assert presenters.alert_message(one_window) == (
        "Session s-2 on alpha trimmed up to 6 times in 10 min (rule: more than 5; last 119 min ago)"
    )


def test_an_estimate_drift_says_both_counts_their_ratio_and_the_rule():
    alert = Alert(
        "estimate_drift",
        "s-3",
        "alpha",
        count=1,
        at=AT,
        rule=2.5,
        provider_tokens=3_012_427,
        estimate_tokens=38_503,
        ratio=3_012_427 / 38_503,
    )
    assert presenters.alert_row(alert).label == "Estimate drift"
    assert presenters.alert_message(alert) == (
        "Session s-3 on alpha: the provider counted 3,012,427 input tokens, 78.2× the runtime's estimate "
        "of 38,503 (rule: 2.5×)"
    )
