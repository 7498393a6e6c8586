"""A runtime's side of ``/ws/runtime/``: send trim events, keep every unacknowledged one, resend after a drop.

The server (``dashboard.consumers.runtime``) answers every frame exactly once, in the order the frames
were sent: an ack after the commit, or an error frame for a frame it will never store. The client pairs
replies with frames by that order (and checks the ack's ``seq``).

Guarantees, as long as the process lives:

* every envelope given to :meth:`RuntimeClient.send` is kept until the server acks it, and is resent on
  every new connection until then — nothing sent is lost;
* resending is safe: the server stores each envelope once per runtime + session + ``seq`` (and
  ``event.id``) and acks a resend as a duplicate; the client counts each envelope as acked once;
* ``seq`` (when the caller leaves it out) comes from one counter per client, so it increases within
  every session;
* a dropped connection, a failed connect, ``1011`` or ``1013`` is retried with capped exponential backoff
  with jitter; the backoff resets only after a connection made progress (an ack) and never after a
  ``1013``, so an overloaded server is not hammered;
* a rejected token (close ``4401``, or HTTP 401/403 at the handshake) stops the client: resending cannot
  help, so :meth:`send` and :meth:`drain` raise :class:`RuntimeClientClosed`;
* an envelope the server refuses (an error frame, or the frame a ``1009`` close was about — the first
  unanswered one) is dropped into :attr:`RuntimeClient.rejected` instead of being resent forever.
  Envelopes are validated locally with :func:`dashboard.fleet_schemas.parse_frame` first, so this is rare.

Memory and the server's queue are bounded: :meth:`send` waits while ``max_pending`` envelopes are
unacknowledged, and at most ``max_in_flight`` frames are unanswered on the socket at any time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
from collections import OrderedDict, deque
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.typing import Origin

from dashboard.fleet_schemas import parse_frame

logger = logging.getLogger(__name__)

RUNTIME_PATH = "/ws/runtime/"
CLOSE_TOO_LARGE = 1009
CLOSE_TRY_AGAIN = 1013
CLOSE_BAD_TOKEN = 4401

Key = tuple[str, int]


class RuntimeClientClosed(RuntimeError):
    """The client has stopped: closed by its owner, or the server refused its token."""


def runtime_ws_url(url: str) -> str:
    """``http(s)://host[:port][/...]`` or ``ws(s)://...`` → the ``ws(s)://host[:port]/ws/runtime/`` URL.

    A URL that already ends in ``/ws/runtime/`` keeps its path (and query); any other path is replaced.
    """
    parts = urlsplit(url.strip())
    scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}.get(parts.scheme.lower())
    if scheme is None or not parts.netloc:
        raise ValueError(f"expected an http(s):// or ws(s):// URL, got {url!r}")
    if parts.path.rstrip("/") == RUNTIME_PATH.rstrip("/"):
        return urlunsplit((scheme, parts.netloc, RUNTIME_PATH, parts.query, ""))
    return urlunsplit((scheme, parts.netloc, RUNTIME_PATH, "", ""))


def backoff_delay(
    attempt: int, *, initial: float, maximum: float, jitter: float, rng: random.Random
) -> float:
    """Delay before retry ``attempt`` (1-based): ``initial * 2**(attempt-1)`` capped, then jittered.

    ``jitter`` is a fraction: the delay is drawn uniformly from ``[d * (1 - jitter), d]``.
    """
    base = min(maximum, initial * 2.0 ** max(0, attempt - 1))
    return base * (1 - jitter * rng.random())


@dataclass(slots=True)
class ClientCounters:
    sent: int = 0
    """Envelopes accepted by :meth:`RuntimeClient.send` (each counted once)."""
    frames: int = 0
    """Frames written to a socket, resends included."""
    resent: int = 0
    """Frames written again after a reconnect."""
    acked: int = 0
    """Envelopes acknowledged (each counted once)."""
    duplicates: int = 0
    """Acks the server marked ``duplicate`` (it had stored the envelope already)."""
    connects: int = 0
    reconnects: int = 0
    """Connections opened after the first one."""
    connect_failures: int = 0
    errors: int = 0
    """Error frames and ``1009`` closes from the server."""
    overloaded: int = 0
    """``1013`` closes."""

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.__slots__}


class RuntimeClient:
    """Keeps one WebSocket to ``/ws/runtime/`` and delivers every envelope at least once, acked once.

    Use as ``async with RuntimeClient(url, token) as client: await client.send(...); await client.drain()``.
    """

    def __init__(
        self,
        url: str,
        token: str,
        *,
        runtime: str | None = None,
        backoff_initial: float = 0.5,
        backoff_max: float = 15.0,
        jitter: float = 0.5,
        open_timeout: float = 10.0,
        max_pending: int = 10_000,
        max_in_flight: int = 200,
        rng: random.Random | None = None,
    ) -> None:
        self.url = runtime_ws_url(url)
        self.runtime = runtime
        self.counters = ClientCounters()
        self.rejected: list[tuple[dict[str, Any], str]] = []
        """Envelopes the server refused for good, with its message."""
        self.last_error: str = ""
        self._token = token
        self._backoff = (backoff_initial, backoff_max, jitter)
        self._open_timeout = open_timeout
        self._max_pending = max_pending
        self._rng = rng or random.Random()
        self._seq = 0
        self._pending: OrderedDict[Key, dict[str, Any]] = OrderedDict()
        self._written: set[Key] = set()
        self._queue: deque[Key] = deque()
        self._inflight: deque[Key] = deque()
        """Frames written on the current connection and not answered yet, oldest first."""
        self._max_in_flight = max_in_flight
        self._ws: ClientConnection | None = None
        self._wake = asyncio.Event()
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._failure: BaseException | None = None
        self._closing = False
        self._progressed = False
        self.last_delay = 0.0
        """The last backoff delay slept, in seconds."""

    # -- public ----------------------------------------------------------------------------------

    @property
    def pending(self) -> int:
        """Envelopes not acknowledged yet."""
        return len(self._pending)

    @property
    def connected(self) -> bool:
        return self._ws is not None

    def start(self) -> None:
        """Start the connection task (``send`` does it on first use)."""
        self._check_open()
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name=f"runtime-client {self.url}"
            )

    async def send(self, envelope: Mapping[str, Any]) -> int:
        """Queue one Trimscope envelope; returns its ``seq``.

        ``seq`` and ``sent_at`` are filled in when missing (``runtime`` too, when the client has one).
        Waits while ``max_pending`` envelopes are unacknowledged.

        Raises:
            FrameError: the envelope is not a valid Trimscope envelope.
            RuntimeClientClosed: the client was closed or its token refused.
        """
        self._check_open()
        self.start()
        while len(self._pending) >= self._max_pending:
            await self._wait_change()
            self._check_open()
        frame = dict(envelope)
        if "seq" not in frame:
            self._seq += 1
            frame["seq"] = self._seq
        else:
            self._seq = max(self._seq, int(frame["seq"]))
        frame.setdefault("sent_at", datetime.now(UTC).isoformat())
        if self.runtime is not None:
            frame.setdefault("runtime", self.runtime)
        parse_frame(frame)  # refuse locally what the server would refuse
        key: Key = (str(frame["session_id"]), int(frame["seq"]))
        if key in self._pending:
            raise ValueError(f"session {key[0]!r} seq {key[1]} is already waiting for its ack")
        self._pending[key] = frame
        self.counters.sent += 1
        if self._ws is not None:
            self._queue.append(key)
            self._wake.set()
        return key[1]

    async def drain(self, timeout: float | None = None) -> None:
        """Wait until everything sent so far is acknowledged (or rejected).

        Raises:
            TimeoutError: ``timeout`` seconds passed first.
            RuntimeClientClosed: the client stopped with envelopes still unacknowledged.
        """
        async with asyncio.timeout(timeout):
            while self._pending:
                self._check_open()
                await self._wait_change()

    async def close(self) -> None:
        """Stop now; what is still unacknowledged stays in :attr:`pending` (see :meth:`drain` first)."""
        self._closing = True
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._ws = None
        self._signal()

    async def __aenter__(self) -> RuntimeClient:
        self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- internals -------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._failure is not None:
            raise RuntimeClientClosed(str(self._failure)) from self._failure
        if self._closing:
            raise RuntimeClientClosed("the client is closed")

    def _signal(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def _wait_change(self) -> None:
        changed = self._changed
        task = self._task
        if task is not None and task.done():
            self._check_open()
        await changed.wait()

    def _fail(self, message: str) -> None:
        self._failure = RuntimeClientClosed(message)
        self.last_error = message
        logger.error("runtime client %s: %s", self.url, message)
        self._signal()

    async def _run(self) -> None:
        try:
            await self._connect_loop()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug must not leave drain() waiting forever
            self._fail(f"stopped: {type(exc).__name__}: {exc}")
            raise

    async def _connect_loop(self) -> None:
        attempt = 0
        while not self._closing:
            self._progressed = False
            try:
                async with connect(
                    self.url,
                    additional_headers={"Authorization": f"Bearer {self._token}"},
                    origin=Origin(self._origin()),
                    open_timeout=self._open_timeout,
                    proxy=None,
                ) as ws:
                    await self._serve(ws)
            except InvalidStatus as exc:
                status = exc.response.status_code
                if status in (401, 403):
                    self._fail(f"the server refused the token (HTTP {status})")
                    return
                self._connect_failed(f"handshake refused: HTTP {status}")
            except ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else None
                if code == CLOSE_BAD_TOKEN:
                    self._fail("the server refused the token (close 4401)")
                    return
                if code == CLOSE_TRY_AGAIN:
                    self.counters.overloaded += 1
                    self._progressed = False  # back off even if some acks came in
                elif code == CLOSE_TOO_LARGE:
                    self._reject_first_unanswered("frame too large (close 1009)")
                self.last_error = f"connection closed ({code})"
            except (OSError, TimeoutError, InvalidHandshake) as exc:
                self._connect_failed(f"{type(exc).__name__}: {exc}")
            finally:
                self._ws = None
            if self._stopping():
                return
            attempt = 1 if self._progressed else attempt + 1
            initial, maximum, jitter = self._backoff
            delay = backoff_delay(attempt, initial=initial, maximum=maximum, jitter=jitter, rng=self._rng)
            self.last_delay = delay
            logger.debug("runtime client %s: retry in %.3fs (%s)", self.url, delay, self.last_error)
            await asyncio.sleep(delay)

    def _stopping(self) -> bool:
        return self._closing  # a method, so the type checker does not assume it unchanged across awaits

    def _origin(self) -> str:
        parts = urlsplit(self.url)
        return urlunsplit(("https" if parts.scheme == "wss" else "http", parts.netloc, "", "", ""))

    def _connect_failed(self, message: str) -> None:
        self.counters.connect_failures += 1
        self.last_error = message

    async def _serve(self, ws: ClientConnection) -> None:
        """Run one connection: resend everything unacked, then send and read replies until it drops.

        Raises:
            ConnectionClosed: always, when the connection ends (its close code decides what next).
        """
        self.counters.connects += 1
        if self.counters.connects > 1:
            self.counters.reconnects += 1
        self._ws = ws
        self._queue = deque(self._pending)  # oldest first; later sends append
        self._inflight = deque()
        self._wake.set()
        writer = asyncio.create_task(self._write(ws))
        try:
            while True:
                self._handle(await ws.recv())
        finally:
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionClosed):
                await writer

    async def _write(self, ws: ClientConnection) -> None:
        while True:
            while self._queue and len(self._inflight) < self._max_in_flight:
                key = self._queue.popleft()
                frame = self._pending.get(key)
                if frame is None:
                    continue  # acked meanwhile
                if key in self._written:
                    self.counters.resent += 1
                self._written.add(key)
                self._inflight.append(key)
                self.counters.frames += 1
                await ws.send(json.dumps(frame, separators=(",", ":")))
            self._wake.clear()
            await self._wake.wait()

    def _handle(self, raw: str | bytes) -> None:
        """One reply: the server answers every frame once, in the order the frames were sent."""
        try:
            message = json.loads(raw)
        except ValueError:
            logger.warning("runtime client %s: unreadable reply %r", self.url, raw[:200])
            return
        kind = message.get("type") if isinstance(message, dict) else None
        if kind not in ("ack", "error"):
            logger.warning("runtime client %s: unexpected reply %r", self.url, raw[:200])
            return
        key = self._inflight.popleft() if self._inflight else None
        self._wake.set()  # room in the window
        if kind == "ack":
            self._progressed = True
            if key is None or key[1] != message.get("seq"):
                # Not the reply order the protocol promises: fall back to the seq it names.
                logger.warning("runtime client %s: ack out of order %r", self.url, message)
                key = next((k for k in self._pending if k[1] == message.get("seq")), None)
            if message.get("duplicate"):
                self.counters.duplicates += 1
            if key is not None and key in self._pending:
                self._settle(key)
                self.counters.acked += 1
            return
        self.counters.errors += 1
        text = f"{message.get('message', '')} (field: {message.get('field') or '-'})"
        self.last_error = text
        logger.warning("runtime client %s: server refused a frame: %s", self.url, text)
        if key is not None and key in self._pending:
            self.rejected.append((self._pending[key], text))
            self._settle(key)

    def _settle(self, key: Key) -> None:
        self._pending.pop(key, None)
        self._written.discard(key)
        self._signal()

    def _reject_first_unanswered(self, text: str) -> None:
        # 1009: the server answered every frame before the oversized one, and none after it.
        self.counters.errors += 1
        key = self._inflight[0] if self._inflight else None
        if key is not None and key in self._pending:
            self.rejected.append((self._pending[key], text))
            self._settle(key)
