"""Ingestion load and latency against a real daphne worker on loopback.

A throwaway database (SQLite in a temp folder, or ``DATABASE_URL`` when set) and one daphne process.
N runtimes each open ``/ws/runtime/`` and push M envelopes with up to ``window`` unacknowledged at a
time; the run counts acks, then checks the database: every acked event stored, exactly once. A second
run paces a fixed total rate and measures ingest→browser latency: a signed-in WebSocket on ``/ws/fleet/``
receives each event's live row, and the time from sending the frame to receiving its row is recorded.
All traffic stays on 127.0.0.1; every loop is bounded in count and time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.common import ms

REPO = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    port: int
    env: dict[str, str]

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def _django(env: dict[str, str]) -> None:
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dashboard.settings")
    import django

    django.setup()


def start_server(env: dict[str, str]) -> Server:
    port = _free_port()
    proc = subprocess.Popen(
        [str(REPO / ".venv/bin/daphne"), "-b", "127.0.0.1", "-p", str(port), "dashboard.asgi:application"],
        cwd=REPO,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return Server(proc, port, env)
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("daphne did not start")


def prepare(runtimes: int) -> tuple[dict[str, str], list[str], str]:
    """A fresh database with ``runtimes`` runtime tokens and a signed-in session for the watcher."""
    env = {
        "TRIMSCOPE_VAR_DIR": tempfile.mkdtemp(prefix="trimscope-load-"),
        "DJANGO_DEBUG": "false",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
    }
    _django(env)
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.sessions.backends.db import SessionStore
    from django.core.management import call_command
    from django.db import connection

    from dashboard.models import Runtime, TrimEvent
    from dashboard.services.fleet import runtime_create

    call_command("migrate", verbosity=0)
    if connection.vendor == "postgresql":
        TrimEvent.objects.all().delete()
        Runtime.objects.all().delete()
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode=WAL")
    tokens = [runtime_create(name=f"load-{i}-{time.time_ns()}")[1] for i in range(runtimes)]
    user = get_user_model().objects.create_user(f"watch-{time.time_ns()}", password="watch-password")
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    assert session.session_key is not None
    return env, tokens, session.session_key


def _envelope(session_id: str, seq: int) -> str:
    return json.dumps(
        {
            "session_id": session_id,
            "seq": seq,
            "sent_at": datetime.now(UTC).isoformat(),
            "event": {
                "type": "history_trimmed",
                "dropped_messages": 4,
                "kept_turns": 12,
                "reason": "context token budget exceeded",
                "tokens_before": 33_000,
                "tokens_after": 31_000,
                "budget": 32_000,
            },
        }
    )


async def _runtime(
    url: str, token: str, index: int, count: int, window: int, deadline: float
) -> tuple[int, int]:
    import websockets

    acked = duplicates = 0
    await asyncio.sleep(index * 0.01)  # a real fleet does not connect in the same millisecond
    for attempt in range(10):
        try:
            ws = await websockets.connect(
                url, additional_headers={"Authorization": f"Bearer {token}"}, max_size=2**20, open_timeout=30
            )
            break
        except (OSError, websockets.exceptions.InvalidHandshake, websockets.exceptions.InvalidMessage):
            await asyncio.sleep(0.2 * (attempt + 1))
    else:
        raise RuntimeError("could not connect")
    async with ws:
        in_flight = 0
        sent = 0
        while acked + duplicates < count and time.monotonic() < deadline:
            while sent < count and in_flight < window:
                await ws.send(_envelope(f"load-{index}", sent))
                sent += 1
                in_flight += 1
            reply = json.loads(await asyncio.wait_for(ws.recv(), timeout=30))
            if reply.get("type") != "ack":
                raise RuntimeError(f"unexpected reply {reply}")
            in_flight -= 1
            if reply["duplicate"]:
                duplicates += 1
            else:
                acked += 1
    return acked, duplicates


async def throughput(port: int, tokens: list[str], per_runtime: int, window: int = 64) -> dict[str, float]:
    url = f"ws://127.0.0.1:{port}/ws/runtime/"
    start = time.perf_counter()
    deadline = time.monotonic() + 300
    results = await asyncio.gather(
        *(_runtime(url, t, i, per_runtime, window, deadline) for i, t in enumerate(tokens))
    )
    elapsed = time.perf_counter() - start
    acked = sum(a for a, _ in results)
    return {
        "events": float(acked),
        "seconds": elapsed,
        "rate": acked / elapsed,
        "duplicates": float(sum(d for _, d in results)),
    }


async def latency(
    port: int, tokens: list[str], session_key: str, rate: float, seconds: float, ack_delays: list[float]
) -> list[float]:
    """Send ``rate`` events/s in total for ``seconds``, round-robin over one socket per token, and time
    each event until its row reaches a signed-in watcher on ``/ws/fleet/``.

    Spreading the rate over several runtimes is what a fleet does (and one runtime alone is throttled far
    below a fleet's rate); the watcher sees every runtime's rows, as the fleet page does.
    """
    import websockets

    sent_at: dict[int, float] = {}
    seen: dict[int, float] = {}
    acks: dict[int, int] = {}  # stored id -> seq (seqs are unique across the sockets)
    acked_at: dict[int, float] = {}  # seq -> when its ack arrived
    row_id = re.compile(r'id="ev-(\d+)"')
    headers = {"Cookie": f"sessionid={session_key}", "Origin": f"http://127.0.0.1:{port}"}
    async with contextlib.AsyncExitStack() as stack:
        watcher = await stack.enter_async_context(
            websockets.connect(f"ws://127.0.0.1:{port}/ws/fleet/", additional_headers=headers)
        )
        runtimes = [
            await stack.enter_async_context(
                websockets.connect(
                    f"ws://127.0.0.1:{port}/ws/runtime/", additional_headers={"Authorization": f"Bearer {t}"}
                )
            )
            for t in tokens
        ]

        async def watch() -> None:
            async for frame in watcher:
                now = time.perf_counter()
                for match in row_id.finditer(str(frame)):
                    seen.setdefault(int(match[1]), now)

        async def read_acks(runtime: websockets.ClientConnection) -> None:
            async for frame in runtime:
                reply = json.loads(frame)
                if reply.get("type") == "ack":
                    acks[reply["id"]] = reply["seq"]
                    acked_at[reply["seq"]] = time.perf_counter()

        tasks = [asyncio.create_task(watch())] + [asyncio.create_task(read_acks(r)) for r in runtimes]
        total = int(rate * seconds)
        start = time.perf_counter()
        for seq in range(total):
            target = start + seq / rate
            delay = target - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            sent_at[seq] = time.perf_counter()
            await runtimes[seq % len(runtimes)].send(_envelope(f"latency-{seq % len(runtimes)}", seq))
        deadline = time.perf_counter() + 10
        while time.perf_counter() < deadline and len(seen) < total:
            await asyncio.sleep(0.05)
        for task in tasks:
            task.cancel()
    ack_delays.extend(sorted(acked_at[seq] - sent_at[seq] for seq in acked_at))
    return sorted(seen[i] - sent_at[acks[i]] for i in seen if i in acks)


def stored_count() -> tuple[int, int]:
    from django.db.models import Count

    from dashboard.models import TrimEvent

    total = TrimEvent.objects.count()
    repeated = (
        TrimEvent.objects.values("runtime", "session_id", "seq")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .count()
    )
    return total, repeated


def run(
    runtimes: int = 100,
    per_runtime: int = 200,
    rate: float = 2000.0,
    seconds: float = 10.0,
    latency_runtimes: int = 20,
) -> dict[str, float]:
    env, tokens, session_key = prepare(runtimes + latency_runtimes)
    server = start_server(env)
    try:
        numbers = asyncio.run(throughput(server.port, tokens[:runtimes], per_runtime))
        total, repeated = stored_count()
        numbers.update({"stored": float(total), "stored_twice": float(repeated)})
        ack_delays: list[float] = []
        delays = asyncio.run(latency(server.port, tokens[runtimes:], session_key, rate, seconds, ack_delays))
    finally:
        server.stop()
    if delays:
        numbers["latency_p50"] = delays[len(delays) // 2]
        numbers["latency_p99"] = delays[min(len(delays) - 1, int(len(delays) * 0.99))]
        numbers["latency_seen"] = float(len(delays))
    if ack_delays:
        numbers["ack_p50"] = ack_delays[len(ack_delays) // 2]
        numbers["ack_p99"] = ack_delays[min(len(ack_delays) - 1, int(len(ack_delays) * 0.99))]
    numbers["latency_sent"] = rate * seconds
    numbers["latency_rate"] = rate
    numbers["latency_runtimes"] = float(latency_runtimes)
    return numbers


def report(n: dict[str, float], runtimes: int = 100) -> list[str]:
    lines = [
        "## Live ingestion (one daphne worker, loopback)",
        "",
        f"- throughput: {runtimes} runtimes pushed {int(n['events']):,} envelopes "
        f"(64 unacked at most each) in "
        f"{n['seconds']:.1f} s = **{n['rate']:,.0f} events/s** acked after commit",
        f"- stored: {int(n['stored']):,} rows for {int(n['events']):,} acks; duplicates acked: "
        f"{int(n['duplicates'])}; rows stored twice: {int(n['stored_twice'])}",
    ]
    if "latency_p99" in n:
        lines.append(
            f"- ingest → browser at {n['latency_rate']:,.0f} events/s over "
            f"{int(n['latency_runtimes'])} runtimes: p50 {ms(n['latency_p50'])}, "
            f"p99 **{ms(n['latency_p99'])}** "
            f"({int(n['latency_seen']):,} of {int(n['latency_sent']):,} rows seen)"
        )
    if "ack_p99" in n:
        lines.append(
            f"- send → ack (stored and committed) at the same rate: "
            f"p50 {ms(n['ack_p50'])}, p99 {ms(n['ack_p99'])}"
        )
    return lines


if __name__ == "__main__":
    # ``python -m benchmarks.fleet_load [RUNTIMES [PER_RUNTIME]] [--json]``: its own process, because the
    # throwaway database is chosen when Django starts.
    args = [a for a in sys.argv[1:] if a != "--json"]
    count = int(args[0]) if args else 100
    result = run(count, *(int(a) for a in args[1:2]))
    print(json.dumps(result) if "--json" in sys.argv else "\n".join(report(result, count)))
