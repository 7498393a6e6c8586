"""Publishing stored trim events to the browsers watching the fleet (after the commit, never before).

Publishing is best effort by design: the event is already stored and acknowledged, so a channel layer
that is down (Redis restarting) must not fail the ingestion. Callers register these with
``transaction.on_commit(..., robust=True)``, which logs the error; the fleet page reloads its feed
when its socket reconnects.
"""

from __future__ import annotations

from collections.abc import Sequence

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from dashboard.models import TrimEvent

FLEET_GROUP = "fleet"


def event_message(event: TrimEvent) -> dict[str, object]:
    """The group message for one event: everything a live row shows, so consumers need no query."""
    return {
        "type": "fleet.event",
        "id": event.pk,
        "runtime": event.runtime.name,
        "runtime_id": event.runtime_id,
        "session_id": event.session_id,
        "reason": event.reason,
        "dropped_messages": event.dropped_messages,
        "kept_turns": event.kept_turns,
        "tokens_before": event.tokens_before,
        "tokens_after": event.tokens_after,
        "budget": event.budget,
        "overflow_recovery": event.overflow_recovery,
        "shape": event.shape,
        "occurred_at": event.occurred_at.isoformat(),
        "received_at": event.received_at.isoformat(),
    }


def event_publish(event: TrimEvent) -> None:
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(FLEET_GROUP, event_message(event))


BATCH_MESSAGE_EVENTS = 100
"""Events per group message: watchers render and send a batch as one frame."""


def event_publish_many(events: Sequence[TrimEvent]) -> None:
    """A stored batch as few group messages as possible (one render and one frame per watcher each)."""
    layer = get_channel_layer()
    if layer is None or not events:
        return

    async def send_all() -> None:
        for start in range(0, len(events), BATCH_MESSAGE_EVENTS):
            chunk = [event_message(e) for e in events[start : start + BATCH_MESSAGE_EVENTS]]
            await layer.group_send(FLEET_GROUP, {"type": "fleet.events", "events": chunk})

    async_to_sync(send_all)()
