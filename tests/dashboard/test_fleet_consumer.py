"""``/ws/fleet/``: signed-in users only, one escaped feed row per stored event, filters honoured."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.utils import timezone

from dashboard import services
from dashboard.asgi import application
from dashboard.events import FLEET_GROUP, event_message
from dashboard.models import TrimEvent

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = (b"origin", b"http://localhost")


@database_sync_to_async
def _session_cookie() -> bytes:
    from django.contrib.auth.models import User

    user = User.objects.create_user(username="watcher", password="unused-password-1")
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode()


@database_sync_to_async
def _stored_message(runtime: str, session: str, reason: str, **fields) -> dict[str, object]:
    from dashboard.models import Runtime

    row = Runtime.objects.filter(name=runtime).first() or services.runtime_create(name=runtime)[0]
    event = TrimEvent.objects.create(
        runtime=row,
        shape=TrimEvent.Shape.ENVELOPE,
        session_id=session,
        reason=reason,
        dropped_messages=fields.pop("dropped_messages", 14),
        kept_turns=fields.pop("kept_turns", 3),
        occurred_at=timezone.now(),
        payload={},
        **fields,
    )
    return event_message(TrimEvent.objects.select_related("runtime").get(pk=event.pk))


async def _connect(path: str = "/ws/fleet/", cookie: bytes | None = None) -> WebsocketCommunicator:
    headers = [ORIGIN] + ([(b"cookie", cookie)] if cookie else [])
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def test_anonymous_socket_is_closed_with_4401():
    communicator = await _connect()
    assert await communicator.receive_output(timeout=2) == {"type": "websocket.close", "code": 4401}
    await communicator.wait()


async def test_a_foreign_origin_is_refused():
    communicator = WebsocketCommunicator(
        application, "/ws/fleet/", headers=[(b"origin", b"http://evil.test")]
    )
    connected, _ = await communicator.connect()
    assert not connected


async def test_a_stored_event_arrives_as_an_escaped_out_of_band_row():
    communicator = await _connect(cookie=await _session_cookie())
    message = await _stored_message(
        "alpha",
        '<b id="x">s-1</b>',
        "<script>alert(1)</script>",
        tokens_before=61420,
        tokens_after=38950,
        overflow_recovery="failed",
    )
    await get_channel_layer().group_send(FLEET_GROUP, message)
    html = await communicator.receive_from(timeout=2)
    assert html.startswith('<ol hx-swap-oob="afterbegin:#event-feed">')
    assert f'id="ev-{message["id"]}"' in html
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert '<b id="x">' not in html and "&lt;b id=&quot;x&quot;&gt;s-1&lt;/b&gt;" in html
    assert "61,420 → 38,950 tok (runtime)" in html and "overflow recovery failed" in html
    await communicator.disconnect()


async def test_filters_skip_events_that_do_not_match():
    cookie = await _session_cookie()
    communicator = await _connect("/ws/fleet/?runtime=beta&reason=token+budget", cookie)
    layer = get_channel_layer()
    await layer.group_send(FLEET_GROUP, await _stored_message("alpha", "s-a", "token budget"))
    await layer.group_send(FLEET_GROUP, await _stored_message("beta", "s-b1", "max_history_messages"))
    await layer.group_send(FLEET_GROUP, await _stored_message("beta", "s-b2", "token budget"))
    html = await communicator.receive_from(timeout=2)
    assert "s-b2" in html
    assert await communicator.receive_nothing(timeout=0.3)
    await communicator.disconnect()


async def test_session_filter_and_disconnect_leaves_the_group():
    cookie = await _session_cookie()
    communicator = await _connect("/ws/fleet/?session=s-keep", cookie)
    layer = get_channel_layer()
    await layer.group_send(FLEET_GROUP, await _stored_message("alpha", "s-other", "r"))
    await layer.group_send(FLEET_GROUP, await _stored_message("alpha", "s-keep", "r"))
    assert "s-keep" in await communicator.receive_from(timeout=2)
    await communicator.disconnect()
    await asyncio.sleep(0)
    if isinstance(layer, InMemoryChannelLayer):  # with Redis the group lives in the server
        assert not layer.groups.get(FLEET_GROUP)


async def test_a_stored_batch_arrives_as_one_frame_newest_first_and_escaped():
    """A batch published after commit is rendered once: one frame, newest row on top, all escaped."""
    communicator = await _connect(cookie=await _session_cookie())
    first = await _stored_message("alpha", "s-1", "<i>first</i>")
    second = await _stored_message("alpha", "s-1", "second")
    await get_channel_layer().group_send(FLEET_GROUP, {"type": "fleet.events", "events": [first, second]})
    html = await communicator.receive_from(timeout=2)
    assert html.count("<li") == 2
    assert html.index(f'id="ev-{second["id"]}"') < html.index(f'id="ev-{first["id"]}"')
    assert "<i>first</i>" not in html and "&lt;i&gt;first&lt;/i&gt;" in html
    assert await communicator.receive_nothing(timeout=0.2)
    await communicator.disconnect()
