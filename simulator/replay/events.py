"""Typed trim events in replay records, and their wire shapes rendered at the edge.

A ZeroClaw replay records each ``HistoryTrimmed`` the runtime would emit as a :class:`TrimEvent`:
the event, which rule caused it, and the session and time it belongs to. The four wire shapes
ZeroClaw sends it in (gateway WebSocket, SSE/observability, RPC ``SessionUpdateEvent``, ACP
notification; ``simulator/runtimes/zeroclaw/events.py``) are rendered only where they leave the
simulator: the API and CLI JSON, the simulation page, the demo fleet's socket.

The session id is the transcript's own (``None`` when the transcript names none) and the time is the
transcript's time of the call (``None`` when the transcript has no timestamps); the rendered
shapes then say so with ``null`` rather than invent one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, TypeAlias

from simulator.jsonvalue import JSON
from simulator.runtimes.zeroclaw.events import HistoryTrimmed

TrimCause: TypeAlias = Literal["history_cap", "token_budget", "overflow_recovery", "reported_budget"]


@dataclass(frozen=True, slots=True)
class TrimEvent:
    """One ``HistoryTrimmed`` a model call emitted."""

    event: HistoryTrimmed
    cause: TrimCause
    session_id: str | None
    timestamp_ms: int | None
    """The transcript's time of the call in ms since the epoch; ``None`` = unknown."""

    @property
    def timestamp(self) -> str | None:
        """RFC 3339 (UTC, ``Z``) or ``None`` when the transcript has no time for it."""
        if self.timestamp_ms is None:
            return None
        return datetime.fromtimestamp(self.timestamp_ms / 1000, tz=UTC).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class WireShapes:
    """A trim event as each of ZeroClaw's clients receives it."""

    ws: dict[str, JSON]
    sse: dict[str, JSON]
    rpc: dict[str, JSON]
    acp: dict[str, JSON]

    def all(self) -> tuple[dict[str, JSON], ...]:
        return (self.ws, self.sse, self.rpc, self.acp)


def wire_shapes(trim: TrimEvent) -> WireShapes:
    """The four wire shapes of ``trim``, with ``null`` for an unknown session id or time."""
    event = trim.event
    return WireShapes(
        event.to_ws(),
        event.to_sse(trim.timestamp),
        event.to_rpc(trim.session_id),
        event.to_acp(trim.session_id),
    )


def wire_frames(events: tuple[TrimEvent, ...]) -> list[JSON]:
    """Every wire shape of every event, in order (what the JSON reports list under ``events``)."""
    return [frame for trim in events for frame in wire_shapes(trim).all()]
