"""API tokens against a real daphne with CSRF enforced: scripts write with a bearer token and no cookie,
a cookie session needs its CSRF token, a token cannot mint tokens, and revoking it takes away every
runtime it registered. Token use is throttled (429 + Retry-After)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import websockets

from dashboard import services
from dashboard.models import ApiToken, Runtime, Transcript
from tests.dashboard.security_support import FAST_HASHERS, csrf_token, daphne_with, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "api-security-password-1"
TRANSCRIPT = json.dumps([{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}])


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker):
    with daphne_with(
        django_db_blocker,
        PASSWORD_HASHERS=FAST_HASHERS,
        TRIMSCOPE_THROTTLE={
            "login_username": "10/15minutes",
            "login_address": "50/15minutes",
            "api_token": "8/minute",
            "api_bad_token": "3/minute",
        },
    ) as url:
        yield url


@pytest.fixture
def user(django_user_model, settings):
    settings.PASSWORD_HASHERS = FAST_HASHERS
    return django_user_model.objects.create_user(username="scripter", password=PASSWORD)


def _from(address: str, base: str) -> httpx.Client:
    """A client on its own loopback source address, so per-address counts do not leak between tests."""
    return httpx.Client(base_url=base, transport=httpx.HTTPTransport(local_address=address), timeout=20)


def _bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def test_a_bearer_token_writes_without_cookie_or_csrf_token(server, user):
    _, secret = services.api_token_create(user=user, name="ci")
    with _from("127.0.0.11", server) as http:
        body = {"text": TRANSCRIPT, "name": "ci"}
        created = http.post("/api/transcripts", json=body, headers=_bearer(secret))
        assert created.status_code == 201, created.text
        assert not http.cookies
        transcript_id = created.json()["id"]
        assert Transcript.objects.filter(pk=transcript_id, name="ci").exists()
        deleted = http.delete(f"/api/transcripts/{transcript_id}", headers=_bearer(secret))
        assert deleted.status_code == 204
    assert not Transcript.objects.filter(pk=transcript_id).exists()


def test_a_cookie_session_without_its_csrf_token_is_refused(server, user):
    with _from("127.0.0.12", server) as http:
        assert sign_in(http, "scripter", PASSWORD).status_code == 302
        refused = http.post("/api/transcripts", json={"text": TRANSCRIPT, "name": "forged"})
        assert refused.status_code == 403
        assert "CSRF" in refused.json()["message"]
        assert not Transcript.objects.filter(name="forged").exists()
        token = csrf_token(http)
        allowed = http.post(
            "/api/transcripts", json={"text": TRANSCRIPT, "name": "mine"}, headers={"X-CSRFToken": token}
        )
        assert allowed.status_code == 201, allowed.text


def test_no_credentials_is_a_401_not_a_csrf_error(server):
    with _from("127.0.0.13", server) as http:
        response = http.post("/api/transcripts", json={"text": TRANSCRIPT})
    assert response.status_code == 401
    assert "Bearer" in response.json()["message"]


def test_a_bearer_token_cannot_mint_api_tokens(server, user):
    _, secret = services.api_token_create(user=user, name="ci")
    with _from("127.0.0.14", server) as http:
        response = http.post("/api/tokens", json={"name": "replacement"}, headers=_bearer(secret))
    assert response.status_code == 401
    assert ApiToken.objects.filter(user=user).count() == 1


def test_revoking_a_token_revokes_every_runtime_it_registered(server, user):
    row, secret = services.api_token_create(user=user, name="provisioner")
    other_runtime, _ = services.runtime_create(name="registered-by-hand")
    ws_url = server.replace("http://", "ws://") + "/ws/runtime/"
    with _from("127.0.0.15", server) as http:
        registered = [
            http.post("/api/runtimes", json={"name": f"rt-{i}"}, headers=_bearer(secret)) for i in range(2)
        ]
        assert [r.status_code for r in registered] == [201, 201]
        runtime_tokens = [r.json()["token"] for r in registered]
        event = {
            "session_id": "s",
            "sent_at": "2026-11-29T10:00:00Z",
            "seq": 1,
            "event": {"type": "history_trimmed", "dropped_messages": 1, "kept_turns": 1, "reason": "r"},
        }
        accepted = http.post("/api/events", json={"events": [event]}, headers=_bearer(runtime_tokens[0]))
        assert accepted.status_code == 200
        assert accepted.json()["results"][0]["status"] == "stored", accepted.text

        async def revoke_while_connected() -> int | None:
            async with websockets.connect(ws_url, additional_headers=_bearer(runtime_tokens[1])) as ws:
                await ws.send(json.dumps(event))
                assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "ack"
                revoked = await asyncio.to_thread(
                    http.post, f"/api/tokens/{row.pk}/revoke", headers=_bearer(secret)
                )
                assert revoked.status_code == 200
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await asyncio.wait_for(ws.recv(), 10)
                return closed.value.rcvd.code if closed.value.rcvd else None

        assert asyncio.run(revoke_while_connected()) == 4401
        late = http.post("/api/events", json={"events": [event]}, headers=_bearer(runtime_tokens[0]))
        assert late.status_code == 401
        assert http.get("/api/runtimes", headers=_bearer(secret)).status_code == 401
    assert Runtime.objects.filter(created_by_token=row, revoked_at__isnull=True).count() == 0
    assert Runtime.objects.filter(created_by_token=row).count() == 2
    other_runtime.refresh_from_db()
    assert other_runtime.revoked_at is None


def test_a_revoked_token_cannot_register_a_runtime(server, user):
    row, secret = services.api_token_create(user=user, name="old")
    services.api_token_revoke(token=row)
    with _from("127.0.0.16", server) as http:
        response = http.post("/api/runtimes", json={"name": "late"}, headers=_bearer(secret))
    assert response.status_code == 401
    assert not Runtime.objects.filter(name="late").exists()


def test_api_token_use_is_throttled_with_retry_after(server, user):
    _, secret = services.api_token_create(user=user, name="busy")
    with _from("127.0.0.17", server) as http:
        codes = [http.get("/api/transcripts", headers=_bearer(secret)).status_code for _ in range(8)]
        limited = http.get("/api/transcripts", headers=_bearer(secret))
    assert codes == [200] * 8
    assert limited.status_code == 429
    assert 1 <= int(limited.headers["Retry-After"]) <= 60
    assert limited.json()["extra"]["retry_after"] == int(limited.headers["Retry-After"])


def test_an_address_sending_bad_tokens_is_throttled_even_with_a_good_one(server, user):
    _, secret = services.api_token_create(user=user, name="good")
    with _from("127.0.0.18", server) as http:
        bad = [http.get("/api/transcripts", headers=_bearer(f"ts_guess{i}")).status_code for i in range(3)]
        after = http.get("/api/transcripts", headers=_bearer(secret))
    with _from("127.0.0.19", server) as elsewhere:
        unaffected = elsewhere.get("/api/transcripts", headers=_bearer(secret))
    assert bad == [401, 401, 401]
    assert after.status_code == 429 and int(after.headers["Retry-After"]) >= 1
    assert unaffected.status_code == 200


def test_the_api_docs_are_for_signed_in_users_only(server):
    with _from("127.0.0.20", server) as http:
        for path in ("/api/docs", "/api/openapi.json"):
            response = http.get(path)
            assert response.status_code == 302 and response.headers["Location"].startswith("/login/")


def test_pages_carry_the_security_headers(server):
    with _from("127.0.0.20", server) as http:
        response = http.get("/login/")
    assert response.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "same-origin"
    csrf_cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in csrf_cookie and "SameSite=Lax" in csrf_cookie
