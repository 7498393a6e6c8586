"""Runtimes for operators: register (token shown once, only its hash stored), list, revoke; on the screen
and in the API, for a session or a user's API token."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from dashboard import selectors, services
from dashboard.models import Runtime
from dashboard.tokens import token_hash

pytestmark = pytest.mark.django_db

TOKEN = re.compile(r'id="new-secret"[^>]*value="(rt_[^"]+)"')


@pytest.fixture
def user_token(operator):
    return services.api_token_create(user=operator, name="ops")[1]


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


# -- services and selectors ------------------------------------------------------------------------------


def test_create_returns_a_token_that_authenticates_until_revoked():
    runtime, token = services.runtime_create(name="  r1  ", kind="openclaw")
    assert runtime.name == "r1" and runtime.kind == "openclaw" and token.startswith(runtime.token_prefix)
    assert runtime.token_hash == token_hash(token)
    assert selectors.runtime_authenticate(token=token) == runtime
    assert selectors.runtime_authenticate(token="") is None
    assert selectors.runtime_authenticate(token=token + "x") is None
    services.runtime_revoke(runtime=runtime)
    assert selectors.runtime_authenticate(token=token) is None


@pytest.mark.parametrize(
    ("name", "kind", "field"),
    [
        ("", "zeroclaw", "name"),
        ("   ", "zeroclaw", "name"),
        ("x" * 121, "zeroclaw", "name"),
        ("a", "k" * 41, "kind"),
    ],
)
def test_create_refuses_bad_names_and_kinds(name, kind, field):
    with pytest.raises(services.RuntimeInvalid) as exc:
        services.runtime_create(name=name, kind=kind)
    assert exc.value.field == field
    assert Runtime.objects.count() == 0


def test_create_refuses_a_taken_name():
    services.runtime_create(name="r1")
    with pytest.raises(services.RuntimeNameTaken):
        services.runtime_create(name="r1")
    assert Runtime.objects.count() == 1


def test_runtime_seen_is_false_once_revoked():
    runtime, _ = services.runtime_create(name="r1")
    assert services.runtime_seen(runtime_id=runtime.pk) is True
    services.runtime_revoke(runtime=runtime)
    assert services.runtime_seen(runtime_id=runtime.pk) is False


# -- API -------------------------------------------------------------------------------------------------


def test_api_needs_a_session_or_a_user_token():
    response = Client().get("/api/runtimes")
    assert response.status_code == 401 and set(response.json()) == {"message", "extra"}
    assert Client().post("/api/runtimes", {"name": "r"}, content_type="application/json").status_code == 401


def test_api_create_shows_the_token_once_and_lists_without_it(user_token):
    client = Client(headers=bearer(user_token))
    response = client.post(
        "/api/runtimes", {"name": "r1", "kind": "zeroclaw"}, content_type="application/json"
    )
    assert response.status_code == 201
    body = response.json()
    token = body.pop("token")
    runtime = Runtime.objects.get()
    assert body["id"] == runtime.pk and body["name"] == "r1" and body["connected"] == 0
    assert runtime.token_hash == token_hash(token) and token.startswith(body["token_prefix"])
    listed = client.get("/api/runtimes").json()
    assert listed == [body]
    assert token not in str(listed)


def test_api_create_conflict_and_invalid(operator_client):
    services.runtime_create(name="r1")
    taken = operator_client.post("/api/runtimes", {"name": "r1"}, content_type="application/json")
    assert taken.status_code == 409 and "already taken" in taken.json()["message"]
    blank = operator_client.post("/api/runtimes", {"name": "   "}, content_type="application/json")
    assert blank.status_code == 422
    missing = operator_client.post("/api/runtimes", {}, content_type="application/json")
    assert missing.status_code == 422
    assert Runtime.objects.count() == 1


def test_api_revoke(user_token):
    runtime, token = services.runtime_create(name="r1")
    client = Client(headers=bearer(user_token))
    response = client.post(f"/api/runtimes/{runtime.pk}/revoke")
    assert response.status_code == 200 and response.json()["revoked_at"] is not None
    assert selectors.runtime_authenticate(token=token) is None
    assert client.post(f"/api/runtimes/{runtime.pk}/revoke").status_code == 200  # idempotent
    assert client.post("/api/runtimes/99999/revoke").status_code == 404


# -- the screen ------------------------------------------------------------------------------------------


def test_signed_out_visitors_are_sent_to_sign_in(client):
    response = client.get(reverse("runtime-list"))
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_page_lists_runtimes_and_has_the_nav_link(operator_client):
    services.runtime_create(name="prod-1")
    body = operator_client.get(reverse("runtime-list")).content.decode()
    assert 'aria-current="page">Runtimes</a>' in body
    assert "prod-1" in body and "never" in body and "Revoke" in body


def test_create_shows_the_token_once_and_it_opens_the_event_endpoint(operator_client):
    response = operator_client.post(reverse("runtime-create"), {"name": "prod-1", "kind": "zeroclaw"})
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    body = response.content.decode()
    assert "Copy it now, it is not stored" in body
    token = TOKEN.search(body)[1]
    runtime = Runtime.objects.get()
    assert runtime.token_hash == token_hash(token)
    assert token not in operator_client.get(reverse("runtime-list")).content.decode()
    posted = Client().post(
        "/api/events", {"events": []}, content_type="application/json", headers=bearer(token)
    )
    assert posted.status_code == 200


def test_create_with_a_taken_name_shows_the_error(operator_client):
    services.runtime_create(name="prod-1")
    response = operator_client.post(reverse("runtime-create"), {"name": "prod-1"})
    assert response.status_code == 422
    body = response.content.decode()
    assert "already taken" in body and 'id="new-secret"' not in body
    assert Runtime.objects.count() == 1


def test_names_are_escaped(operator_client):
    body = operator_client.post(reverse("runtime-create"), {"name": "<script>x()</script>"}).content.decode()
    assert "<script>x()</script>" not in body and "&lt;script&gt;" in body


def test_revoke_from_the_screen(operator_client):
    runtime, token = services.runtime_create(name="prod-1")
    response = operator_client.post(reverse("runtime-revoke", args=[runtime.pk]), follow=True)
    assert "Revoked “prod-1”" in response.content.decode()
    assert selectors.runtime_authenticate(token=token) is None
    assert operator_client.post(reverse("runtime-revoke", args=[99999])).status_code == 404
    assert operator_client.get(reverse("runtime-revoke", args=[runtime.pk])).status_code == 405
