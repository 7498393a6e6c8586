"""``/ws/fleet/`` through a real daphne and WebSocket client: the feed closes when its session ends
(sign-out at once; expiry, deletion or a password change at the next check), and with Redis down the
handshake succeeds and tells the page that live updates are unavailable instead of answering 500."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import httpx
import pytest
import websockets
from django.contrib.sessions.models import Session
from django.utils import timezone

from tests.dashboard.security_support import (
    CSRF_INPUT,
    FAST_HASHERS,
    cookie_header,
    csrf_token,
    daphne_with,
    free_port,
    sign_in,
)

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "fleet-security-password-1"


@pytest.fixture(scope="module")
def slow_check_server(django_db_setup, django_db_blocker):
    """Sessions re-checked only every 5 minutes: whatever closes a socket sooner is the sign-out."""
    overrides = {"PASSWORD_HASHERS": FAST_HASHERS, "TRIMSCOPE_SESSION_CHECK_SECONDS": 300}
    with daphne_with(django_db_blocker, **overrides) as url:
        yield url


@pytest.fixture(scope="module")
def fast_check_server(django_db_setup, django_db_blocker):
    overrides = {"PASSWORD_HASHERS": FAST_HASHERS, "TRIMSCOPE_SESSION_CHECK_SECONDS": 1}
    with daphne_with(django_db_blocker, **overrides) as url:
        yield url


@pytest.fixture(scope="module")
def redis_down_server(django_db_setup, django_db_blocker):
    """The channel layer and the throttle storage point at a port where nothing listens."""
    dead = f"redis://127.0.0.1:{free_port()}/0"
    layer = {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [{"address": dead, "socket_timeout": None, "socket_connect_timeout": 2}]},
    }
    from django.conf import settings

    layers = {**settings.CHANNEL_LAYERS, "default": layer}
    with daphne_with(
        django_db_blocker, PASSWORD_HASHERS=FAST_HASHERS, REDIS_URL=dead, CHANNEL_LAYERS=layers
    ) as url:
        yield url


@pytest.fixture
def user(django_user_model, settings):
    settings.PASSWORD_HASHERS = FAST_HASHERS
    return django_user_model.objects.create_user(username="watcher", password=PASSWORD)


@contextmanager
def _signed_in(base: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base, timeout=20) as http:
        assert sign_in(http, "watcher", PASSWORD).status_code == 302
        yield http


def _ws(base: str, http: httpx.Client):
    return websockets.connect(
        base.replace("http://", "ws://") + "/ws/fleet/",
        additional_headers={"Cookie": cookie_header(http), "Origin": base},
    )


async def _close_code(ws, seconds: float) -> int | None:
    """Wait (bounded) for the server to close the socket; its close code."""
    with pytest.raises(websockets.ConnectionClosed) as closed:
        while True:
            await asyncio.wait_for(ws.recv(), seconds)
    return closed.value.rcvd.code if closed.value.rcvd else None


async def _still_open(ws, seconds: float) -> bool:
    try:
        await asyncio.wait_for(ws.recv(), seconds)
    except TimeoutError:
        return True
    except websockets.ConnectionClosed:
        return False
    return True


def test_signing_out_closes_the_fleet_socket_at_once(slow_check_server, user):
    with _signed_in(slow_check_server) as http:

        async def scenario() -> tuple[bool, int | None, float]:
            async with _ws(slow_check_server, http) as ws:
                open_before = await _still_open(ws, 0.5)
                token = CSRF_INPUT.search(http.get("/fleet/").text)[1]
                signed_out = await asyncio.to_thread(
                    http.post, "/logout/", data={"csrfmiddlewaretoken": token}
                )
                assert signed_out.status_code == 302
                started = asyncio.get_running_loop().time()
                code = await _close_code(ws, 10)
                return open_before, code, asyncio.get_running_loop().time() - started

        open_before, code, waited = asyncio.run(scenario())
    assert open_before
    assert code == 4401
    assert waited < 10  # well under the 300 s periodic check: the sign-out itself closed it


@pytest.mark.parametrize("how", ["deleted", "expired", "password changed"])
def test_a_session_that_ends_otherwise_closes_its_socket_at_the_next_check(fast_check_server, user, how):
    with _signed_in(fast_check_server) as http:
        session_key = http.cookies["sessionid"]

        async def scenario() -> tuple[bool, int | None]:
            async with _ws(fast_check_server, http) as ws:
                open_before = await _still_open(ws, 1.5)
                await asyncio.to_thread(_end_session, session_key, user, how)
                return open_before, await _close_code(ws, 10)

        open_before, code = asyncio.run(scenario())
    assert open_before
    assert code == 4401


def _end_session(session_key: str, user, how: str) -> None:
    if how == "deleted":
        Session.objects.filter(session_key=session_key).delete()
    elif how == "expired":
        past = timezone.now() - timedelta(seconds=1)
        Session.objects.filter(session_key=session_key).update(expire_date=past)
    else:
        user.set_password("a-brand-new-password-2")
        user.save()


def test_an_anonymous_fleet_socket_is_closed_with_4401(fast_check_server):
    async def scenario() -> int | None:
        async with websockets.connect(
            fast_check_server.replace("http://", "ws://") + "/ws/fleet/",
            additional_headers={"Origin": fast_check_server},
        ) as ws:
            return await _close_code(ws, 10)

    assert asyncio.run(scenario()) == 4401


def test_with_redis_down_the_fleet_socket_says_live_updates_are_unavailable(redis_down_server, user):
    with _signed_in(redis_down_server) as http:
        page = http.get("/fleet/")

        async def scenario() -> tuple[str, int | None]:
            async with _ws(redis_down_server, http) as ws:
                notice = await asyncio.wait_for(ws.recv(), 10)
                return str(notice), await _close_code(ws, 10)

        notice, code = asyncio.run(scenario())
    assert page.status_code == 200
    placeholder = page.text.split('id="live-unavailable"')[1][:80]
    assert "hidden" in placeholder  # the page keeps the notice for the socket to show
    assert 'id="live-unavailable"' in notice and 'hx-swap-oob="true"' in notice
    assert "Live updates are unavailable" in notice
    assert code == 1013  # "try again later": the htmx ws extension reconnects with backoff


def test_with_redis_down_sign_in_and_sign_out_work_and_are_still_throttled(redis_down_server, user):
    with httpx.Client(base_url=redis_down_server, timeout=20) as http:
        token = csrf_token(http)
        codes = [sign_in(http, "nobody", "wrong", token).status_code for _ in range(11)]
        assert codes == [200] * 10 + [429]
        assert sign_in(http, "watcher", PASSWORD, token).status_code == 302
        token = CSRF_INPUT.search(http.get("/fleet/").text)[1]
        assert http.post("/logout/", data={"csrfmiddlewaretoken": token}).status_code == 302


@pytest.mark.browser
def test_with_redis_down_the_fleet_page_tells_the_user(redis_down_server, user, page):
    from playwright.sync_api import expect

    with _signed_in(redis_down_server) as http:
        cookies = [{"name": k, "value": v, "url": redis_down_server} for k, v in http.cookies.items()]
    page.context.add_cookies(cookies)
    page.goto(f"{redis_down_server}/fleet/")
    notice = page.locator("#live-unavailable")
    expect(notice).to_be_visible(timeout=10_000)
    expect(notice).to_contain_text("Live updates are unavailable")
    expect(page.locator("#ws-status")).to_contain_text("disconnected, retrying")
