"""Fleet page, session page, alert rules and the fleet API: filters, links to the simulation, escaping."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from dashboard import forms, presenters, selectors, services
from dashboard.models import Profile, Runtime, Transcript, TrimEvent
from dashboard.selectors import alert_rules
from tests.support import tool_heavy_chat

pytestmark = pytest.mark.django_db

RULES = alert_rules({"session_trims": {"count": 5, "minutes": 10}, "runtime_silent_minutes": 15})


def _event(
    runtime: Runtime, session: str = "s-1", reason: str = "token budget", ago=None, **fields
) -> TrimEvent:
    now = timezone.now()
    event = TrimEvent.objects.create(
        runtime=runtime,
        shape=TrimEvent.Shape.ENVELOPE,
        session_id=session,
        reason=reason,
        dropped_messages=fields.pop("dropped_messages", 4),
        kept_turns=fields.pop("kept_turns", 3),
        occurred_at=fields.pop("occurred_at", now),
        payload={},
        **fields,
    )
    if ago is not None:
        TrimEvent.objects.filter(pk=event.pk).update(received_at=now - ago)
        event.refresh_from_db()
    services.trim_rollups_rebuild()  # rows made here, not ingested: the pages read the rollups
    return event


@pytest.fixture
def runtimes():
    alpha, _ = services.runtime_create(name="alpha")
    beta, _ = services.runtime_create(name="beta", kind="openclaw")
    return alpha, beta


# The fleet page


def test_fleet_is_in_the_navigation(operator_client):
    body = operator_client.get(reverse("transcript-list")).content.decode()
    assert f'href="{reverse("fleet")}"' in body and ">Fleet</a>" in body


def test_fleet_page_without_runtimes_says_what_to_do(operator_client):
    body = operator_client.get(reverse("fleet")).content.decode()
    assert "No runtime is registered yet" in body
    assert 'ws-connect="/ws/fleet/"' in body


def test_fleet_needs_a_signed_in_user(client):
    response = client.get(reverse("fleet"))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_fleet_page_shows_runtimes_feed_and_top_sessions(operator_client, runtimes):
    alpha, beta = runtimes
    Runtime.objects.filter(pk=alpha.pk).update(connected=1, last_seen_at=timezone.now())
    Runtime.objects.filter(pk=beta.pk).update(last_seen_at=timezone.now() - timedelta(minutes=5))
    for _ in range(3):
        _event(alpha, "busy-session")
    _event(beta, "quiet-session", reason="max_history_messages", tokens_before=61420, tokens_after=38950)
    _event(alpha, "old-session", ago=timedelta(hours=2))
    body = operator_client.get(reverse("fleet")).content.decode()
    # Status has a label as well as the coloured dot.
    assert 'aria-hidden="true">●</span> online' in body and 'aria-hidden="true">○</span> offline' in body
    # Numbers have separators, tokens say which counter.
    assert "61,420 → 38,950 tok (runtime)" in body
    # Top sessions: last hour only, the busiest first.
    top = body[body.index('id="fleet-sessions"') :]
    assert top.index("busy-session") < top.index("quiet-session")
    assert "old-session" not in top[: top.index("</section>")]
    # The sparkline (1 h range: 2-minute bars): the latest bar, with unlocalised SVG numbers.
    assert "3 trims latest" in body
    assert 'viewBox="0 0 120 24"' in body


def test_sparkline_numbers_are_not_localised(operator_client, runtimes):
    alpha, _ = runtimes
    events = [
        TrimEvent(
            runtime=alpha,
            shape="ws",
            session_id="s",
            reason="r",
            dropped_messages=1,
            kept_turns=1,
            occurred_at=timezone.now(),
            payload={},
        )
        for _ in range(1200)
    ]
    TrimEvent.objects.bulk_create(events)
    services.trim_rollups_rebuild()
    body = operator_client.get(reverse("fleet")).content.decode()
    svg = body[body.index('<svg class="spark"') : body.index("</svg>", body.index('<svg class="spark"'))]
    assert "1200 trims in the last 1 h" in svg and "1,200" not in svg
    assert "1,200" in body  # outside the SVG the count keeps its separator


def test_fleet_filters_narrow_the_feed_and_the_socket(operator_client, runtimes):
    alpha, beta = runtimes
    _event(alpha, "s-alpha", reason="token budget")
    _event(beta, "s-beta", reason="max_history_messages")
    url = reverse("fleet")

    feed = _feed(operator_client.get(url, {"runtime": "beta"}).content.decode())
    assert "s-beta" in feed and "s-alpha" not in feed
    feed = _feed(operator_client.get(url, {"session": "s-alpha"}).content.decode())
    assert "s-alpha" in feed and "s-beta" not in feed
    body = operator_client.get(url, {"reason": "max_history_messages"}).content.decode()
    assert "s-beta" in _feed(body) and "s-alpha" not in _feed(body)
    # The state is in the URL, and the socket gets the same filters.
    assert 'ws-connect="/ws/fleet/?reason=max_history_messages"' in body
    assert 'value="max_history_messages"' in body


def _feed(body: str) -> str:
    start = body.index('id="event-feed"')
    return body[start : body.index("</ol>", start)]


def test_status_poll_returns_alerts_and_out_of_band_runtime_and_session_tables(operator_client, runtimes):
    alpha, _ = runtimes
    _event(alpha, "s-1")
    body = operator_client.get(
        reverse("fleet"), headers={"HX-Request": "true", "HX-Target": "fleet-alerts"}
    ).content.decode()
    assert 'id="fleet-alerts"' in body
    assert 'id="fleet-runtimes" class="card" aria-labelledby="runtimes-h" hx-swap-oob="true"' in body
    assert 'id="fleet-sessions"' in body and "<html" not in body
    assert 'id="event-feed"' not in body  # the poll leaves the live feed alone


def test_feed_fragment_after_a_reconnect(operator_client, runtimes):
    alpha, _ = runtimes
    _event(alpha, "s-1")
    body = operator_client.get(
        reverse("fleet"), headers={"HX-Request": "true", "HX-Target": "event-feed"}
    ).content.decode()
    assert body.strip().startswith('<ol id="event-feed"') and "s-1" in body


def test_event_content_is_escaped_on_the_fleet_page(operator_client, runtimes):
    alpha, _ = runtimes
    _event(alpha, '<b id="s">x</b>', reason="<script>alert(1)</script>")
    body = operator_client.get(reverse("fleet")).content.decode()
    assert "<script>alert(1)</script>" not in body and "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert '<b id="s">' not in body and "&lt;b id=&quot;s&quot;&gt;x&lt;/b&gt;" in body


# The session page


def test_session_page_lists_events_in_time_order_with_their_numbers(operator_client, runtimes):
    alpha, _ = runtimes
    now = timezone.now()
    _event(alpha, "s-9", reason="second", occurred_at=now - timedelta(minutes=1), dropped_messages=7)
    _event(alpha, "s-9", reason="first", occurred_at=now - timedelta(minutes=2), dropped_messages=1234)
    _event(alpha, "other", reason="not this session")
    body = operator_client.get(reverse("fleet-session", args=["s-9"])).content.decode()
    assert body.index("first") < body.index("second")
    assert "1,234" in body and "not this session" not in body
    assert "No uploaded transcript has session id" in body


def test_session_page_links_each_event_to_the_simulation_when_the_transcript_is_known(
    operator_client, operator, runtimes
):
    alpha, _ = runtimes
    services.demo_profiles_ensure()
    transcript = services.transcript_import(text=tool_heavy_chat(40), name="chat", user=operator)
    Transcript.objects.filter(pk=transcript.pk).update(session_id="s-sim")
    now = timezone.now()
    _event(alpha, "s-sim", occurred_at=now - timedelta(minutes=2), call_number=7)
    _event(alpha, "s-sim", occurred_at=now - timedelta(minutes=1))
    zeroclaw = Profile.objects.filter(runtime="zeroclaw").order_by("name").first()

    body = operator_client.get(reverse("fleet-session", args=["s-sim"])).content.decode()
    assert f"/simulate/?transcript={transcript.pk}&amp;profile={zeroclaw.pk}&amp;call=7" in body
    assert "call reported by the runtime" in body
    # Without a reported call, the 2nd event opens the replay's 2nd trimmed call, and says so.
    profile = forms.simulation_profile(profile=zeroclaw)
    result = selectors.simulation_result(transcript=Transcript.objects.get(pk=transcript.pk), profile=profile)
    second_trim = [c.number for c in result.calls if c.trimmed][1]
    screen = selectors.fleet_session(session_id="s-sim")
    second = screen.rows[1]
    assert (second.number, second.call, second.call_source) == (2, second_trim, "nearest")
    assert second.url.endswith(f"&call={second_trim}")
    assert "nearest: the replay&#x27;s 2nd trim" in body

    # The profile picker changes the simulation the links open.
    other = Profile.objects.exclude(pk=zeroclaw.pk).first()
    body = operator_client.get(
        reverse("fleet-session", args=["s-sim"]), {"profile": other.pk}
    ).content.decode()
    assert f"profile={other.pk}&amp;call=7" in body


def test_session_page_escapes_the_session_id_and_reason(operator_client, runtimes):
    alpha, _ = runtimes
    session = "<img src=x onerror=alert(1)>"
    _event(alpha, session, reason="<script>bad()</script>")
    body = operator_client.get(reverse("fleet-session", args=[session])).content.decode()
    assert "<img src=x" not in body and "&lt;img src=x onerror=alert(1)&gt;" in body
    assert "<script>bad()" not in body


def test_session_ids_with_slashes_have_a_session_page(operator_client, runtimes):
    alpha, _ = runtimes
    _event(alpha, "team/agent-1/run 7")
    url = reverse("fleet-session", args=["team/agent-1/run 7"])
    assert url in operator_client.get(reverse("fleet")).content.decode()
    assert "team/agent-1/run 7" in operator_client.get(url).content.decode()


# Alert rules: each fires exactly at its threshold, not below


def _kinds(now=None):
    return [(a.kind, a.session_id or a.runtime) for a in selectors.fleet_alerts(now=now, rules=RULES)]


def test_session_trims_alert_fires_above_the_count_not_at_it(runtimes):
    alpha, _ = runtimes
    for _ in range(5):
        _event(alpha, "s-busy", ago=timedelta(seconds=1))
    assert _kinds() == []  # 5 trims: not more than 5
    _event(alpha, "s-busy", ago=timedelta(seconds=1))
    alerts = selectors.fleet_alerts(rules=RULES)
    assert [(a.kind, a.session_id, a.count) for a in alerts] == [("session_trims", "s-busy", 6)]
    assert "trimmed up to 6 times in 10 min (rule: more than 5;" in presenters.alert_message(alerts[0])


def test_session_trims_alert_counts_trims_within_one_window_only(runtimes):
    """Windows are whole minutes ending with the current one: [now-9 min, now] is one, the ten minutes
    before it the next."""
    alpha, _ = runtimes
    now = timezone.now().replace(second=30, microsecond=0)
    for _ in range(5):
        _event(alpha, "s-w", ago=timedelta(minutes=9))
    old = _event(alpha, "s-w", ago=timedelta(minutes=10))
    assert _kinds(now) == []  # 5 in this window, 1 in the one before
    TrimEvent.objects.filter(pk=old.pk).update(received_at=now - timedelta(minutes=9))
    services.trim_rollups_rebuild()
    assert _kinds(now) == [("session_trims", "s-w")]


def test_session_trims_alert_groups_every_busy_window_of_a_session_into_one_row(runtimes):
    alpha, _ = runtimes
    now = timezone.now().replace(second=30, microsecond=0)
    for minutes_ago, n in ((1, 7), (12, 9), (25, 6)):
        for _ in range(n):
            _event(alpha, "s-long", ago=timedelta(minutes=minutes_ago))
    alerts = selectors.fleet_alerts(now=now, rules=RULES)
    assert [(a.kind, a.session_id, a.count) for a in alerts] == [("session_trims", "s-long", 9)]
    assert "in 3 windows" in presenters.alert_message(alerts[0])


def test_overflow_failed_alert_fires_for_a_failed_recovery_only(runtimes):
    alpha, _ = runtimes
    _event(alpha, "s-ok", overflow_recovery="recovered")
    assert _kinds() == []
    _event(alpha, "s-bad", overflow_recovery="failed")
    assert _kinds() == [("overflow_failed", "s-bad")]
    _event(alpha, "s-long-ago", overflow_recovery="failed", ago=timedelta(hours=2))
    assert _kinds() == [("overflow_failed", "s-bad")]


def test_runtime_silent_alert_fires_at_t_minutes_not_before(runtimes):
    alpha, beta = runtimes
    now = timezone.now()
    Runtime.objects.filter(pk=alpha.pk).update(last_seen_at=now - timedelta(minutes=15))
    Runtime.objects.filter(pk=beta.pk).update(last_seen_at=now - timedelta(minutes=14, seconds=59))
    assert _kinds(now) == [("runtime_silent", "alpha")]
    # A socket counted open but not heard from is silent too: its server may have been killed with it.
    Runtime.objects.filter(pk=alpha.pk).update(connected=1)
    assert _kinds(now) == [("runtime_silent", "alpha")]
    # Never seen or revoked runtimes are not silent.
    Runtime.objects.filter(pk=alpha.pk).update(connected=0, last_seen_at=None)
    assert _kinds(now) == []
    Runtime.objects.filter(pk=alpha.pk).update(last_seen_at=now - timedelta(hours=1), revoked_at=now)
    assert _kinds(now) == []


def test_alert_rules_come_from_settings(settings, runtimes):
    alpha, _ = runtimes
    settings.TRIMSCOPE_ALERTS = {"session_trims": {"count": 1, "minutes": 5}}
    assert alert_rules().session_trims_count == 1 and alert_rules().runtime_silent_minutes == 15
    _event(alpha, "s-2")
    _event(alpha, "s-2")
    assert [a.kind for a in selectors.fleet_alerts()] == ["session_trims"]


def test_alert_strip_shows_on_the_fleet_page_escaped(operator_client, runtimes):
    alpha, _ = runtimes
    _event(alpha, "<i>s</i>", overflow_recovery="failed")
    body = operator_client.get(reverse("fleet")).content.decode()
    strip = body[body.index('id="fleet-alerts"') : body.index("</section>", body.index('id="fleet-alerts"'))]
    assert "Overflow failed" in strip and "&lt;i&gt;s&lt;/i&gt;" in strip and "<i>s</i>" not in strip
    assert "quiet" not in strip[:80]


# The fleet API


def test_alerts_api_with_the_session_and_with_a_user_token(operator_client, operator, runtimes):
    alpha, _ = runtimes
    _event(alpha, "s-x", overflow_recovery="failed")
    data = operator_client.get("/api/fleet/alerts").json()
    assert [(a["kind"], a["session_id"], a["runtime"]) for a in data] == [("overflow_failed", "s-x", "alpha")]
    assert (
        data[0]["message"]
        == "Overflow recovery failed once in session s-x on alpha (last under a minute ago)"
    )
    _, secret = services.api_token_create(user=operator, name="script")
    anonymous = Client()
    response = anonymous.get("/api/fleet/alerts", headers={"Authorization": f"Bearer {secret}"})
    assert response.status_code == 200 and response.json()[0]["kind"] == "overflow_failed"
    assert anonymous.get("/api/fleet/alerts").status_code == 401
    assert anonymous.get("/api/fleet/events").status_code == 401


def test_events_api_filters_and_limits(operator_client, runtimes):
    alpha, beta = runtimes
    for i in range(3):
        _event(alpha, f"a-{i}", reason="token budget", tokens_before=100, tokens_after=50)
    _event(beta, "b-0", reason="max_history_messages")
    data = operator_client.get("/api/fleet/events").json()
    assert len(data) == 4 and data[0]["session_id"] == "b-0"  # newest first
    assert {e["runtime"] for e in operator_client.get("/api/fleet/events?runtime=alpha").json()} == {"alpha"}
    assert [e["session_id"] for e in operator_client.get("/api/fleet/events?session=a-1").json()] == ["a-1"]
    assert len(operator_client.get("/api/fleet/events?reason=token%20budget&limit=2").json()) == 2
    assert operator_client.get("/api/fleet/events?limit=0").status_code == 422
    first = operator_client.get("/api/fleet/events?runtime=alpha&limit=1").json()[0]
    assert first["tokens_before"] == 100 and first["tokens_after"] == 50 and first["shape"] == "envelope"
