"""The transcripts API: bearer tokens or session, one error shape, nothing stored on bad input."""

from __future__ import annotations

import json

import pytest
from ninja.testing import TestClient

from dashboard import services
from dashboard.api import api as ninja_api
from dashboard.models import Transcript

pytestmark = pytest.mark.django_db

CHAT = [
    {"role": "user", "content": "hello"},
    {"role": "assistant", "content": "hi"},
]


@pytest.fixture
def api(operator):
    _, secret = services.api_token_create(user=operator, name="ci")
    return TestClient(ninja_api, headers={"Authorization": f"Bearer {secret}"})


def test_missing_auth_is_401_with_the_error_shape(client):
    response = client.get("/api/transcripts")
    assert response.status_code == 401
    assert set(response.json()) == {"message", "extra"}


def test_revoked_token_is_refused(operator, client):
    row, secret = services.api_token_create(user=operator, name="old")
    services.api_token_revoke(token=row)
    response = client.get("/api/transcripts", headers={"Authorization": f"Bearer {secret}"})
    assert response.status_code == 401


def test_tokens_are_stored_hashed(operator):
    row, secret = services.api_token_create(user=operator, name="x")
    assert secret not in row.key_hash and len(row.key_hash) == 64


def test_create_list_get_delete_round_trip(api):
    created = api.post("/transcripts", json={"name": "hello", "text": json.dumps(CHAT)})
    assert created.status_code == 201
    body = created.json()
    assert (body["format"], body["message_count"], body["turn_count"]) == ("openai-chat", 2, 1)
    listed = api.get("/transcripts")
    assert [t["id"] for t in listed.json()] == [body["id"]]
    detail = api.get(f"/transcripts/{body['id']}").json()
    assert [m["role"] for m in detail["messages"]] == ["user", "assistant"]
    assert detail["messages"][0]["turn"] == 1
    assert api.delete(f"/transcripts/{body['id']}").status_code == 204
    assert api.get(f"/transcripts/{body['id']}").status_code == 404


def test_parse_error_is_422_naming_the_place_and_stores_nothing(api):
    response = api.post("/transcripts", json={"text": '[{"role": "user", "content": "x"}, {"role": 5}]'})
    assert response.status_code == 422
    body = response.json()
    assert body["extra"]["message_index"] == 1
    assert body["extra"]["formats_tried"]
    assert Transcript.objects.count() == 0


def test_body_validation_error_uses_the_error_shape(api):
    response = api.post("/transcripts", json={"name": "no text"})
    assert response.status_code == 422
    assert "text" in response.json()["message"]


def test_oversized_transcript_is_413(api, settings):
    settings.TRIMSCOPE_MAX_UPLOAD_BYTES = 10
    response = api.post("/transcripts", json={"text": json.dumps(CHAT)})
    assert response.status_code == 413
    assert Transcript.objects.count() == 0


def test_session_auth_works_for_the_browser(operator_client):
    response = operator_client.get("/api/transcripts")
    assert response.status_code == 200


def test_openapi_docs_are_served_without_a_cdn(operator_client):
    response = operator_client.get("/api/docs")
    body = response.content.decode()
    assert response.status_code == 200
    assert "swagger-ui-bundle.js" in body and "/static/ninja/" in body
    assert "cdn." not in body and "unpkg" not in body and "jsdelivr" not in body
    assert operator_client.get("/api/openapi.json").json()["info"]["title"] == "Trimscope API"
