"""Fleet runtimes (the ``Runtime`` model: agent processes streaming trim events) and their trim events:
tokens, idempotent ingestion, and the live push after commit."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import DataError, IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from dashboard.errors import ApplicationError
from dashboard.events import event_publish, event_publish_many
from dashboard.fleet_schemas import (
    AcpHistoryTrimmed,
    Envelope,
    Frame,
    RpcHistoryTrimmed,
    SseHistoryTrimmed,
    WsHistoryTrimmed,
)
from dashboard.models import Runtime, TrimEvent
from dashboard.services.fleet_rollups import trim_rollups_add
from dashboard.tokens import token_generate, token_hash

logger = logging.getLogger(__name__)


class RuntimeInvalid(ApplicationError, ValueError):
    """A fleet runtime that cannot be registered as asked (422); ``field`` is ``name`` or ``kind``."""

    status = 422

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class RuntimeNameTaken(RuntimeInvalid):
    """Another fleet runtime already has this name (409)."""

    status = 409


def runtime_group(runtime_id: int) -> str:
    """The channel-layer group of one runtime's open sockets (told to close when it is revoked)."""
    return f"runtime-{runtime_id}"


def runtime_create(*, name: str, kind: str = "zeroclaw") -> tuple[Runtime, str]:
    """Register a runtime; returns it and its token, which is shown now and never stored.

    Raises:
        RuntimeInvalid: the name is blank or over 120 characters, or the kind over 40.
        RuntimeNameTaken: another runtime has this name.
    """
    cleaned, kind = name.strip(), kind.strip() or "zeroclaw"
    if not cleaned:
        raise RuntimeInvalid("name", "a runtime needs a name")
    if len(cleaned) > 120:
        raise RuntimeInvalid("name", "a runtime name has at most 120 characters")
    if len(kind) > 40:
        raise RuntimeInvalid("kind", "a runtime kind has at most 40 characters")
    secret = token_generate("rt")
    try:
        with transaction.atomic():
            runtime = Runtime.objects.create(
                name=cleaned,
                kind=kind,
                token_prefix=secret[:10],
                token_hash=token_hash(secret),
            )
    except IntegrityError as exc:
        raise RuntimeNameTaken("name", f"{cleaned!r} is already taken") from exc
    return runtime, secret


def runtime_revoke(*, runtime: Runtime) -> None:
    """Revoke the token; the runtime's open sockets are closed (4401) once the revocation is committed."""
    if runtime.revoked_at is None:
        runtime.revoked_at = timezone.now()
        runtime.save(update_fields=["revoked_at"])
        runtime_id = runtime.pk
        transaction.on_commit(lambda: _publish_revoked(runtime_id), robust=True)


RUNTIME_LAYER = "runtime"
"""Process-local layer of the runtime sockets (see dashboard/consumers/runtime.py)."""


def _publish_revoked(runtime_id: int) -> None:
    # Reaches the sockets of this process at once; the others notice within a second (seen-check).
    layer = get_channel_layer(RUNTIME_LAYER)
    if layer is not None:
        async_to_sync(layer.group_send)(runtime_group(runtime_id), {"type": "runtime.revoked"})


def runtime_seen(*, runtime_id: int) -> bool:
    """Mark a runtime seen now; ``False`` when it has been revoked (or deleted) meanwhile."""
    return (
        Runtime.objects.filter(pk=runtime_id, revoked_at__isnull=True).update(last_seen_at=timezone.now())
        == 1
    )


def runtime_connected(*, runtime_id: int, delta: int) -> None:
    """Count a runtime's open sockets (+1 on connect, -1 on disconnect) and mark it seen."""
    Runtime.objects.filter(pk=runtime_id).update(
        connected=F("connected") + delta, last_seen_at=timezone.now()
    )


@dataclass(frozen=True, slots=True)
class Ingested:
    event: TrimEvent
    created: bool


@dataclass(frozen=True, slots=True)
class IngestFailed:
    """A validated frame the database still refused: reported for that frame alone, nothing stored."""

    message: str


# What a database or its driver raises for one row it cannot hold (a value out of a column's range, text
# it cannot encode) — not OperationalError: a database that is down fails the whole batch, unacked, so
# the runtime resends it later instead of being told its events are bad.
_UNSTORABLE = (DataError, IntegrityError, ValueError, OverflowError)


def _fields(frame: Frame, received: datetime) -> dict[str, object]:
    common: dict[str, object]
    if isinstance(frame, AcpHistoryTrimmed):
        p = frame.params
        return {
            "shape": TrimEvent.Shape.ACP,
            "session_id": p.sessionId,
            "reason": p.reason,
            "dropped_messages": p.droppedMessages,
            "kept_turns": p.keptTurns,
            "occurred_at": received,
        }
    if isinstance(frame, Envelope):
        e = frame.event
        common = {
            "shape": TrimEvent.Shape.ENVELOPE,
            "session_id": frame.session_id,
            "seq": frame.seq,
            "event_id": e.id,
            "occurred_at": frame.sent_at,
            "dropped_turns": e.dropped_turns,
            "tokens_before": e.tokens_before,
            "tokens_after": e.tokens_after,
            "budget": e.budget,
            "trim_target": e.trim_target or "",
            "overflow_recovery": e.overflow_recovery or "",
            "call_number": e.call_number,
            "channel": e.channel or "",
            "agent_alias": e.agent_alias or "",
            "turn_id": e.turn_id or "",
        }
        return {
            **common,
            "reason": e.reason,
            "dropped_messages": e.dropped_messages,
            "kept_turns": e.kept_turns,
        }
    common = {
        "reason": frame.reason,
        "dropped_messages": frame.dropped_messages,
        "kept_turns": frame.kept_turns,
    }
    if isinstance(frame, SseHistoryTrimmed):
        return {
            **common,
            "shape": TrimEvent.Shape.SSE,
            "occurred_at": frame.timestamp,
            "channel": frame.channel or "",
            "agent_alias": frame.agent_alias or "",
            "turn_id": frame.turn_id or "",
        }
    if isinstance(frame, RpcHistoryTrimmed):
        return {
            **common,
            "shape": TrimEvent.Shape.RPC,
            "session_id": frame.session_id,
            "occurred_at": received,
        }
    assert isinstance(frame, WsHistoryTrimmed)
    return {**common, "shape": TrimEvent.Shape.WS, "occurred_at": received}


def trim_event_ingest(
    *, runtime: Runtime, frame: Frame, payload: Mapping[str, object], touch: bool = True
) -> Ingested | IngestFailed:
    """Store one validated frame exactly once and push it to the fleet page after the commit.

    A resend of an envelope (same session and ``seq``) or of an event with the same ``id`` returns the
    row already stored, with ``created=False``: the runtime gets its ack again, nothing is duplicated.
    ``touch=False`` leaves ``last_seen_at`` to the caller (a socket updates it at most once a second).
    A frame the database refuses is an :class:`IngestFailed` (nothing stored).
    """
    with transaction.atomic():  # the event and its rollup counts commit together
        ingested = _store(runtime, frame, payload)
        if isinstance(ingested, Ingested) and ingested.created:
            trim_rollups_add(events=[ingested.event])
    if isinstance(ingested, Ingested) and ingested.created:
        event = ingested.event
        transaction.on_commit(lambda: event_publish(event), robust=True)
        if touch:
            Runtime.objects.filter(pk=runtime.pk).update(last_seen_at=event.received_at)
    return ingested


def trim_events_ingest(
    *, runtime: Runtime, frames: Sequence[tuple[Frame, Mapping[str, object]]]
) -> list[Ingested | IngestFailed]:
    """Store several validated frames in one transaction, each exactly once, in order.

    One commit for a batch is what lets one socket keep up with thousands of events a second; every
    event still gets its own savepoint, so a resend hits the idempotency constraints as it would alone,
    and a frame the database refuses becomes an :class:`IngestFailed` for that frame alone while the
    others are stored. If the database itself fails (the commit), nothing is stored or may be acked.
    The new events are pushed after the commit in one go; ``last_seen_at`` is left to the caller.
    """
    return trim_events_ingest_many(batches=[(runtime, frames)])[0]


def trim_events_ingest_many(
    *, batches: Sequence[tuple[Runtime, Sequence[tuple[Frame, Mapping[str, object]]]]]
) -> list[list[Ingested | IngestFailed]]:
    """Several runtimes' batches in one transaction: the results of each batch, in the batches' order.

    A fleet of runtimes that each send a few events at a time would otherwise pay a commit, the rollup
    upserts and a push per runtime per event; stored together they pay them once. Within a runtime the
    frames keep their order and the idempotency rules of :func:`trim_events_ingest`; a batch with a
    resend or an unstorable frame falls back to a savepoint per event without disturbing the others.
    """
    with transaction.atomic():
        fresh = _store_new([(runtime, f, p) for runtime, frames in batches for f, p in frames])
        results: list[list[Ingested | IngestFailed]] = []
        if fresh is not None:
            rest = iter(fresh)
            results = [[next(rest) for _ in frames] for _, frames in batches]
        else:
            for runtime, frames in batches:
                alone = _store_new([(runtime, f, p) for f, p in frames])
                results.append(alone if alone is not None else [_store(runtime, f, p) for f, p in frames])
        created = [r.event for batch in results for r in batch if isinstance(r, Ingested) and r.created]
        if created:
            trim_rollups_add(events=created)
            transaction.on_commit(lambda: event_publish_many(created), robust=True)
    return results


def _store_new(
    rows_in: Sequence[tuple[Runtime, Frame, Mapping[str, object]]],
) -> list[Ingested | IngestFailed] | None:
    """The common case: one INSERT for all. ``None`` (nothing stored) if any exists already or is refused."""
    received = timezone.now()
    rows = [
        TrimEvent(runtime=runtime, payload=dict(payload), **_fields(frame, received))
        for runtime, frame, payload in rows_in
    ]
    if not rows:
        return []
    try:
        with transaction.atomic():
            TrimEvent.objects.bulk_create(rows)
    except _UNSTORABLE:
        return None
    return [Ingested(row, True) for row in rows]


def _store(runtime: Runtime, frame: Frame, payload: Mapping[str, object]) -> Ingested | IngestFailed:
    received = timezone.now()
    fields = _fields(frame, received)
    try:
        with transaction.atomic():
            event = TrimEvent.objects.create(runtime=runtime, payload=dict(payload), **fields)
    except IntegrityError as exc:
        existing = _existing(runtime, fields)
        if existing is None:
            return _failed(runtime, exc)
        return Ingested(existing, False)
    except _UNSTORABLE as exc:
        return _failed(runtime, exc)
    return Ingested(event, True)


def _failed(runtime: Runtime, exc: Exception) -> IngestFailed:
    # The frame passed the schema, so this is a gap between the schema and the database: log it whole.
    logger.warning("runtime %s: an event the database refused", runtime, exc_info=exc)
    return IngestFailed(f"the database refused this event ({type(exc).__name__}); nothing was stored")


def _existing(runtime: Runtime, fields: dict[str, object]) -> TrimEvent | None:
    rows = TrimEvent.objects.filter(runtime=runtime)
    if fields.get("event_id") is not None:
        found = rows.filter(event_id=fields["event_id"]).first()
        if found is not None:
            return found
    seq, session_id = fields.get("seq"), fields.get("session_id")
    if isinstance(seq, int) and isinstance(session_id, str):
        return rows.filter(session_id=session_id, seq=seq).first()
    return None
