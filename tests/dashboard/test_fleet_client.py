"""RuntimeClient against a scripted fake ``/ws/runtime/`` server: acks, drops, 1013, 4401, errors."""

from __future__ import annotations

import asyncio
import json
import random
import socket
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from dashboard.fleet_schemas import FrameError
from dashboard.runtime_client import (
    RuntimeClient,
    RuntimeClientClosed,
    backoff_delay,
    runtime_ws_url,
)

FAST = {"backoff_initial": 0.005, "backoff_max": 0.05, "open_timeout": 2.0}


def event(n: int = 1) -> dict[str, object]:
    return {
        "type": "history_trimmed",
        "dropped_messages": n,
        "kept_turns": 3,
        "reason": "context token budget exceeded",
    }


def envelope(session: str, n: int = 1) -> dict[str, object]:
    return {"session_id": session, "event": event(n)}


class FakeRuntimeServer:
    """Stores frames once per (session, seq), acks after storing; ``script`` decides per connection."""

    def __init__(self, script: Callable[[int, int], str] | None = None) -> None:
        # script(connection_number, frame_number_on_connection) -> "ack" | "drop" | "overload" | "silent"
        self.script = script or (lambda conn, n: "ack")
        self.stored: dict[tuple[str, int], dict[str, object]] = {}
        self.received: list[tuple[str, int]] = []
        self.connections = 0
        self.auth: list[str | None] = []
        self.url = ""

    async def handler(self, ws: ServerConnection) -> None:
        self.connections += 1
        conn = self.connections
        self.auth.append(ws.request.headers.get("Authorization") if ws.request else None)
        n = 0
        async for raw in ws:
            n += 1
            frame = json.loads(raw)
            key = (frame["session_id"], frame["seq"])
            self.received.append(key)
            duplicate = key in self.stored
            self.stored.setdefault(key, frame)
            action = self.script(conn, n)
            if action == "drop":  # stored, but the connection dies before the ack leaves
                ws.transport.abort()
                return
            if action == "overload":  # not stored: the server is busy
                del self.stored[key]
                await ws.close(1013, "try again later")
                return
            if action == "silent":
                continue
            await ws.send(
                json.dumps(
                    {
                        "type": "ack",
                        "id": len(self.stored),
                        "seq": key[1],
                        "event_id": None,
                        "duplicate": duplicate,
                    }
                )
            )


async def start(
    server: FakeRuntimeServer, handler: Callable[[ServerConnection], Awaitable[None]] | None = None
):
    ws_server = await serve(handler or server.handler, "127.0.0.1", 0)
    port = ws_server.sockets[0].getsockname()[1]
    server.url = f"http://127.0.0.1:{port}"
    return ws_server


def test_urls():
    assert runtime_ws_url("http://127.0.0.1:8000") == "ws://127.0.0.1:8000/ws/runtime/"
    assert runtime_ws_url("https://fleet.example/") == "wss://fleet.example/ws/runtime/"
    assert runtime_ws_url("ws://h:1/ws/runtime/?token=x") == "ws://h:1/ws/runtime/?token=x"
    assert runtime_ws_url("wss://h/anything") == "wss://h/ws/runtime/"
    with pytest.raises(ValueError):
        runtime_ws_url("ftp://h/")


def test_backoff_grows_is_capped_and_jittered():
    rng = random.Random(1)
    delays = [backoff_delay(a, initial=0.1, maximum=1.0, jitter=0.5, rng=rng) for a in range(1, 10)]
    caps = [min(1.0, 0.1 * 2 ** (a - 1)) for a in range(1, 10)]
    assert all(cap * 0.5 <= d <= cap for d, cap in zip(delays, caps, strict=True))
    assert len(set(delays)) == len(delays)  # jittered
    assert max(delays) <= 1.0


async def test_every_envelope_acked_once_through_drops_and_1013():
    # connection 1: drop after storing frame 4 (before its ack); connection 2: 1013 at frame 3;
    # connection 3 onwards: ack everything.
    def script(conn: int, n: int) -> str:
        if conn == 1 and n == 4:
            return "drop"
        if conn == 2 and n == 3:
            return "overload"
        return "ack"

    server = FakeRuntimeServer(script)
    async with await start(server):
        client = RuntimeClient(server.url, "rt_secret", runtime="r1", **FAST)
        async with client:
            seqs = []
            for i in range(12):
                seqs.append(await client.send(envelope(f"s{i % 3}", i)))
            await client.drain(timeout=10)
        assert client.pending == 0
        c = client.counters
        assert c.sent == 12 and c.acked == 12
        assert c.reconnects >= 2 and c.overloaded == 1
        assert c.resent >= 1  # unacked frames went out again
        assert c.duplicates >= 1  # the frame stored before the drop was acked as a duplicate
    # Server side: every envelope stored exactly once, some received twice.
    assert sorted(server.stored) == sorted((f"s{i % 3}", s) for i, s in enumerate(seqs))
    assert max(Counter(server.received).values()) >= 2
    assert server.auth[0] == "Bearer rt_secret"
    # seq increases within each session and is unique across the client's sessions
    assert len(set(seqs)) == 12
    for session in ("s0", "s1", "s2"):
        mine = [k[1] for k in sorted(server.stored) if k[0] == session]
        assert mine == sorted(mine)
    frame = server.stored[("s0", seqs[0])]
    assert frame["runtime"] == "r1" and datetime.fromisoformat(str(frame["sent_at"])).tzinfo == UTC


async def test_resend_after_drop_before_ack():
    # The first connection swallows everything without acking and then drops: all of it is resent.
    calls = {"n": 0}

    async def handler(ws: ServerConnection) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            for _ in range(3):
                await ws.recv()
            ws.transport.abort()
            return
        await server.handler(ws)

    server = FakeRuntimeServer()
    async with await start(server, handler):
        async with RuntimeClient(server.url, "t", **FAST) as client:
            for i in range(3):
                await client.send(envelope("s", i))
            await client.drain(timeout=10)
        assert client.counters.acked == 3 and client.counters.resent == 3
        assert client.counters.reconnects == 1


async def test_waits_for_a_server_that_is_not_up_yet():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = FakeRuntimeServer()
    client = RuntimeClient(f"http://127.0.0.1:{port}", "t", **FAST)
    async with client:
        await client.send(envelope("s"))
        while client.counters.connect_failures < 2:
            await asyncio.sleep(0.005)
        async with serve(server.handler, "127.0.0.1", port):
            await client.drain(timeout=10)
    assert client.counters.acked == 1 and client.counters.connects == 1


async def test_repeated_1013_backs_off_further():
    server = FakeRuntimeServer(lambda conn, n: "overload" if conn <= 3 else "ack")
    async with await start(server):
        client = RuntimeClient(server.url, "t", backoff_initial=0.01, backoff_max=1.0, jitter=0.0)
        delays = []
        async with client:
            await client.send(envelope("s"))
            while client.counters.overloaded < 3:
                await asyncio.sleep(0.002)
                if client.last_delay and (not delays or delays[-1] != client.last_delay):
                    delays.append(client.last_delay)
            await client.drain(timeout=10)
        assert client.counters.overloaded == 3 and client.counters.acked == 1
        assert delays[:3] == [0.01, 0.02, 0.04]


async def test_bad_token_stops_the_client():
    async def handler(ws: ServerConnection) -> None:
        await ws.close(4401, "bad token")

    server = FakeRuntimeServer()
    async with await start(server, handler):
        client = RuntimeClient(server.url, "wrong", **FAST)
        async with client:
            await client.send(envelope("s"))
            with pytest.raises(RuntimeClientClosed, match="4401"):
                await client.drain(timeout=5)
            with pytest.raises(RuntimeClientClosed):
                await client.send(envelope("s"))
        assert client.pending == 1 and client.counters.acked == 0


async def test_error_frame_rejects_that_envelope_and_connection_stays():
    # Like the real server: one reply per frame, in order; an error frame names no seq.
    async def handler(ws: ServerConnection) -> None:
        async for raw in ws:
            frame = json.loads(raw)
            if frame["event"]["dropped_messages"] == 99:
                await ws.send(json.dumps({"type": "error", "message": "no", "field": "event"}))
            else:
                await ws.send(json.dumps({"type": "ack", "id": 1, "seq": frame["seq"], "duplicate": False}))

    server = FakeRuntimeServer()
    async with await start(server, handler):
        async with RuntimeClient(server.url, "t", **FAST) as client:
            await client.send(envelope("s", 1))
            await client.send(envelope("s", 99))
            await client.send(envelope("s", 2))
            await client.drain(timeout=5)
        assert client.counters.acked == 2 and client.counters.errors == 1
        assert [f["event"]["dropped_messages"] for f, _ in client.rejected] == [99]
        assert client.counters.connects == 1


async def test_close_1009_drops_the_oversized_envelope_and_resends_the_rest():
    stored: list[int] = []

    async def handler(ws: ServerConnection) -> None:
        async for raw in ws:
            frame = json.loads(raw)
            if frame["event"]["dropped_messages"] == 77:  # "too large": nothing from here on is taken
                await ws.close(1009, "frame too large")
                return
            stored.append(frame["event"]["dropped_messages"])
            await ws.send(json.dumps({"type": "ack", "id": 1, "seq": frame["seq"], "duplicate": False}))

    server = FakeRuntimeServer()
    async with await start(server, handler):
        async with RuntimeClient(server.url, "t", **FAST) as client:
            for n in (1, 77, 2, 3):
                await client.send(envelope("s", n))
            await client.drain(timeout=5)
        assert sorted(stored) == [1, 2, 3]
        assert [f["event"]["dropped_messages"] for f, _ in client.rejected] == [77]
        assert client.counters.acked == 3 and client.counters.reconnects == 1


async def test_in_flight_window_is_bounded():
    seen_unanswered: list[int] = []

    async def handler(ws: ServerConnection) -> None:
        backlog: list[dict[str, object]] = []
        while True:
            try:
                backlog.append(json.loads(await asyncio.wait_for(ws.recv(), 0.05)))
                continue
            except TimeoutError:
                pass
            except ConnectionClosed:
                return
            seen_unanswered.append(len(backlog))
            for f in backlog:
                await ws.send(json.dumps({"type": "ack", "id": 1, "seq": f["seq"], "duplicate": False}))
            backlog = []

    server = FakeRuntimeServer()
    async with await start(server, handler):
        async with RuntimeClient(server.url, "t", max_in_flight=3, **FAST) as client:
            for i in range(7):
                await client.send(envelope("s", i))
            await client.drain(timeout=5)
        assert client.counters.acked == 7
        assert max(seen_unanswered) == 3


async def test_invalid_envelope_refused_locally():
    async with RuntimeClient("http://127.0.0.1:9", "t", **FAST) as client:
        with pytest.raises(FrameError):
            await client.send({"session_id": "s", "event": {"type": "history_trimmed"}})
        assert client.counters.sent == 0


async def test_max_pending_applies_backpressure():
    release = asyncio.Event()

    async def handler(ws: ServerConnection) -> None:
        frames = []
        try:
            async for raw in ws:
                frames.append(json.loads(raw))
                if len(frames) == 2:
                    await release.wait()
                    for f in frames:
                        await ws.send(
                            json.dumps({"type": "ack", "id": 1, "seq": f["seq"], "duplicate": False})
                        )
                elif len(frames) > 2:
                    await ws.send(json.dumps({"type": "ack", "id": 1, "seq": frames[-1]["seq"]}))
        except ConnectionClosed:
            pass

    server = FakeRuntimeServer()
    async with await start(server, handler):
        async with RuntimeClient(server.url, "t", max_pending=2, **FAST) as client:
            await client.send(envelope("s"))
            await client.send(envelope("s"))
            third = asyncio.create_task(client.send(envelope("s")))
            await asyncio.sleep(0.05)
            assert not third.done()  # waiting for room
            release.set()
            await third
            await client.drain(timeout=5)
        assert client.counters.acked == 3
