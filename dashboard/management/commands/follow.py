"""``manage.py follow URL --token T``: pull a ZeroClaw gateway's ``history_trimmed`` events into a runtime.

Subscribes to the gateway's event stream — Server-Sent Events (``text/event-stream``, ``data: {...}``)
or a WebSocket (``ws(s)://``), both with ``Authorization: Bearer T`` — and stores every frame whose type
is ``history_trimmed`` (any accepted wire shape, validated with :func:`parse_frame`) through
:func:`trim_event_ingest`. Other event types are skipped; an invalid frame is reported and skipped.
A dropped stream, an error or the end of the stream is retried with capped exponential backoff with
jitter; an SSE stream is resumed with ``Last-Event-ID`` when the gateway numbers its events.
A refused token (HTTP 401/403) stops the command: retrying cannot help.
"""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO
from urllib.parse import urlsplit, urlunsplit

from django.core.management.base import BaseCommand, CommandError
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import connect as ws_connect

from dashboard import services
from dashboard.fleet_schemas import FrameError, parse_frame
from dashboard.models import Runtime
from dashboard.runtime_client import backoff_delay

TRANSPORTS = ("auto", "sse", "ws")


class TokenRefused(Exception):
    """The gateway refused the token: the command stops instead of retrying."""


class StreamEnded(Exception):
    """The gateway closed the stream; the follower reconnects."""


def transport_url(url: str, transport: str) -> tuple[str, str]:
    """Pick the transport (``auto``: by scheme) and give the URL the matching scheme."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https", "ws", "wss") or not parts.netloc:
        raise CommandError(f"expected an http(s):// or ws(s):// URL, got {url!r}")
    secure = scheme in ("https", "wss")
    if transport == "auto":
        transport = "ws" if scheme in ("ws", "wss") else "sse"
    if transport == "ws":
        scheme = "wss" if secure else "ws"
    else:
        scheme = "https" if secure else "http"
    return transport, urlunsplit((scheme, parts.netloc, parts.path or "/", parts.query, ""))


def is_history_trimmed(data: dict[str, Any]) -> bool:
    """ZeroClaw's shapes name the type at the top (ACP in ``method``); an envelope inside ``event``."""
    inner = data.get("event")
    return (
        data.get("type") == "history_trimmed"
        or data.get("method") == "_zeroclaw/history_trimmed"
        or (isinstance(inner, dict) and inner.get("type") == "history_trimmed")
    )


@dataclass
class FollowStats:
    ingested: int = 0
    duplicates: int = 0
    skipped: int = 0
    """Frames of other event types."""
    invalid: int = 0
    connects: int = 0
    failures: int = 0
    reasons: list[str] = field(default_factory=list)


class Follower:
    """One gateway stream into one runtime; :meth:`run` returns after ``max_events`` or ``max_retries``."""

    def __init__(
        self,
        *,
        url: str,
        token: str,
        runtime: Runtime,
        transport: str = "auto",
        max_events: int | None = None,
        backoff_initial: float = 0.5,
        backoff_max: float = 30.0,
        max_retries: int | None = None,
        idle_timeout: float = 90.0,
        out: TextIO | None = None,
        err: TextIO | None = None,
        verbose: bool = True,
    ) -> None:
        self.transport, self.url = transport_url(url, transport)
        self.token = token
        self.runtime = runtime
        self.max_events = max_events
        self.backoff_initial, self.backoff_max = backoff_initial, backoff_max
        self.max_retries = max_retries
        self.idle_timeout = idle_timeout
        self.out, self.err, self.verbose = out, err, verbose
        self.stats = FollowStats()
        self.last_event_id: str | None = None
        self._rng = random.Random()

    def _say(self, stream: TextIO | None, text: str) -> None:
        if stream is not None:
            stream.write(text + "\n")
            stream.flush()

    def done(self) -> bool:
        return self.max_events is not None and self.stats.ingested >= self.max_events

    def run(self) -> FollowStats:
        """Follow until ``max_events`` are ingested (forever without it).

        Raises:
            CommandError: the token was refused, or ``max_retries`` attempts in a row made no progress.
        """
        attempt = 0
        while not self.done():
            before = self.stats.ingested + self.stats.skipped + self.stats.invalid + self.stats.duplicates
            try:
                frames = self._sse() if self.transport == "sse" else self._ws()
                for text in frames:
                    self.handle(text)
                    if self.done():
                        return self.stats
                problem = "the gateway ended the stream"
            except TokenRefused as exc:
                raise CommandError(f"the gateway refused the token: {exc}") from exc
            except (OSError, TimeoutError, StreamEnded, ConnectionClosed, InvalidHandshake) as exc:
                problem = f"{type(exc).__name__}: {exc}"
            self.stats.failures += 1
            after = self.stats.ingested + self.stats.skipped + self.stats.invalid + self.stats.duplicates
            attempt = 1 if after > before else attempt + 1
            if self.max_retries is not None and attempt > self.max_retries:
                raise CommandError(f"giving up after {self.max_retries} attempts without progress: {problem}")
            delay = backoff_delay(
                attempt, initial=self.backoff_initial, maximum=self.backoff_max, jitter=0.5, rng=self._rng
            )
            self._say(self.err, f"stream interrupted ({problem}); reconnecting in {delay:.2f}s")
            time.sleep(delay)
        return self.stats

    # -- one frame ---------------------------------------------------------------------------------

    def handle(self, text: str) -> None:
        """Ingest one frame's text if it is a valid ``history_trimmed`` event; count it either way."""
        try:
            data = json.loads(text)
        except ValueError:
            self.stats.invalid += 1
            self._say(self.err, f"skipped an unreadable frame: {text[:120]!r}")
            return
        if not isinstance(data, dict):
            self.stats.invalid += 1
            self._say(self.err, f"skipped a frame that is not a JSON object: {text[:120]!r}")
            return
        if not is_history_trimmed(data):
            self.stats.skipped += 1
            return
        try:
            frame = parse_frame(data)
        except FrameError as exc:
            self.stats.invalid += 1
            self._say(self.err, f"skipped an invalid history_trimmed frame: {exc.message}")
            return
        result = services.trim_event_ingest(runtime=self.runtime, frame=frame, payload=data)
        if isinstance(result, services.IngestFailed):
            self.stats.invalid += 1
            self._say(self.err, f"skipped a frame: {result.message}")
            return
        if not result.created:
            self.stats.duplicates += 1
            return
        self.stats.ingested += 1
        if self.verbose:
            e = result.event
            session = f" session {e.session_id}" if e.session_id else ""
            self._say(
                self.out,
                f"#{e.pk} {e.shape}{session}: dropped {e.dropped_messages} messages, "
                f"kept {e.kept_turns} turns ({e.reason})",
            )

    # -- transports --------------------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def _sse(self) -> Iterator[str]:
        headers = {**self._headers(), "Accept": "text/event-stream", "Cache-Control": "no-cache"}
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = self.last_event_id
        request = urllib.request.Request(self.url, headers=headers)
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            response = opener.open(request, timeout=self.idle_timeout)
        except urllib.error.HTTPError as exc:
            if exc.code in (401, 403):
                raise TokenRefused(f"HTTP {exc.code}") from exc
            raise
        with response:
            self.stats.connects += 1
            kind = response.headers.get_content_type()
            if kind != "text/event-stream":
                raise StreamEnded(f"expected text/event-stream, got {kind}")
            data: list[str] = []
            event_id: str | None = None
            while True:
                raw = response.readline()
                if not raw:
                    return  # EOF: the caller reconnects
                line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                if not line:  # blank line: dispatch the event
                    if event_id is not None:
                        self.last_event_id = event_id
                    if data:
                        yield "\n".join(data)
                    data, event_id = [], None
                    continue
                if line.startswith(":"):
                    continue  # comment / heartbeat
                name, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if name == "data":
                    data.append(value)
                elif name == "id" and "\0" not in value:
                    event_id = value

    def _ws(self) -> Iterator[str]:
        try:
            ws = ws_connect(
                self.url, additional_headers=self._headers(), open_timeout=self.idle_timeout, proxy=None
            )
        except InvalidStatus as exc:
            if exc.response.status_code in (401, 403):
                raise TokenRefused(f"HTTP {exc.response.status_code}") from exc
            raise
        with ws:
            self.stats.connects += 1
            while True:
                try:
                    message = ws.recv(timeout=self.idle_timeout)
                except ConnectionClosed as exc:
                    if exc.rcvd is not None and exc.rcvd.code in (4401, 4403):
                        raise TokenRefused(f"close {exc.rcvd.code}") from exc
                    return
                yield message if isinstance(message, str) else message.decode("utf-8", errors="replace")


def runtime_for(name: str) -> Runtime:
    """The runtime named ``name``, registered (kind ``zeroclaw``) when missing.

    Raises:
        CommandError: it exists but its token was revoked (an operator switched it off).
    """
    runtime = Runtime.objects.filter(name=name).first()
    if runtime is None:
        try:
            runtime, _token = services.runtime_create(name=name, kind="zeroclaw")
        except services.RuntimeNameTaken:  # created meanwhile by someone else
            runtime = Runtime.objects.get(name=name)
        except services.RuntimeInvalid as exc:
            raise CommandError(f"--runtime: {exc.message}") from exc
    if runtime.revoked_at is not None:
        raise CommandError(f"runtime {name!r} is revoked; register a new one or pick another name")
    return runtime


class Command(BaseCommand):
    help = (
        "Subscribe to a ZeroClaw gateway's event stream (SSE or WebSocket) and ingest its history_trimmed "
        "events into a runtime, reconnecting with backoff."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("url", help="the gateway's event stream: http(s)://… (SSE) or ws(s)://…")
        parser.add_argument("--token", required=True, help="the gateway's bearer token")
        parser.add_argument(
            "--runtime", default="", help="runtime to store the events under (default: gateway-<host>)"
        )
        parser.add_argument("--transport", choices=TRANSPORTS, default="auto")
        parser.add_argument("--max-events", type=int, default=None, help="stop after N events stored")
        parser.add_argument("--backoff-initial", type=float, default=0.5, help="first retry delay (s)")
        parser.add_argument("--backoff-max", type=float, default=30.0, help="longest retry delay (s)")
        parser.add_argument(
            "--max-retries", type=int, default=None, help="give up after N attempts in a row without a frame"
        )
        parser.add_argument("--idle-timeout", type=float, default=90.0, help="reconnect after N s of silence")

    def handle(self, *args: object, **options: Any) -> None:
        url: str = options["url"]
        name: str = options["runtime"] or f"gateway-{urlsplit(url).netloc or 'unknown'}"
        follower = Follower(
            url=url,
            token=options["token"],
            runtime=runtime_for(name),
            transport=options["transport"],
            max_events=options["max_events"],
            backoff_initial=options["backoff_initial"],
            backoff_max=options["backoff_max"],
            max_retries=options["max_retries"],
            idle_timeout=options["idle_timeout"],
            out=self.stdout,  # type: ignore[arg-type]  # OutputWrapper writes like a TextIO
            err=self.stderr,  # type: ignore[arg-type]
            verbose=options["verbosity"] >= 1,
        )
        self.stdout.write(f"Following {follower.url} ({follower.transport}) into runtime {name!r}")
        try:
            stats = follower.run()
        except KeyboardInterrupt:
            stats = follower.stats
            self.stdout.write("")
        self.stdout.write(
            f"{stats.ingested} stored, {stats.duplicates} already stored, {stats.skipped} other events, "
            f"{stats.invalid} invalid, {stats.connects} connections"
        )
