"""Fleet at scale: rollups kept at ingestion equal the raw counts, retention, grouped alerts with
acknowledge/mute/thresholds, the page's filters and time range, and ``/metrics``."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from functools import partial

import httpx
import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from dashboard import presenters, selectors, services
from dashboard.fleet_schemas import parse_frame
from dashboard.models import (
    AlertSilence,
    Runtime,
    RuntimeHour,
    RuntimeMinute,
    SessionHour,
    SessionMinute,
    TrimEvent,
)
from dashboard.selectors import FleetFilters, alert_rules

pytestmark = pytest.mark.django_db

RULES = alert_rules({"session_trims": {"count": 5, "minutes": 10}, "runtime_silent_minutes": 15})


def _frame(seq, session="s-1", reason="token budget", failed=False, dropped=4):
    data = {
        "session_id": session,
        "seq": seq,
        "sent_at": "2026-11-29T10:00:00Z",
        "event": {
            "type": "history_trimmed",
            "reason": reason,
            "dropped_messages": dropped,
            "kept_turns": 3,
            **({"overflow_recovery": "failed"} if failed else {}),
        },
    }
    return parse_frame(data), data


def _event(runtime, session="s-1", reason="token budget", ago=timedelta(0), **fields):
    now = timezone.now()
    event = TrimEvent.objects.create(
        runtime=runtime,
        shape=TrimEvent.Shape.ENVELOPE,
        session_id=session,
        reason=reason,
        dropped_messages=fields.pop("dropped_messages", 4),
        kept_turns=3,
        occurred_at=now,
        payload={},
        **fields,
    )
    TrimEvent.objects.filter(pk=event.pk).update(received_at=now - ago)
    return event


def _minute(at):
    return int(at.timestamp()) // 60


def _raw_counts():
    runtime_hour = Counter()
    per_runtime = Counter()
    per_session = Counter()
    per_hour = Counter()
    dropped = Counter()
    for e in TrimEvent.objects.all():
        m = _minute(e.received_at)
        per_runtime[(m, e.runtime_id)] += 1
        runtime_hour[(m - m % 60, e.runtime_id)] += 1
        dropped[(m, e.runtime_id)] += e.dropped_messages
        per_session[(m, e.runtime_id, e.session_id, e.reason)] += 1
        per_hour[(m - m % 60, e.runtime_id, e.session_id, e.reason)] += 1
    return per_runtime, runtime_hour, dropped, per_session, per_hour


def _rollup_counts():
    per_runtime = Counter({(r.minute, r.runtime_id): r.trims for r in RuntimeMinute.objects.all()})
    dropped = Counter({(r.minute, r.runtime_id): r.dropped_messages for r in RuntimeMinute.objects.all()})
    per_session = Counter(
        {(r.minute, r.runtime_id, r.session_id, r.reason): r.trims for r in SessionMinute.objects.all()}
    )
    per_hour = Counter(
        {(r.minute, r.runtime_id, r.session_id, r.reason): r.trims for r in SessionHour.objects.all()}
    )
    runtime_hour = Counter({(r.minute, r.runtime_id): r.trims for r in RuntimeHour.objects.all()})
    return per_runtime, runtime_hour, dropped, per_session, per_hour


@pytest.fixture
def alpha():
    return services.runtime_create(name="alpha")[0]


@pytest.fixture
def beta():
    return services.runtime_create(name="beta")[0]


# Rollups


def test_rollups_kept_at_ingestion_equal_the_raw_counts_and_a_rebuild(alpha, beta):
    services.trim_events_ingest(
        runtime=alpha,
        frames=[_frame(i, session=f"s-{i % 3}", reason=("a", "b")[i % 2], dropped=i) for i in range(40)],
    )
    services.trim_events_ingest(
        runtime=beta, frames=[_frame(i, session="s-b", failed=i == 2) for i in range(7)]
    )
    # A resend among new frames: stored once, counted once.
    services.trim_events_ingest(runtime=beta, frames=[_frame(6, session="s-b"), _frame(7, session="s-b")])
    one = _frame(0, session="s-single")
    services.trim_event_ingest(runtime=alpha, frame=one[0], payload=one[1])

    assert TrimEvent.objects.count() == 49
    incremental = _rollup_counts()
    assert incremental == _raw_counts()
    assert sum(incremental[0].values()) == sum(incremental[1].values()) == 49
    assert sum(RuntimeMinute.objects.filter(runtime=beta).values_list("failed", flat=True)) == 1

    services.trim_rollups_rebuild()
    assert _rollup_counts() == incremental


def test_rollup_rebuild_since_a_day_leaves_older_rollups_alone(alpha):
    _event(alpha, ago=timedelta(days=3))
    _event(alpha, ago=timedelta(hours=1))
    services.trim_rollups_rebuild()
    TrimEvent.objects.filter(received_at__lt=timezone.now() - timedelta(days=2)).delete()
    call_command("fleet_rollups", "--since-days", "1")
    assert RuntimeMinute.objects.count() == 2  # the 3-day-old minute survives its event


def test_session_ids_and_reasons_at_their_longest_share_no_rollup_key(alpha):
    long_session, long_reason = "s" * 200, "é" * 500
    services.trim_events_ingest(
        runtime=alpha,
        frames=[_frame(1, session=long_session, reason=long_reason), _frame(2, session=long_session)],
    )
    assert SessionMinute.objects.count() == 2
    assert services.fleet_rollups.session_key("ab", "c") != services.fleet_rollups.session_key("a", "bc")


# Retention


def test_prune_deletes_only_events_older_than_the_retention(alpha, settings):
    settings.TRIMSCOPE_EVENT_RETENTION_DAYS = 30
    old = _event(alpha, ago=timedelta(days=30, minutes=1))
    kept = _event(alpha, ago=timedelta(days=29, hours=23))
    fresh = _event(alpha)
    services.trim_rollups_rebuild()
    pruned = services.fleet_prune()
    assert pruned.events == 1
    assert set(TrimEvent.objects.values_list("pk", flat=True)) == {kept.pk, fresh.pk}
    assert not TrimEvent.objects.filter(pk=old.pk).exists()
    # The rollups outlive the events: the pruned event's minute is still counted.
    assert RuntimeMinute.objects.count() == 3


def test_prune_deletes_rollups_past_their_own_retention(alpha):
    _event(alpha, ago=timedelta(days=10))
    _event(alpha, ago=timedelta(days=2))
    services.trim_rollups_rebuild()
    pruned = services.fleet_prune(event_days=30, rollup_days=5)
    assert pruned.events == 0 and RuntimeMinute.objects.count() == 1 and SessionMinute.objects.count() == 1


def test_prune_command_reports_and_refuses_a_bad_retention(alpha, capsys):
    _event(alpha, ago=timedelta(days=40))
    call_command("fleet_prune")
    assert "pruned 1 events" in capsys.readouterr().out
    with pytest.raises(Exception, match="--days must be at least 1"):
        call_command("fleet_prune", "--days", "0")


def test_the_prune_task_is_scheduled_once_prunes_and_comes_back_an_hour_later(
    alpha, settings, capsys, django_capture_on_commit_callbacks
):
    from django_tasks_db.models import DBTaskResult

    from dashboard.tasks import fleet_prune_task

    call_command("fleet_prune", "--schedule")
    call_command("fleet_prune", "--schedule")
    assert capsys.readouterr().out.splitlines() == ["prune task enqueued", "a prune task is already waiting"]
    assert DBTaskResult.objects.filter(task_path=fleet_prune_task.module_path).count() == 1

    DBTaskResult.objects.all().delete()  # as if the worker had taken it
    _event(alpha, ago=timedelta(days=31))
    kept = _event(alpha)
    with django_capture_on_commit_callbacks(execute=True):
        assert fleet_prune_task.call() == 1
    assert list(TrimEvent.objects.values_list("pk", flat=True)) == [kept.pk]
    following = DBTaskResult.objects.get(task_path=fleet_prune_task.module_path)
    later = following.run_after - timezone.now()
    assert timedelta(minutes=59) < later <= timedelta(hours=1)


# Alerts: grouping, order, cap, filters, range


def _alerts(**kwargs):
    return selectors.fleet_alerts(rules=RULES, **kwargs)


def test_failed_recoveries_of_one_session_are_one_alert_with_a_count_and_the_last_time(alpha):
    for minutes in (30, 20, 5):
        last = _event(alpha, "s-bad", overflow_recovery="failed", ago=timedelta(minutes=minutes))
    alerts = _alerts()
    assert [(a.kind, a.session_id, a.runtime, a.count) for a in alerts] == [
        ("overflow_failed", "s-bad", "alpha", 3)
    ]
    last.refresh_from_db()
    assert alerts[0].at == last.received_at and "failed 3 times" in presenters.alert_message(alerts[0])


def test_alerts_are_ordered_failed_then_silent_then_busy(alpha, beta):
    Runtime.objects.filter(pk=beta.pk).update(last_seen_at=timezone.now() - timedelta(hours=1))
    for _ in range(6):
        _event(alpha, "s-busy")
    _event(alpha, "s-bad", overflow_recovery="failed", ago=timedelta(minutes=30))
    services.trim_rollups_rebuild()
    assert [a.kind for a in _alerts()] == ["overflow_failed", "runtime_silent", "session_trims"]


def test_runtime_filter_narrows_every_rule(alpha, beta):
    Runtime.objects.filter(pk=beta.pk).update(last_seen_at=timezone.now() - timedelta(hours=1))
    _event(alpha, "s-a", overflow_recovery="failed")
    _event(beta, "s-b", overflow_recovery="failed")
    for _ in range(6):
        _event(beta, "s-busy-b")
    services.trim_rollups_rebuild()
    kinds = [(a.kind, a.runtime) for a in _alerts(filters=FleetFilters(runtime="alpha"))]
    assert kinds == [("overflow_failed", "alpha")]
    kinds = [(a.kind, a.runtime) for a in _alerts(filters=FleetFilters(runtime="beta"))]
    assert kinds == [("overflow_failed", "beta"), ("runtime_silent", "beta"), ("session_trims", "beta")]
    # A session or reason filter leaves runtime-wide alerts out.
    assert [a.session_id for a in _alerts(filters=FleetFilters(session="s-b"))] == ["s-b"]


def test_time_range_decides_which_failures_are_shown(alpha):
    _event(alpha, "s-recent", overflow_recovery="failed", ago=timedelta(minutes=10))
    _event(alpha, "s-earlier", overflow_recovery="failed", ago=timedelta(hours=3))
    _event(alpha, "s-last-week", overflow_recovery="failed", ago=timedelta(days=3))

    def shown(key):
        return {a.session_id for a in selectors.fleet_alert_strip(filters=FleetFilters(range=key)).shown}

    assert shown("15m") == {"s-recent"}
    assert shown("1h") == {"s-recent"}
    assert shown("24h") == {"s-recent", "s-earlier"}
    assert shown("7d") == {"s-recent", "s-earlier", "s-last-week"}


def test_busy_sessions_are_looked_for_in_the_last_hour_whatever_the_range(alpha):
    for _ in range(6):
        _event(alpha, "s-busy-now", ago=timedelta(minutes=2))
        _event(alpha, "s-busy-earlier", ago=timedelta(hours=3))
    services.trim_rollups_rebuild()
    for key in ("1h", "24h", "7d"):
        strip = selectors.fleet_alert_strip(filters=FleetFilters(range=key))
        assert [a.session_id for a in strip.shown] == ["s-busy-now"], key


def test_strip_shows_five_and_says_how_many_more(operator_client, alpha):
    for i in range(8):
        _event(alpha, f"s-{i}", overflow_recovery="failed", ago=timedelta(minutes=i + 1))
    strip = selectors.fleet_alert_strip(filters=FleetFilters())
    assert len(strip.shown) == 5 and len(strip.more) == 3
    assert [a.session_id for a in strip.shown] == ["s-0", "s-1", "s-2", "s-3", "s-4"]  # latest first
    body = operator_client.get(reverse("fleet")).content.decode()
    assert "<summary>3 more</summary>" in body


# Acknowledge, mute, thresholds


def test_acknowledged_alert_stays_hidden_until_it_fires_again(operator_client, alpha):
    _event(alpha, "s-bad", overflow_recovery="failed", ago=timedelta(minutes=5))
    response = operator_client.post(
        reverse("fleet-alert-ack"),
        {"rule": "overflow_failed", "alert_runtime": "alpha", "alert_session": "s-bad", "range": "24h"},
    )
    assert response.status_code == 302 and response["Location"] == reverse("fleet") + "?range=24h"
    assert _alerts() == []
    _event(alpha, "s-bad", overflow_recovery="failed")
    assert [(a.session_id, a.count) for a in _alerts()] == [("s-bad", 2)]


@pytest.mark.parametrize(
    ("scope", "hidden"),
    [("rule", {"s-1", "s-2", "s-3"}), ("runtime", {"s-1", "s-2"}), ("session", {"s-1"})],
)
def test_mute_per_rule_runtime_or_session_hides_what_it_names(operator_client, alpha, beta, scope, hidden):
    _event(alpha, "s-1", overflow_recovery="failed")
    _event(alpha, "s-2", overflow_recovery="failed")
    _event(beta, "s-3", overflow_recovery="failed")
    operator_client.post(
        reverse("fleet-alert-mute"),
        {"rule": "overflow_failed", "scope": scope, "alert_runtime": "alpha", "alert_session": "s-1"},
    )
    assert {a.session_id for a in _alerts()} == {"s-1", "s-2", "s-3"} - hidden
    mute = AlertSilence.objects.get(kind="mute")
    assert operator_client.post(reverse("fleet-alert-unmute", args=[mute.pk])).status_code == 302
    assert {a.session_id for a in _alerts()} == {"s-1", "s-2", "s-3"}


def test_mutes_are_listed_on_the_page_with_an_unmute_button(operator_client, alpha):
    services.alert_mute(rule="session_trims", scope="runtime", runtime="alpha")
    body = operator_client.get(reverse("fleet")).content.decode()
    mute = AlertSilence.objects.get()
    assert "runtime alpha" in body and reverse("fleet-alert-unmute", args=[mute.pk]) in body
    assert '<span class="alert-kind">Busy session</span>' in body


def test_a_muted_drift_rule_is_named_as_its_alerts_are(operator_client):
    services.alert_mute(rule="estimate_drift", scope="rule")
    body = operator_client.get(reverse("fleet")).content.decode()
    assert '<span class="alert-kind">Estimate drift</span>' in body


def test_bad_alert_actions_are_refused_with_the_field_named(operator_client):
    response = operator_client.post(reverse("fleet-alert-mute"), {"rule": "nope", "scope": "rule"})
    assert response.status_code == 400 and response.content.decode().startswith("rule: unknown alert rule")
    response = operator_client.post(
        reverse("fleet-alert-mute"), {"rule": "overflow_failed", "scope": "session"}
    )
    assert response.status_code == 400 and "session_id" in response.content.decode()
    assert operator_client.post(reverse("fleet-alert-unmute", args=[999])).status_code == 404
    assert AlertSilence.objects.count() == 0


def test_thresholds_edited_on_the_page_are_kept_and_used(operator_client, alpha):
    for _ in range(3):
        _event(alpha, "s-x")
    services.trim_rollups_rebuild()
    assert selectors.fleet_alerts() == []
    response = operator_client.post(
        reverse("fleet-alert-thresholds"),
        {"session_trims_count": "2", "session_trims_minutes": "5", "runtime_silent_minutes": "30"},
    )
    assert response.status_code == 302
    rules = alert_rules()
    assert (rules.session_trims_count, rules.session_trims_minutes, rules.runtime_silent_minutes) == (
        2,
        5,
        30,
    )
    assert [a.session_id for a in selectors.fleet_alerts()] == ["s-x"]
    assert 'name="session_trims_count" min="1" max="10080" required value="2"' in (
        operator_client.get(reverse("fleet")).content.decode()
    )


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("session_trims_count", "0", "between 1 and"),
        ("session_trims_minutes", "ten", "whole number"),
        ("runtime_silent_minutes", "99999", "between 1 and"),
    ],
)
def test_thresholds_out_of_range_are_refused_and_nothing_is_stored(operator_client, field, value, message):
    data = {"session_trims_count": "5", "session_trims_minutes": "10", "runtime_silent_minutes": "15"}
    response = operator_client.post(reverse("fleet-alert-thresholds"), {**data, field: value})
    body = response.content.decode()
    assert response.status_code == 400 and body.startswith(f"{field}:") and message in body
    assert alert_rules().edited is False


# The time range on the page


def test_time_range_is_in_the_url_and_sets_sparklines_and_top_sessions(operator_client, alpha):
    _event(alpha, "s-now")
    _event(alpha, "s-hours-ago", ago=timedelta(hours=5))
    services.trim_rollups_rebuild()
    body = operator_client.get(reverse("fleet")).content.decode()
    top = body[body.index('id="fleet-sessions"') :]
    top = top[: top.index("</section>")]
    assert "s-now" in top and "s-hours-ago" not in top
    assert 'href="/fleet/?range=24h"' in body and 'aria-current="true">1 h</a>' in body

    body = operator_client.get(reverse("fleet"), {"range": "24h", "runtime": "alpha"}).content.decode()
    top = body[body.index('id="fleet-sessions"') :]
    top = top[: top.index("</section>")]
    assert "s-now" in top and "s-hours-ago" in top and "(last 24 h, filtered)" in top
    assert 'aria-current="true">24 h</a>' in body and "2 trims in the last 24 h" in body
    # The status poll and the other ranges keep the filters.
    assert 'href="/fleet/?runtime=alpha&amp;range=7d"' in body
    assert 'hx-get="/fleet/?runtime=alpha&amp;range=24h"' in body


def test_an_unknown_range_falls_back_to_one_hour(operator_client):
    assert selectors.fleet_filters({"range": "1y"}).range == "1h"
    assert operator_client.get(reverse("fleet"), {"range": "<x>"}).status_code == 200


# /metrics


def _metrics_setup(alpha, beta):
    services.trim_events_ingest(runtime=alpha, frames=[_frame(i, dropped=3, failed=i == 0) for i in range(5)])
    services.trim_events_ingest(runtime=beta, frames=[_frame(1, session="s-b", dropped=10)])
    Runtime.objects.filter(pk=alpha.pk).update(connected=2, last_seen_at=timezone.now())


def test_metrics_report_counts_per_runtime_and_connections(alpha, beta):
    from prometheus_client import CollectorRegistry, generate_latest

    _metrics_setup(alpha, beta)
    services.runtime_create(name="gamma")
    registry = CollectorRegistry(auto_describe=False)
    registry.register(selectors.FleetCollector())
    text = generate_latest(registry).decode()
    assert 'trimscope_events_ingested_total{runtime="alpha"} 5.0' in text
    assert 'trimscope_events_ingested_total{runtime="beta"} 1.0' in text
    assert 'trimscope_events_ingested_total{runtime="gamma"} 0.0' in text
    assert 'trimscope_trimmed_messages_total{runtime="alpha"} 15.0' in text
    assert 'trimscope_overflow_failures_total{runtime="alpha"} 1.0' in text
    assert 'trimscope_overflow_failures_total{runtime="beta"} 0.0' in text
    assert 'trimscope_runtime_sockets{runtime="alpha"} 2.0' in text
    assert "trimscope_runtimes_connected 1.0" in text
    assert 'trimscope_ingestion_lag_seconds{runtime="alpha"}' in text


@pytest.fixture
def metrics_daphne(django_db_setup, django_db_blocker):
    """A daphne process of its own, forked with a metrics token set (settings do not cross a fork later)."""
    from channels.testing.live import make_application
    from daphne.testing import DaphneProcess
    from django.conf import settings
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
    from django.db import connections

    from tests.conftest import _child_setup, reset_after_fork

    before = settings.TRIMSCOPE_METRICS_TOKEN
    settings.TRIMSCOPE_METRICS_TOKEN = "metrics-test-token"
    reset_after_fork()
    proc = DaphneProcess(
        "127.0.0.1", partial(make_application, static_wrapper=ASGIStaticFilesHandler), setup=_child_setup
    )
    with django_db_blocker.unblock():
        connections.close_all()
        proc.start()
    try:
        assert proc.ready.wait(timeout=30)
        yield f"http://127.0.0.1:{proc.port.value}"
    finally:
        proc.terminate()
        proc.join(timeout=10)
        settings.TRIMSCOPE_METRICS_TOKEN = before


@pytest.mark.django_db(transaction=True)
def test_metrics_over_http_need_the_bearer_token(metrics_daphne):
    alpha = services.runtime_create(name="alpha")[0]
    services.trim_events_ingest(runtime=alpha, frames=[_frame(i) for i in range(3)])
    url = metrics_daphne + "/metrics"
    with httpx.Client(timeout=10, follow_redirects=False) as http:
        missing = http.get(url)
        wrong = http.get(url, headers={"Authorization": "Bearer nope"})
        right = http.get(url, headers={"Authorization": "Bearer metrics-test-token"})
    assert missing.status_code == 401 and missing.headers["www-authenticate"].startswith("Bearer")
    assert wrong.status_code == 401 and "trimscope" not in wrong.text
    assert right.status_code == 200 and right.headers["content-type"].startswith("text/plain")
    assert 'trimscope_events_ingested_total{runtime="alpha"} 3.0' in right.text


def test_metrics_are_off_without_a_token(client, settings):
    settings.TRIMSCOPE_METRICS_TOKEN = ""
    assert client.get("/metrics", headers={"Authorization": "Bearer "}).status_code == 404


def test_minute_keys_are_utc_epoch_minutes():
    at = datetime(2026, 11, 30, 12, 34, 56, tzinfo=UTC)
    minute = services.fleet_rollups.epoch_minute(at)
    assert datetime.fromtimestamp(minute * 60, tz=UTC) == at.replace(second=0)
