"""``/ws/runtime/``: agent runtimes stream their ``history_trimmed`` events here.

Protocol (one socket per runtime process, token per runtime):

- Auth: ``Authorization: Bearer <token>`` or ``?token=<token>``. Unknown or revoked: the socket is
  accepted and closed at once with 4401 (a client only sees an application close code after the accept);
  a runtime revoked while connected is closed with 4401 too.
- Every text frame gets exactly one reply, in the order the frames were sent: an ack
  ``{"type": "ack", "id", "seq", "event_id", "duplicate"}`` once the event is committed, or an error
  ``{"type": "error", "message", "field"}`` for a frame that is not JSON, not one of the accepted
  shapes, names another runtime in its envelope, or that the database refused (nothing stored, the
  socket stays open and the frames around it are stored). Binary frames get an error reply.
- A frame over ``TRIMSCOPE_MAX_FRAME_BYTES`` closes the socket with 1009; more than
  ``TRIMSCOPE_INGEST_QUEUE`` frames waiting to be stored closes it with 1013 ("try again later"). In
  both cases the frames already queued are stored and answered first, the offending frame and anything
  after it are not; the runtime reconnects and resends what was not acked (envelopes are idempotent).
- A runtime over its ingestion rate (dashboard/services/throttle.py) is closed with 1013 too; the batch
  that went over is not stored or acked.
- A text frame that is not UTF-8 closes with 1007 (daphne would otherwise drop the TCP connection;
  ``dashboard.daphne_patches``, applied at startup, makes it close; it also lets 1009/1011/1013 through).
- An unexpected storage failure closes with 1011; nothing of the failed batch was stored or acked.
- Liveness: while the socket is open ``last_seen_at`` is refreshed every ``HEARTBEAT_SECONDS`` even
  when no frame arrives, so a runtime whose server was killed goes offline by itself (see
  ``dashboard.selectors.fleet_watch.ONLINE_SECONDS``); the ``connected`` counter is informational.

Frames are validated on arrival and stored by one worker task per socket, in batches of what has queued
up (one transaction per batch), so the acks of a busy socket cost one commit, not one each.
"""

from __future__ import annotations

import asyncio
import enum
import json
import logging
from contextlib import suppress
from time import monotonic
from typing import Any
from urllib.parse import parse_qs

from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from dashboard import selectors, services
from dashboard.consumers import db_call, db_call_keeping_connection
from dashboard.fleet_schemas import Frame, FrameError, check_runtime, parse_frame
from dashboard.models import Runtime
from dashboard.services.throttle import ingest_throttle

logger = logging.getLogger(__name__)

CLOSE_INVALID_PAYLOAD = 1007
CLOSE_TOO_BIG = 1009
CLOSE_SERVER_ERROR = 1011
CLOSE_TRY_AGAIN_LATER = 1013
CLOSE_UNAUTHORIZED = 4401

BATCH_MAX = 200  # most frames stored in one transaction
SEEN_EVERY = 1.0  # seconds between last_seen_at updates (and revocation checks) per socket
HEARTBEAT_SECONDS = 20.0  # an idle open socket refreshes last_seen_at this often (online: ONLINE_SECONDS)

Item = tuple[Frame, dict[str, object]] | FrameError


class Phase(enum.Enum):
    """Where an accepted runtime socket is; it only moves down this list (DRAINING may become CLOSING)."""

    OPEN = "open"
    """Frames are taken, stored in order and answered."""
    DRAINING = "draining"
    """A close is due (1009, 1013 queue full): no frame is taken; the queued ones are stored and answered,
    then the socket closes with the due code."""
    CLOSING = "closing"
    """A close is due (4401 revoked, 1013 over the rate, 1011): queued frames are dropped; the socket
    closes with the due code once the worker has let go of what it holds."""
    GONE = "gone"
    """The client left: nothing more is sent; a batch being stored finishes, unacked."""


Stored = list[services.Ingested | services.IngestFailed]


def request_token(scope: dict[str, Any]) -> str:
    """The bearer token of a socket's handshake: the ``Authorization`` header, else ``?token=``."""
    headers: list[tuple[bytes, bytes]] = scope.get("headers", [])
    for name, value in headers:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer":
                return token.strip()
    query_string: bytes = scope.get("query_string", b"")
    return parse_qs(query_string.decode("latin-1")).get("token", [""])[0]


def frame_read(text: str) -> Item:
    """Decode and validate one text frame: the frame and its payload, or the error to reply with."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:  # RecursionError: absurdly deep nesting
        return FrameError(f"not JSON: {exc}")
    try:
        return parse_frame(data), data
    except FrameError as exc:
        return exc


def _too_big(text: str, limit: int) -> bool:
    # len() counts characters; only encode when the characters alone could be over the byte limit.
    return len(text) > limit or (len(text) * 4 > limit and len(text.encode("utf-8", "surrogatepass")) > limit)


def _reply(item: Item, stored: services.Ingested | services.IngestFailed | None) -> str:
    if isinstance(item, FrameError):
        return json.dumps({"type": "error", "message": item.message, "field": item.field or None})
    if isinstance(stored, services.IngestFailed):
        return json.dumps({"type": "error", "message": stored.message, "field": None})
    assert stored is not None
    event = stored.event
    return json.dumps(
        {
            "type": "ack",
            "id": event.pk,
            "seq": event.seq,
            "event_id": event.event_id,
            "duplicate": not stored.created,
        }
    )


@db_call
def _authenticate(token: str) -> Runtime | None:
    return selectors.runtime_authenticate(token=token)


@db_call
def _connected(runtime_id: int, delta: int) -> None:
    services.runtime_connected(runtime_id=runtime_id, delta=delta)


@db_call
def _seen(runtime_id: int) -> bool:
    return services.runtime_seen(runtime_id=runtime_id)


Request = tuple[Runtime, list[tuple[Frame, dict[str, object]]], bool]


@db_call_keeping_connection
def _store_all(requests: list[Request]) -> list[Stored | int]:
    """Store the batches of several sockets in one transaction; per batch its results, or a close code
    (nothing of it stored): 4401 revoked, 1013 over its runtime's ingestion rate."""
    outcomes: list[Stored | int | None] = []  # None: stored below
    accepted: list[tuple[Runtime, list[tuple[Frame, dict[str, object]]]]] = []
    for runtime, frames, seen in requests:
        if seen and not services.runtime_seen(runtime_id=runtime.pk):
            outcomes.append(CLOSE_UNAUTHORIZED)
        elif ingest_throttle(runtime_id=runtime.pk, events=len(frames)) > 0:
            outcomes.append(CLOSE_TRY_AGAIN_LATER)
        else:
            outcomes.append(None)
            accepted.append((runtime, frames))
    stored = iter(services.trim_events_ingest_many(batches=accepted) if accepted else [])
    return [next(stored) if outcome is None else outcome for outcome in outcomes]


class _Writer:
    """One storing task per process for every runtime socket: the batches that queue up while a
    transaction is in flight are stored together in the next one.

    With many runtimes each sending a few events at a time, a transaction per socket batch makes the
    commit (and the connection set-up, the rollup upserts and the push to the browsers) the bottleneck:
    measured on 2 cores, 20 runtimes at 50 events/s each fell seconds behind. Sharing the transaction
    keeps per-event work flat however the load is spread. A socket still waits for its own batch's
    commit before it acks, so nothing is acked that is not stored.
    """

    MAX_FRAMES = 2_000  # most frames in one shared transaction

    def __init__(self) -> None:
        self._pending: list[tuple[Request, asyncio.Future[Stored | int]]] = []
        self._task: asyncio.Task[None] | None = None

    async def store(
        self, runtime: Runtime, frames: list[tuple[Frame, dict[str, object]]], seen: bool
    ) -> Stored | int:
        future: asyncio.Future[Stored | int] = asyncio.get_running_loop().create_future()
        self._pending.append(((runtime, frames, seen), future))
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        while self._pending:
            take, frames = 0, 0
            while take < len(self._pending) and (take == 0 or frames < self.MAX_FRAMES):
                frames += len(self._pending[take][0][1])
                take += 1
            batch, self._pending = self._pending[:take], self._pending[take:]
            try:
                outcomes = await _store_all([request for request, _ in batch])
            except Exception as exc:  # noqa: BLE001  # every waiting socket reports it (and closes 1011)
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for (_, future), outcome in zip(batch, outcomes, strict=True):
                if not future.done():
                    future.set_result(outcome)


_writers: dict[asyncio.AbstractEventLoop, _Writer] = {}


def _writer() -> _Writer:
    # One per event loop: tests run each async test in a loop of its own.
    loop = asyncio.get_running_loop()
    writer = _writers.get(loop)
    if writer is None:
        for stale in [other for other in _writers if other.is_closed()]:
            del _writers[stale]
        writer = _writers[loop] = _Writer()
    return writer


class RuntimeConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels ships no type information
    # Ingestion must not depend on Redis: a consumer dies with its channel layer, so the runtime sockets
    # listen on a process-local layer (revocations from this process arrive at once, from other
    # workers through the once-a-second seen-check). The live push uses the shared layer, best effort.
    channel_layer_alias = "runtime"
    runtime: Runtime | None = None

    async def dispatch(self, message: dict[str, Any]) -> None:
        if message["type"] == "websocket.receive":
            # channels closes stale DB connections (a hop to the DB thread) before every handler; receive()
            # does no DB work, and that hop would queue each incoming frame behind the batch being stored.
            await self.websocket_receive(message)
        else:
            await super().dispatch(message)

    async def connect(self) -> None:
        self.runtime = await _authenticate(request_token(self.scope))
        if self.runtime is None:
            await self.accept()
            await self.close(code=CLOSE_UNAUTHORIZED)
            return
        self._limit: int = settings.TRIMSCOPE_MAX_FRAME_BYTES
        self._queue: asyncio.Queue[Item] = asyncio.Queue(maxsize=max(1, settings.TRIMSCOPE_INGEST_QUEUE))
        self._phase = Phase.OPEN
        self._close_code: int | None = None  # the code a DRAINING or CLOSING socket closes with
        self._busy = False  # the worker holds frames taken off the queue
        await _connected(self.runtime.pk, 1)
        self._seen_at = monotonic()
        self._group = services.runtime_group(self.runtime.pk)
        await self.channel_layer.group_add(self._group, self.channel_name)
        self._worker = asyncio.create_task(self._work_or_close())
        self._heartbeat = asyncio.create_task(self._beat())
        await self.accept()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.runtime is None or self._phase is not Phase.OPEN:
            return
        if text_data is None:
            item: Item = FrameError("frames are text JSON; binary frames are not accepted")
        elif _too_big(text_data, self._limit):
            await self._stop(CLOSE_TOO_BIG, drain=True)
            return
        else:
            item = frame_read(text_data)
            if not isinstance(item, FrameError):
                item = check_runtime(item, self.runtime.name)
        try:
            self._queue.put_nowait(item)
        except asyncio.QueueFull:
            await self._stop(CLOSE_TRY_AGAIN_LATER, drain=True)

    async def runtime_revoked(self, message: dict[str, Any]) -> None:
        await self._stop(CLOSE_UNAUTHORIZED, drain=False)

    async def disconnect(self, code: int) -> None:
        if self.runtime is None:
            return
        self._phase = Phase.GONE
        self._heartbeat.cancel()
        if not self._busy:
            self._worker.cancel()
        # A batch being stored finishes (it may commit, unacked: the runtime resends it after reconnecting).
        with suppress(asyncio.CancelledError):
            await self._worker
        await self.channel_layer.group_discard(self._group, self.channel_name)
        await _connected(self.runtime.pk, -1)

    async def _stop(self, code: int, *, drain: bool) -> None:
        if self._phase is not Phase.OPEN:
            return
        self._phase, self._close_code = (Phase.DRAINING if drain else Phase.CLOSING), code
        if not self._busy and self._queue.empty():
            self._worker.cancel()
            await self.close(code=code)
        # Otherwise the worker closes once it has answered what it holds (and, with drain, the queue).

    async def _beat(self) -> None:
        # Keeps the runtime online while the socket is open and idle; a killed server stops beating.
        runtime = self.runtime
        assert runtime is not None  # started after the token was accepted
        while not self._left():
            await asyncio.sleep(HEARTBEAT_SECONDS)
            if monotonic() - self._seen_at < HEARTBEAT_SECONDS:
                continue  # a batch marked it seen meanwhile
            try:
                alive = await _seen(runtime.pk)
            except Exception:  # the database is briefly unreachable: try again at the next beat
                logger.warning("heartbeat of runtime %s failed", runtime, exc_info=True)
                continue
            self._seen_at = monotonic()
            if not alive:
                await self._stop(CLOSE_UNAUTHORIZED, drain=False)
                return

    def _in(self, phase: Phase) -> bool:
        # A method, not the attribute: the phase may change during any await of the worker.
        return self._phase is phase

    def _left(self) -> bool:
        return self._in(Phase.GONE)

    def _close_now(self, code: int) -> None:
        # The worker's own stop (storage failed, revoked, over the rate): queued frames are dropped.
        if self._phase is not Phase.GONE:
            self._phase, self._close_code = Phase.CLOSING, code

    async def _work_or_close(self) -> None:
        try:
            await self._work()
        except Exception:
            # A worker that died silently would leave the socket open with no reply ever coming.
            logger.exception("runtime socket worker failed")
            if not self._left():
                await self.close(code=CLOSE_SERVER_ERROR)

    async def _work(self) -> None:
        assert self.runtime is not None
        queue = self._queue
        while not self._left():
            if self._in(Phase.CLOSING) or (self._in(Phase.DRAINING) and queue.empty()):
                await self.close(code=self._close_code)
                return
            self._busy = False
            items = [await queue.get()]
            self._busy = True
            if self._in(Phase.CLOSING):
                continue
            while len(items) < BATCH_MAX and not queue.empty():
                items.append(queue.get_nowait())
            frames = [item for item in items if not isinstance(item, FrameError)]
            stored: Stored = []
            if frames:
                now = monotonic()
                seen = now - self._seen_at >= SEEN_EVERY
                try:
                    result = await _writer().store(self.runtime, frames, seen)
                except Exception:
                    logger.exception("storing %d frames from runtime %s failed", len(frames), self.runtime)
                    self._close_now(CLOSE_SERVER_ERROR)
                    continue
                if isinstance(result, int):
                    self._close_now(result)
                    continue
                stored = result
                if seen:
                    self._seen_at = now
            if self._left():
                return
            answers = iter(stored)
            for item in items:
                await self.send(
                    text_data=_reply(item, None if isinstance(item, FrameError) else next(answers))
                )
