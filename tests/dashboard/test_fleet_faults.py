"""Ingestion survives the server dying mid-stream, and several workers share live events through Redis.

These start real daphne processes on 127.0.0.1 (a subprocess that can be killed, or forked workers)
against the test database. Every loop is bounded in count and time.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from contextlib import closing
from functools import partial
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from dashboard.models import TrimEvent
from dashboard.runtime_client import RuntimeClient
from dashboard.services.fleet import runtime_create
from tests.conftest import reset_after_fork

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db(transaction=True)


def _free_port() -> int:
    with closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _database_url() -> str:
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    user = db.get("USER") or "postgres"
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    auth = f"{user}:{db['PASSWORD']}@" if db.get("PASSWORD") else f"{user}@"
    return f"postgres://{auth}{host}:{port}/{db['NAME']}"


def _start_daphne(port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "DATABASE_URL": _database_url(), "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "dashboard.asgi:application"],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return _listening(proc, port, "daphne", 30)


def _listening(
    proc: subprocess.Popen[bytes], port: int, what: str, seconds: float
) -> subprocess.Popen[bytes]:
    """Wait until ``proc`` accepts connections on ``port``; kill it and fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with closing(socket.socket()) as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"{what} did not start")


def _envelope() -> dict[str, object]:
    return {
        "session_id": "fault",
        "event": {
            "type": "history_trimmed",
            "dropped_messages": 3,
            "kept_turns": 9,
            "reason": "context token budget exceeded",
        },
    }


def test_killing_the_server_mid_stream_loses_nothing_and_duplicates_nothing():
    """SIGKILL the only worker mid-stream; after a restart the runtime resends what was not acked."""
    runtime, token = runtime_create(name="fault-runtime")
    connection.close()  # the subprocess writes to the same database
    port = _free_port()
    server = _start_daphne(port)
    total = 300

    async def stream() -> RuntimeClient:
        nonlocal server
        async with RuntimeClient(
            f"http://127.0.0.1:{port}", token, backoff_initial=0.05, backoff_max=0.5
        ) as client:
            for i in range(total):
                await client.send(_envelope())
                if i == total // 3:
                    # Let some acks come back, then kill the worker without warning.
                    deadline = time.monotonic() + 10
                    while client.counters.acked < total // 6 and time.monotonic() < deadline:
                        await asyncio.sleep(0.01)
                    server.send_signal(signal.SIGKILL)
                    server.wait(timeout=10)
                    server = _start_daphne(port)
            await client.drain(timeout=60)
            return client

    try:
        client = asyncio.run(stream())
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
    assert client.counters.acked == total
    assert client.counters.reconnects >= 1
    stored = TrimEvent.objects.filter(runtime=runtime)
    assert stored.count() == total
    assert sorted(stored.values_list("seq", flat=True)) == list(range(1, total + 1))


@pytest.mark.services
@pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL (the scale-out pass sets it)")
def test_an_event_ingested_on_one_worker_reaches_a_watcher_on_another(django_user_model, client):
    """Two daphne workers share the Redis channel layer: the runtime talks to A, the browser socket to B."""
    import websockets
    from channels.testing.live import make_application, set_database_connection
    from daphne.testing import DaphneProcess
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
    from django.db import connections

    def child_setup() -> None:
        reset_after_fork()
        for conn in connections.all(initialized_only=True):
            conn.connection = None
        set_database_connection()

    runtime, token = runtime_create(name="scale-out")
    user = django_user_model.objects.create_user("watcher", password="watch-password-1")
    client.force_login(user)
    session_key = client.cookies[settings.SESSION_COOKIE_NAME].value
    connections.close_all()
    reset_after_fork()
    workers = [
        DaphneProcess(
            "127.0.0.1", partial(make_application, static_wrapper=ASGIStaticFilesHandler), setup=child_setup
        )
        for _ in range(2)
    ]
    for worker in workers:
        worker.start()
        assert worker.ready.wait(timeout=30)
    port_a, port_b = (w.port.value for w in workers)

    async def scenario() -> tuple[int, str]:
        headers = {
            "Cookie": f"{settings.SESSION_COOKIE_NAME}={session_key}",
            "Origin": f"http://127.0.0.1:{port_b}",
        }
        async with websockets.connect(
            f"ws://127.0.0.1:{port_b}/ws/fleet/", additional_headers=headers
        ) as watcher:
            await asyncio.sleep(0.3)  # the group_add has reached Redis
            async with websockets.connect(
                f"ws://127.0.0.1:{port_a}/ws/runtime/",
                additional_headers={"Authorization": f"Bearer {token}"},
            ) as runtime_socket:
                await runtime_socket.send(
                    json.dumps({**_envelope(), "seq": 1, "sent_at": "2026-01-01T00:00:00Z"})
                )
                ack = json.loads(await asyncio.wait_for(runtime_socket.recv(), timeout=10))
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                frame = await asyncio.wait_for(watcher.recv(), timeout=max(0.1, deadline - time.monotonic()))
                if f'id="ev-{ack["id"]}"' in str(frame):
                    return ack["id"], str(frame)
            raise AssertionError("the event never reached the other worker's watcher")

    try:
        event_id, frame = asyncio.run(scenario())
    finally:
        for worker in workers:
            worker.terminate()
            worker.join(timeout=10)
    assert TrimEvent.objects.filter(pk=event_id, runtime=runtime).exists()
    assert re.search(r"context token budget exceeded", frame)


def _start_redis(port: int, workdir: Path) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return _listening(proc, port, "redis-server", 10)


@pytest.mark.services
@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs the redis-server binary")
def test_ingestion_goes_on_while_redis_is_down_and_live_rows_resume_after(
    tmp_path, django_user_model, client
):
    """A private Redis is killed mid-stream: events are still stored and acked; after a restart rows flow."""
    import websockets

    runtime, token = runtime_create(name="redis-fault")
    user = django_user_model.objects.create_user("redis-watcher", password="watch-password-2")
    client.force_login(user)
    session_key = client.cookies[settings.SESSION_COOKIE_NAME].value
    connection.close()
    redis_port, port = _free_port(), _free_port()
    redis = _start_redis(redis_port, tmp_path)
    os.environ["TRIMSCOPE_FAULT_REDIS"] = f"redis://127.0.0.1:{redis_port}/0"
    env_backup = os.environ.get("REDIS_URL")
    os.environ["REDIS_URL"] = os.environ["TRIMSCOPE_FAULT_REDIS"]
    try:
        server = _start_daphne(port)
    finally:
        if env_backup is None:
            os.environ.pop("REDIS_URL", None)
        else:
            os.environ["REDIS_URL"] = env_backup

    async def watcher_socket() -> websockets.ClientConnection:
        # Like the page's htmx socket, retry: the first handshake after Redis restarts may still fail.
        headers = {
            "Cookie": f"{settings.SESSION_COOKIE_NAME}={session_key}",
            "Origin": f"http://127.0.0.1:{port}",
        }
        # A handshake that cannot join the feed yet says so and closes with 1013 (try again later).
        for attempt in range(20):
            ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws/fleet/", additional_headers=headers)
            try:
                frame = await asyncio.wait_for(ws.recv(), timeout=0.3)
            except TimeoutError:
                return ws  # open and quiet: it joined the feed
            except websockets.ConnectionClosed as closed:
                assert closed.rcvd is not None and closed.rcvd.code == 1013
            else:
                assert "Live updates are unavailable" in str(frame)
                await ws.close()
            await asyncio.sleep(0.1 * (attempt + 1))
        raise AssertionError("the fleet socket never came back")

    async def row_arrives(seq: int) -> bool:
        async with await watcher_socket() as watcher:
            await asyncio.sleep(0.3)
            async with RuntimeClient(f"http://127.0.0.1:{port}", token, backoff_initial=0.05) as c:
                await c.send({**_envelope(), "session_id": "redis-fault-live", "seq": seq})
                await c.drain(timeout=10)
            row = TrimEvent.objects.filter(runtime=runtime, session_id="redis-fault-live", seq=seq)
            event_id = await asyncio.to_thread(lambda: row.values_list("pk", flat=True).first())
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                frame = await asyncio.wait_for(watcher.recv(), timeout=max(0.1, deadline - time.monotonic()))
                if f'id="ev-{event_id}"' in str(frame):
                    return True
            return False

    async def stream(count: int) -> int:
        async with RuntimeClient(
            f"http://127.0.0.1:{port}", token, backoff_initial=0.05, backoff_max=0.5
        ) as c:
            for _ in range(count):
                await c.send(_envelope())
            await c.drain(timeout=30)
            return c.counters.acked

    try:
        assert asyncio.run(row_arrives(1))
        redis.send_signal(signal.SIGKILL)
        redis.wait(timeout=10)
        assert asyncio.run(stream(50)) == 50  # stored and acked with the channel layer gone
        redis = _start_redis(redis_port, tmp_path)
        assert asyncio.run(row_arrives(2))
    finally:
        server.send_signal(signal.SIGTERM)
        redis.send_signal(signal.SIGTERM)
        for proc in (server, redis):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
    assert TrimEvent.objects.filter(runtime=runtime).count() == 52
