"""``/ws/fleet/``: the fleet page's live feed.

Signed-in users only (session cookie through ``AuthMiddlewareStack``); anyone else is accepted and closed
at once with 4401, so the browser sees the application close code. The socket lives as long as its
session: it closes with 4401 on sign-out and when the session expires or is deleted (dashboard.sessions).
When the channel layer (Redis) cannot be reached the handshake still succeeds: the socket sends a notice
that live updates are unavailable and closes with 1013, which the htmx ws extension retries with backoff.

The socket joins the ``fleet`` group and turns every ``fleet.event`` message
(``dashboard.events.event_message``) into one escaped feed row, wrapped for an out-of-band ``afterbegin``
swap into ``#event-feed`` by the htmx ws extension. The page's filters come as query parameters
(``?runtime=&session=&reason=``); events that do not match are skipped.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.template.loader import render_to_string
from redis.exceptions import RedisError

from dashboard import presenters, selectors
from dashboard.events import FLEET_GROUP
from dashboard.sessions import session_group, session_seconds_left

logger = logging.getLogger(__name__)

CLOSE_UNAUTHORIZED = 4401
CLOSE_TRY_AGAIN_LATER = 1013
UNAVAILABLE_TEMPLATE = "dashboard/fleet.html#live-unavailable-oob"
# A channel layer that cannot be reached: Redis refusing, timing out or answering an error.
LAYER_DOWN = (OSError, RedisError)
ROW_TEMPLATE = "dashboard/fleet.html#event-oob"
ROWS_TEMPLATE = "dashboard/fleet.html#events-oob"


class FleetConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels ships no type information
    groups_joined: tuple[str, ...] = ()
    filters = selectors.FleetFilters()
    session_watch: asyncio.Task[None] | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        session = self.scope.get("session")
        session_key = session.session_key if session is not None else None
        await self.accept()
        if user is None or not user.is_authenticated or not session_key:
            await self.close(code=CLOSE_UNAUTHORIZED)
            return
        query: bytes = self.scope.get("query_string", b"")
        params = {k: v[-1] for k, v in parse_qs(query.decode("latin-1")).items()}
        self.filters = selectors.fleet_filters(params)
        groups = (FLEET_GROUP, session_group(session_key))
        try:
            for group in groups:
                await self.channel_layer.group_add(group, self.channel_name)
        except LAYER_DOWN:
            logger.warning("fleet feed: channel layer unreachable, live updates unavailable", exc_info=True)
            await self.send(text_data=render_to_string(UNAVAILABLE_TEMPLATE))
            await self.close(code=CLOSE_TRY_AGAIN_LATER)
            return
        self.groups_joined = groups
        self.session_watch = asyncio.create_task(self._watch_session(session_key, user.pk))

    async def disconnect(self, code: int) -> None:
        if self.session_watch is not None and self.session_watch is not asyncio.current_task():
            self.session_watch.cancel()
        self.session_watch = None
        groups, self.groups_joined = self.groups_joined, ()
        for group in groups:
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except LAYER_DOWN:
                return  # nothing to leave: the layer's memberships expire on their own

    async def _watch_session(self, session_key: str, user_id: int) -> None:
        """Close the socket once its session no longer signs the user in (expired, deleted, replaced)."""
        interval: float = settings.TRIMSCOPE_SESSION_CHECK_SECONDS
        while True:
            try:
                left = await database_sync_to_async(session_seconds_left)(
                    session_key=session_key, user_id=user_id
                )
            except Exception:  # noqa: BLE001  # a database hiccup: ask again at the next check
                logger.warning("fleet feed: could not check the session", exc_info=True)
                await asyncio.sleep(interval)
                continue
            if left is None:
                await self.close(code=CLOSE_UNAUTHORIZED)
                return
            await asyncio.sleep(min(interval, left + 0.1))

    async def fleet_session_ended(self, message: dict[str, Any]) -> None:
        await self.close(code=CLOSE_UNAUTHORIZED)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # The feed is one-way; anything the page sends is ignored.
        return

    async def fleet_event(self, message: dict[str, Any]) -> None:
        row = presenters.feed_row_from_message(message)
        if selectors.feed_row_matches(row, self.filters):
            await self.send(text_data=render_to_string(ROW_TEMPLATE, {"row": row}))

    async def fleet_events(self, message: dict[str, Any]) -> None:
        """A stored batch: one frame with all its matching rows (newest first), one render."""
        rows = [presenters.feed_row_from_message(m) for m in message["events"]]
        rows = [row for row in rows if selectors.feed_row_matches(row, self.filters)]
        if rows:
            await self.send(text_data=render_to_string(ROWS_TEMPLATE, {"rows": rows[::-1]}))
