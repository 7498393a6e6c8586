"""Fleet alert on estimate drift: envelope events that carry both the runtime's estimate and the
provider's count alert when the provider counted at least twice the estimate."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone

from dashboard import presenters, selectors, services
from dashboard.fleet_schemas import FRAME_ADAPTER
from dashboard.selectors.fleet_alerts import alert_rules

pytestmark = pytest.mark.django_db

RULES = alert_rules({"estimate_drift": {"ratio": 2}})


def _ingest(runtime, session: str, seq: int, estimate: int, provider: int | None) -> None:
    event: dict[str, object] = {
        "type": "history_trimmed",
        "dropped_messages": 2,
        "kept_turns": 3,
        "reason": "token budget",
        "tokens_before": estimate,
    }
    if provider is not None:
        event["provider_input_tokens"] = provider
    payload = {"session_id": session, "seq": seq, "sent_at": timezone.now().isoformat(), "event": event}
    frame = FRAME_ADAPTER.validate_json(json.dumps(payload))
    services.trim_event_ingest(runtime=runtime, frame=frame, payload=payload)


def test_drift_alert_fires_at_twice_the_estimate_and_names_both_counts():
    runtime, _ = services.runtime_create(name="alpha")
    _ingest(runtime, "s-close", 1, 38_503, 70_000)  # 1.8×: no alert
    _ingest(runtime, "s-none", 1, 38_503, None)  # no provider count: nothing to compare
    assert [a.kind for a in selectors.fleet_alerts(rules=RULES)] == []
    _ingest(runtime, "s-far", 1, 38_503, 3_012_427)
    _ingest(runtime, "s-exact", 1, 1_000, 2_000)
    alerts = selectors.fleet_alerts(rules=RULES)
    assert sorted((a.kind, a.session_id) for a in alerts) == [
        ("estimate_drift", "s-exact"),
        ("estimate_drift", "s-far"),
    ]
    far = next(a for a in alerts if a.session_id == "s-far")
    message = presenters.alert_message(far)
    assert "the provider counted 3,012,427 input tokens, 78.2× the runtime's estimate of 38,503" in message


def test_an_envelope_with_a_negative_provider_count_is_refused():
    payload = {
        "session_id": "s",
        "seq": 1,
        "sent_at": timezone.now().isoformat(),
        "event": {
            "type": "history_trimmed",
            "dropped_messages": 1,
            "kept_turns": 1,
            "reason": "r",
            "provider_input_tokens": -1,
        },
    }
    with pytest.raises(ValueError, match="provider_input_tokens"):
        FRAME_ADAPTER.validate_json(json.dumps(payload))


def test_the_fleet_api_lists_a_drift_alert_with_its_sentence(operator_client, settings):
    settings.TRIMSCOPE_ALERTS = {"estimate_drift": {"ratio": 2}}
    runtime, _ = services.runtime_create(name="alpha")
    _ingest(runtime, "s-far", 1, 38_503, 3_012_427)
    response = operator_client.get("/api/fleet/alerts")
    assert response.status_code == 200
    [alert] = response.json()
    assert (alert["kind"], alert["session_id"], alert["runtime"]) == ("estimate_drift", "s-far", "alpha")
    assert alert["message"].startswith("Session s-far on alpha: the provider counted 3,012,427 input tokens")


def test_a_drift_alert_can_be_muted_for_its_session_and_acknowledged():
    runtime, _ = services.runtime_create(name="alpha")
    _ingest(runtime, "s-far", 1, 38_503, 3_012_427)
    _ingest(runtime, "s-other", 1, 1_000, 5_000)
    services.alert_mute(rule="estimate_drift", scope="session", runtime="alpha", session_id="s-far")
    assert [a.session_id for a in selectors.fleet_alerts(rules=RULES)] == ["s-other"]
    services.alert_acknowledge(rule="estimate_drift", runtime="alpha", session_id="s-other")
    assert selectors.fleet_alerts(rules=RULES) == []
