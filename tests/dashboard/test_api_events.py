"""POST /api/events: the HTTP fallback for runtimes, with the runtime's own token; each frame is stored,
reported as a duplicate, or rejected on its own."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from dashboard import services
from dashboard.fleet_schemas import parse_frame
from dashboard.models import Runtime, TrimEvent

pytestmark = pytest.mark.django_db(transaction=True)

WS = {
    "type": "history_trimmed",
    "dropped_messages": 4,
    "kept_turns": 2,
    "reason": "context token budget exceeded",
}
ACP = {
    "jsonrpc": "2.0",
    "method": "_zeroclaw/history_trimmed",
    "params": {"sessionId": "s-acp", "droppedMessages": 6, "keptTurns": 3, "reason": "budget"},
}


def envelope(seq, **event):
    return {"session_id": "s-1", "seq": seq, "sent_at": "2026-11-29T10:00:00Z", "event": {**WS, **event}}


@pytest.fixture
def runtime_token():
    return services.runtime_create(name="r1")


def post(token, body, **headers):
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    return Client().post(
        "/api/events", data=json.dumps(body), content_type="application/json", headers={**auth, **headers}
    )


def test_mixed_batch_stores_valid_frames_and_rejects_the_others_by_index(runtime_token):
    runtime, token = runtime_token
    services.trim_event_ingest(runtime=runtime, frame=parse_frame(envelope(1)), payload=envelope(1))
    before = TrimEvent.objects.get()
    body = {
        "events": [
            envelope(2),
            {**WS, "dropped_messages": "four"},
            ACP,
            envelope(1),  # already stored
            "garbage",
            {**WS, "colour": "red"},
            envelope(2),  # a duplicate inside the same batch
        ]
    }
    response = post(token, body)
    assert response.status_code == 200
    results = response.json()["results"]
    stored = {e.seq: e.pk for e in TrimEvent.objects.filter(shape="envelope")}
    acp = TrimEvent.objects.get(shape="acp")
    assert results == [
        {"index": 0, "status": "stored", "id": stored[2], "message": None, "field": None},
        {
            "index": 1,
            "status": "rejected",
            "id": None,
            "message": results[1]["message"],
            "field": "dropped_messages",
        },
        {"index": 2, "status": "stored", "id": acp.pk, "message": None, "field": None},
        {"index": 3, "status": "duplicate", "id": before.pk, "message": None, "field": None},
        {"index": 4, "status": "rejected", "id": None, "message": results[4]["message"], "field": None},
        {"index": 5, "status": "rejected", "id": None, "message": results[5]["message"], "field": "colour"},
        {"index": 6, "status": "duplicate", "id": stored[2], "message": None, "field": None},
    ]
    assert "valid integer" in results[1]["message"] and "JSON object" in results[4]["message"]
    assert TrimEvent.objects.count() == 3
    assert Runtime.objects.get().last_seen_at is not None


def test_batch_posted_twice_is_stored_once(runtime_token):
    _, token = runtime_token
    body = {"events": [envelope(seq) for seq in range(1, 6)]}
    first = post(token, body).json()["results"]
    again = post(token, body).json()["results"]
    assert [r["status"] for r in first] == ["stored"] * 5
    assert [r["status"] for r in again] == ["duplicate"] * 5
    assert [r["id"] for r in again] == [r["id"] for r in first]
    assert TrimEvent.objects.count() == 5


@pytest.mark.parametrize("token", [None, "rt_wrong", "revoked"])
def test_missing_wrong_or_revoked_token_is_401_and_nothing_is_stored(runtime_token, token):
    runtime, secret = runtime_token
    if token == "revoked":
        services.runtime_revoke(runtime=runtime)
        token = secret
    response = post(token, {"events": [WS]})
    assert response.status_code == 401
    assert set(response.json()) == {"message", "extra"}
    assert TrimEvent.objects.count() == 0


def test_a_users_api_token_does_not_open_the_runtime_endpoint(operator):
    _, user_token = services.api_token_create(user=operator, name="script")
    assert post(user_token, {"events": [WS]}).status_code == 401


def test_the_runtime_token_does_not_open_the_operator_api(runtime_token):
    _, token = runtime_token
    response = Client().get("/api/runtimes", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401


def test_batch_over_the_limit_or_without_events_is_422(runtime_token):
    _, token = runtime_token
    assert post(token, {"events": [WS] * 501}).status_code == 422
    assert post(token, {"frames": [WS]}).status_code == 422
    assert post(token, [WS]).status_code == 422
    assert TrimEvent.objects.count() == 0


def test_empty_batch_is_fine(runtime_token):
    _, token = runtime_token
    response = post(token, {"events": []})
    assert response.status_code == 200 and response.json() == {"results": []}


def test_a_stored_event_is_committed_before_the_response(runtime_token, monkeypatch):
    """Each stored event is its own transaction, so the push (after commit) ran before the reply."""
    pushed = []
    monkeypatch.setattr("dashboard.services.fleet.event_publish", lambda event: pushed.append(event.pk))
    _, token = runtime_token
    results = post(token, {"events": [envelope(1), envelope(2)]}).json()["results"]
    assert pushed == [r["id"] for r in results]
