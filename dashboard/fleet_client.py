"""A runtime's side of ``/ws/runtime/``: send trim events, keep every unacknowledged one, resend after a drop.

Guarantees (with a server that stores each frame once per runtime + session + ``seq`` and acks only
after the commit):

* every envelope given to :meth:`RuntimeClient.send` is kept until the server acks it, and is resent on
  every new connection until then — so nothing sent is lost while the process lives;
* resending is safe: the server deduplicates on runtime + session + ``seq`` (and on ``event.id``);
  the client counts each envelope as acked once, however many acks it gets;
* ``seq`` is taken from one counter per client, so it increases within every session and is unique
  across the client's sessions (an ack names only ``seq``, so this is what matches an ack to its envelope);
* a dropped connection or a ``1013`` close is retried with capped exponential backoff with jitter; the
  backoff only resets once a connection made progress (got an ack), so a server that keeps answering
  ``1013`` is not hammered;
* a rejected token (close ``4401``, or HTTP 401/403 at the handshake) stops the client: resending cannot
  help, :meth:`send` and :meth:`drain` raise :class:`RuntimeClientClosed`;
* an envelope the server rejects as invalid (an error frame naming its ``seq``) or that closed the
  socket as too large (``1009``: the largest unacked one is assumed) is dropped and kept in
  :attr:`RuntimeClient.rejected` instead of being resent forever. Envelopes are validated locally with
  :func:`dashboard.fleet_schemas.parse_frame` before they are queued, so this should not happen.

Memory is bounded: :meth:`send` waits while ``max_pending`` envelopes are unacknowledged.
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
        self._by_seq: dict[int, Key] = {}
        self._written: set[Key] = set()
        self._queue: deque[Key] = deque()
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
        self._by_seq.setdefault(key[1], key)
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
                    self._reject_largest("frame too large (close 1009)")
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
        """Run one connection: resend everything unacked, then send and read acks until it drops.

        Raises:
            ConnectionClosed: always, when the connection ends (its close code decides what next).
        """
        self.counters.connects += 1
        if self.counters.connects > 1:
            self.counters.reconnects += 1
        self._ws = ws
        self._queue = deque(self._pending)  # oldest first; later sends append
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
            while self._queue:
                key = self._queue.popleft()
                frame = self._pending.get(key)
                if frame is None:
                    continue  # acked meanwhile
                if key in self._written:
                    self.counters.resent += 1
                self._written.add(key)
                self.counters.frames += 1
                await ws.send(json.dumps(frame, separators=(",", ":")))
            self._wake.clear()
            await self._wake.wait()

    def _handle(self, raw: str | bytes) -> None:
        try:
            message = json.loads(raw)
        except ValueError:
            logger.warning("runtime client %s: unreadable reply %r", self.url, raw[:200])
            return
        if not isinstance(message, dict):
            return
        kind = message.get("type")
        if kind == "ack":
            key = self._by_seq.get(message.get("seq"))  # type: ignore[arg-type]  # None misses
            self._progressed = True
            if message.get("duplicate"):
                self.counters.duplicates += 1
            if key is None or key not in self._pending:
                return  # an ack for something acked already (a resend raced the first ack)
            self._settle(key)
            self.counters.acked += 1
            return
        if kind == "error":
            self.counters.errors += 1
            text = f"{message.get('message', '')} ({message.get('field', '')})"
            self.last_error = text
            logger.warning("runtime client %s: server error: %s", self.url, text)
            key = self._by_seq.get(message.get("seq"))  # type: ignore[arg-type]
            if key is not None and key in self._pending:
                self.rejected.append((self._pending[key], text))
                self._settle(key)

    def _settle(self, key: Key) -> None:
        self._pending.pop(key, None)
        self._written.discard(key)
        if self._by_seq.get(key[1]) == key:
            del self._by_seq[key[1]]
            # another session's envelope with the same (caller-chosen) seq can now be matched
            for other in self._pending:
                if other[1] == key[1]:
                    self._by_seq[key[1]] = other
                    break
        self._signal()

    def _reject_largest(self, text: str) -> None:
        self.counters.errors += 1
        written = [k for k in self._pending if k in self._written]
        if not written:
            return
        key = max(written, key=lambda k: len(json.dumps(self._pending[k])))
        self.rejected.append((self._pending[key], text))
        self._settle(key)
