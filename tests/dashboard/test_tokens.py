"""API tokens: the screen shows a new secret once and stores its hash; revoking closes the API; users are
kept apart on the screen and in the tokens API."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from ninja.testing import TestClient

from dashboard import services
from dashboard.api import api as ninja_api
from dashboard.models import ApiToken
from dashboard.tokens import token_hash

pytestmark = pytest.mark.django_db

SECRET = re.compile(r'id="new-secret"[^>]*value="(ts_[^"]+)"')


@pytest.fixture
def other(django_user_model):
    return django_user_model.objects.create_user(username="other", password="other-test-password")


@pytest.fixture
def others_token(other):
    row, _ = services.api_token_create(user=other, name="other's ci")
    return row


def _bearer(secret, path="/api/transcripts"):
    """Call the API with only the token (a fresh client: no session cookie to fall back on)."""
    return Client().get(path, headers={"Authorization": f"Bearer {secret}"})


# -- the screen ------------------------------------------------------------------------------------------


def test_signed_out_visitors_are_sent_to_sign_in(client):
    response = client.get(reverse("token-list"))
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_page_lists_own_tokens_and_has_the_nav_link(operator_client, operator):
    services.api_token_create(user=operator, name="nightly")
    body = operator_client.get(reverse("token-list")).content.decode()
    assert 'aria-current="page">API tokens</a>' in body
    assert "nightly" in body and "never" in body and "Revoke" in body


def test_create_shows_the_secret_once_and_stores_only_its_hash(operator_client, operator):
    response = operator_client.post(reverse("token-create"), {"name": "script"})
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    body = response.content.decode()
    assert "Copy it now, it is not stored" in body
    secret = SECRET.search(body)[1]
    row = ApiToken.objects.get(user=operator)
    assert row.name == "script" and row.key_hash == token_hash(secret) and secret.startswith(row.prefix)
    assert all(secret not in str(value) for value in ApiToken.objects.values().get().values())
    again = operator_client.get(reverse("token-list")).content.decode()
    assert secret not in again and row.prefix in again


def test_created_secret_opens_the_api(operator_client):
    body = operator_client.post(reverse("token-create"), {"name": "script"}).content.decode()
    assert _bearer(SECRET.search(body)[1]).status_code == 200


def test_new_token_names_are_escaped(operator_client):
    body = operator_client.post(reverse("token-create"), {"name": "<script>x()</script>"}).content.decode()
    assert "<script>x()</script>" not in body and "&lt;script&gt;" in body


def test_revoke_stops_the_token_working_on_the_api(operator_client, operator):
    row, secret = services.api_token_create(user=operator, name="old")
    assert _bearer(secret).status_code == 200
    response = operator_client.post(reverse("token-revoke", args=[row.pk]), follow=True)
    assert response.status_code == 200 and "Revoked" in response.content.decode()
    row.refresh_from_db()
    assert row.revoked_at is not None
    assert _bearer(secret).status_code == 401
    assert "revoked" in operator_client.get(reverse("token-list")).content.decode()


def test_revoke_needs_post(operator_client, operator):
    row, _ = services.api_token_create(user=operator, name="x")
    assert operator_client.get(reverse("token-revoke", args=[row.pk])).status_code == 405
    row.refresh_from_db()
    assert row.revoked_at is None


def test_other_users_tokens_are_invisible_on_the_page(operator_client, others_token):
    body = operator_client.get(reverse("token-list")).content.decode()
    assert "other&#x27;s ci" not in body and others_token.prefix not in body


def test_other_users_tokens_cannot_be_revoked_on_the_page(operator_client, others_token):
    response = operator_client.post(reverse("token-revoke", args=[others_token.pk]))
    assert response.status_code == 404
    others_token.refresh_from_db()
    assert others_token.revoked_at is None


# -- the tokens API --------------------------------------------------------------------------------------


def test_api_lists_only_the_callers_tokens(operator, others_token):
    row, secret = services.api_token_create(user=operator, name="mine")
    api = TestClient(ninja_api, headers={"Authorization": f"Bearer {secret}"})
    listed = api.get("/tokens").json()
    assert [t["id"] for t in listed] == [row.pk]
    assert set(listed[0]) == {"id", "name", "prefix", "created_at", "last_used_at", "revoked_at"}


def test_api_cannot_revoke_another_users_token(operator, others_token):
    _, secret = services.api_token_create(user=operator, name="mine")
    api = TestClient(ninja_api, headers={"Authorization": f"Bearer {secret}"})
    response = api.post(f"/tokens/{others_token.pk}/revoke")
    assert response.status_code == 404 and set(response.json()) == {"message", "extra"}
    others_token.refresh_from_db()
    assert others_token.revoked_at is None


def test_api_token_can_revoke_itself(operator):
    row, secret = services.api_token_create(user=operator, name="mine")
    api = TestClient(ninja_api, headers={"Authorization": f"Bearer {secret}"})
    response = api.post(f"/tokens/{row.pk}/revoke")
    assert response.status_code == 200 and response.json()["revoked_at"] is not None
    assert _bearer(secret).status_code == 401


def test_api_create_with_the_session_returns_the_secret_once(operator_client, operator):
    response = operator_client.post("/api/tokens", data={"name": "cli"}, content_type="application/json")
    assert response.status_code == 201
    body = response.json()
    row = ApiToken.objects.get(pk=body["id"], user=operator)
    assert row.key_hash == token_hash(body["secret"])
    assert all("secret" not in t for t in operator_client.get("/api/tokens").json())
    assert _bearer(body["secret"]).status_code == 200


def test_api_create_is_refused_to_a_bearer_token(operator):
    _, secret = services.api_token_create(user=operator, name="mine")
    api = TestClient(ninja_api, headers={"Authorization": f"Bearer {secret}"})
    assert api.post("/tokens", json={"name": "more"}).status_code == 401
    assert ApiToken.objects.count() == 1


def test_api_revoke_with_the_session(operator_client, operator):
    row, _ = services.api_token_create(user=operator, name="mine")
    response = operator_client.post(f"/api/tokens/{row.pk}/revoke")
    assert response.status_code == 200
    row.refresh_from_db()
    assert row.revoked_at is not None


def test_api_tokens_need_auth(client):
    assert client.get("/api/tokens").status_code == 401
    assert client.post("/api/tokens", data={}, content_type="application/json").status_code == 401
    assert client.post("/api/tokens/1/revoke").status_code == 401
