"""``/ws/fleet/``: the fleet page's live feed.

Signed-in users only (session cookie through ``AuthMiddlewareStack``); anyone else is accepted and closed
at once with 4401, so the browser sees the application close code. The socket joins the ``fleet`` group
and turns every ``fleet.event`` message (``dashboard.events.event_message``) into one escaped feed row,
wrapped for an out-of-band ``afterbegin`` swap into ``#event-feed`` by the htmx ws extension. The page's
filters come as query parameters (``?runtime=&session=&reason=``); events that do not match are skipped.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string

from dashboard import selectors
from dashboard.events import FLEET_GROUP

CLOSE_UNAUTHORIZED = 4401
ROW_TEMPLATE = "dashboard/fleet.html#event-oob"
ROWS_TEMPLATE = "dashboard/fleet.html#events-oob"


class FleetConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels ships no type information
    joined = False
    filters = selectors.FleetFilters()

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.accept()
            await self.close(code=CLOSE_UNAUTHORIZED)
            return
        query: bytes = self.scope.get("query_string", b"")
        params = {k: v[-1] for k, v in parse_qs(query.decode("latin-1")).items()}
        self.filters = selectors.fleet_filters(params)
        await self.channel_layer.group_add(FLEET_GROUP, self.channel_name)
        self.joined = True
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.joined:
            await self.channel_layer.group_discard(FLEET_GROUP, self.channel_name)
            self.joined = False

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # The feed is one-way; anything the page sends is ignored.
        return

    async def fleet_event(self, message: dict[str, Any]) -> None:
        row = selectors.feed_row_from_message(message)
        if selectors.feed_row_matches(row, self.filters):
            await self.send(text_data=render_to_string(ROW_TEMPLATE, {"row": row}))

    async def fleet_events(self, message: dict[str, Any]) -> None:
        """A stored batch: one frame with all its matching rows (newest first), one render."""
        rows = [selectors.feed_row_from_message(m) for m in message["events"]]
        rows = [row for row in rows if selectors.feed_row_matches(row, self.filters)]
        if rows:
            await self.send(text_data=render_to_string(ROWS_TEMPLATE, {"rows": rows[::-1]}))
