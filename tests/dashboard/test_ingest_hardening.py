"""Runtime ingestion under hostile or broken input: what the schema accepts is what the database stores,
an event the database still refuses is rejected alone, envelopes naming another runtime are refused,
invalid UTF-8 closes 1007, a runtime over its rate is throttled, and liveness survives a killed server.

The three unstorable events of the audit are reproduced first (they used to close the socket with 1011
on every resend and answer 500 on ``POST /api/events``)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import closing
from datetime import timedelta
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.core.cache import cache
from django.db import connection
from django.utils import timezone

from dashboard import selectors, services
from dashboard.asgi import application
from dashboard.consumers import runtime as runtime_consumer
from dashboard.fleet_schemas import FrameError, parse_frame
from dashboard.models import Runtime, TrimEvent
from dashboard.selectors.fleet_watch import runtime_online
from dashboard.services import fleet as fleet_service

pytestmark = pytest.mark.django_db(transaction=True)
REPO = Path(__file__).resolve().parents[2]

WS = {"type": "history_trimmed", "dropped_messages": 4, "kept_turns": 2, "reason": "budget exceeded"}


def envelope(seq, *, sent_at="2026-11-29T10:00:00Z", session="s-1", **event):
    return {"session_id": session, "seq": seq, "sent_at": sent_at, "event": {**WS, **event}}


UNSTORABLE_BEFORE = {
    "sent_at in year 10000 once in UTC": (envelope(2, sent_at="9999-12-31T23:59:59-12:00"), "sent_at"),
    "NUL in the session id": (envelope(2, session="s\x00nul"), "session_id"),
    "NUL in the reason": (envelope(2, reason="a\x00b"), "event.reason"),
    "lone surrogate in the reason": (envelope(2, reason="a\ud800b"), "event.reason"),
    "NUL in an SSE channel": (
        {**WS, "source": "observability", "timestamp": "2026-01-01T00:00:00Z", "channel": "c\x00"},
        "channel",
    ),
}


@pytest.fixture(autouse=True)
def fresh_layers_and_cache():
    channel_layers.backends = {}
    cache.clear()
    yield
    channel_layers.backends = {}
    cache.clear()


@pytest.fixture
def runtime_token():
    return services.runtime_create(name="r1")


async def open_socket(token):
    comm = WebsocketCommunicator(
        application, "/ws/runtime/", headers=[(b"authorization", f"Bearer {token}".encode())]
    )
    connected, _ = await comm.connect()
    assert connected
    return comm


async def send(comm, frame):
    await comm.send_to(text_data=json.dumps(frame))
    return await comm.receive_json_from(timeout=5)


@database_sync_to_async
def stored_seqs(runtime_id):
    return sorted(TrimEvent.objects.filter(runtime_id=runtime_id).values_list("seq", flat=True))


# -- the schema matches storage ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", list(UNSTORABLE_BEFORE), ids=list(UNSTORABLE_BEFORE))
def test_what_the_database_cannot_store_is_refused_by_the_schema_naming_the_field(case):
    frame, field = UNSTORABLE_BEFORE[case]
    with pytest.raises(FrameError) as refused:
        parse_frame(frame)
    assert refused.value.field == field
    assert field.split(".")[-1] in refused.value.message


@pytest.mark.parametrize("count", [2**31, 2**53])
def test_counts_up_to_two_to_the_53_are_stored_as_sent(runtime_token, count):
    runtime, _ = runtime_token
    frame = envelope(1, dropped_messages=count, kept_turns=count, dropped_turns=count, call_number=count)
    (result,) = services.trim_events_ingest(runtime=runtime, frames=[(parse_frame(frame), frame)])
    assert isinstance(result, services.Ingested) and result.created
    row = TrimEvent.objects.get(pk=result.event.pk)
    assert (row.dropped_messages, row.kept_turns, row.dropped_turns, row.call_number) == (count,) * 4


def test_times_are_stored_in_utc_and_naive_times_are_taken_as_utc(runtime_token):
    runtime, _ = runtime_token
    frames = [envelope(1, sent_at="9999-12-31T11:00:00-12:00"), envelope(2, sent_at="2026-05-01T08:00:00")]
    results = services.trim_events_ingest(runtime=runtime, frames=[(parse_frame(f), f) for f in frames])
    rows = [TrimEvent.objects.get(pk=r.event.pk) for r in results]
    assert rows[0].occurred_at.isoformat() == "9999-12-31T23:00:00+00:00"
    assert rows[1].occurred_at.isoformat() == "2026-05-01T08:00:00+00:00"


async def test_the_audit_events_get_an_error_frame_and_the_socket_stores_what_follows(runtime_token):
    runtime, token = runtime_token
    comm = await open_socket(token)
    assert (await send(comm, envelope(1)))["type"] == "ack"
    replies = []
    for seq, (frame, _) in enumerate(UNSTORABLE_BEFORE.values(), start=2):
        replies.append(await send(comm, {**frame, "seq": seq} if "seq" in frame else frame))
    big = await send(comm, envelope(50, dropped_messages=2**31, tokens_before=2**53))
    after = await send(comm, envelope(51))
    await comm.disconnect()
    assert [r["type"] for r in replies] == ["error"] * len(UNSTORABLE_BEFORE)
    assert [r["field"] for r in replies] == [field for _, field in UNSTORABLE_BEFORE.values()]
    assert big["type"] == "ack" and after["type"] == "ack"
    assert await stored_seqs(runtime.pk) == [1, 50, 51]


def _refuse_reason(monkeypatch, reason):
    """Make the database refuse one event: a negative count breaks the column's CHECK constraint."""
    real = fleet_service._fields

    def fields(frame, received):
        values = real(frame, received)
        if values["reason"] == reason:
            values["dropped_messages"] = -1
        return values

    monkeypatch.setattr(fleet_service, "_fields", fields)


async def test_an_event_the_database_refuses_is_an_error_frame_for_it_alone(runtime_token, monkeypatch):
    _refuse_reason(monkeypatch, "refused")
    runtime, token = runtime_token
    comm = await open_socket(token)
    # Sent without waiting, so the three are stored as one batch: the refusal must not take the batch down.
    for frame in (envelope(1), envelope(2, reason="refused"), envelope(3)):
        await comm.send_to(text_data=json.dumps(frame))
    replies = [await comm.receive_json_from(timeout=5) for _ in range(3)]
    again = await send(comm, envelope(2, reason="refused"))  # a resend is refused again, nothing stored
    later = await send(comm, envelope(4))
    await comm.disconnect()
    assert [r["type"] for r in replies] == ["ack", "error", "ack"]
    assert "refused this event" in replies[1]["message"]
    assert again["type"] == "error" and later["type"] == "ack"
    assert await stored_seqs(runtime.pk) == [1, 3, 4]


def test_post_events_rejects_an_event_the_database_refuses_and_stores_the_rest(
    runtime_token, monkeypatch, client
):
    _refuse_reason(monkeypatch, "refused")
    runtime, token = runtime_token
    body = {"events": [envelope(1), envelope(2, reason="refused"), envelope(3)]}
    response = client.post(
        "/api/events",
        json.dumps(body),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 200
    assert [r["status"] for r in response.json()["results"]] == ["stored", "rejected", "stored"]
    assert sorted(TrimEvent.objects.values_list("seq", flat=True)) == [1, 3]


# -- the envelope's runtime -------------------------------------------------------------------------------


async def test_an_envelope_naming_another_runtime_gets_an_error_frame_and_is_not_stored(runtime_token):
    runtime, token = runtime_token
    comm = await open_socket(token)
    own = await send(comm, {**envelope(1), "runtime": "r1"})
    other = await send(comm, {**envelope(2), "runtime": "someone-else"})
    await comm.disconnect()
    assert own["type"] == "ack"
    assert other["type"] == "error" and other["field"] == "runtime"
    assert "'someone-else'" in other["message"] and "'r1'" in other["message"]
    assert await stored_seqs(runtime.pk) == [1]


def test_post_events_rejects_an_envelope_naming_another_runtime(runtime_token, client):
    _, token = runtime_token
    body = {"events": [{**envelope(1), "runtime": "r1"}, {**envelope(2), "runtime": "r2"}]}
    response = client.post(
        "/api/events",
        json.dumps(body),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )
    results = response.json()["results"]
    assert [r["status"] for r in results] == ["stored", "rejected"] and results[1]["field"] == "runtime"


# -- throttling ------------------------------------------------------------------------------------------


async def test_a_runtime_over_its_rate_is_closed_1013_and_the_batch_over_it_is_not_stored(
    runtime_token, settings
):
    settings.TRIMSCOPE_INGEST_LIMIT, settings.TRIMSCOPE_INGEST_WINDOW = 60, 3600
    runtime, token = runtime_token
    comm = await open_socket(token)
    acked = 0
    closed_code = None
    for seq in range(1, 100):
        await comm.send_to(text_data=json.dumps(envelope(seq)))
        message = await comm.receive_output(5)
        if message["type"] == "websocket.close":
            closed_code = message["code"]
            break
        assert json.loads(message["text"])["type"] == "ack"
        acked += 1
    assert closed_code == 1013
    assert acked == 60
    assert await stored_seqs(runtime.pk) == list(range(1, 61))


def test_post_events_over_the_rate_answers_429_with_retry_after_and_stores_nothing(
    runtime_token, settings, client
):
    settings.TRIMSCOPE_INGEST_LIMIT, settings.TRIMSCOPE_INGEST_WINDOW = 25, 3600
    _, token = runtime_token
    auth = {"Authorization": f"Bearer {token}"}
    first = client.post(
        "/api/events",
        json.dumps({"events": [envelope(s) for s in range(1, 26)]}),
        "application/json",
        headers=auth,
    )
    second = client.post(
        "/api/events",
        json.dumps({"events": [envelope(s) for s in range(26, 36)]}),
        "application/json",
        headers=auth,
    )
    assert first.status_code == 200
    assert second.status_code == 429
    assert 1 <= int(second["Retry-After"]) <= 3600
    assert "ingestion rate" in second.json()["message"]
    assert TrimEvent.objects.count() == 25


# -- liveness ----------------------------------------------------------------------------------------------


async def test_an_idle_open_socket_keeps_refreshing_last_seen(runtime_token, monkeypatch):
    monkeypatch.setattr(runtime_consumer, "HEARTBEAT_SECONDS", 0.05)
    runtime, token = runtime_token
    comm = await open_socket(token)
    first = (await database_sync_to_async(Runtime.objects.get)(pk=runtime.pk)).last_seen_at
    await asyncio.sleep(0.4)
    later = (await database_sync_to_async(Runtime.objects.get)(pk=runtime.pk)).last_seen_at
    await comm.disconnect()
    assert later > first


async def test_a_heartbeat_that_finds_the_runtime_revoked_closes_4401(runtime_token, monkeypatch):
    monkeypatch.setattr(runtime_consumer, "HEARTBEAT_SECONDS", 0.05)
    runtime, token = runtime_token
    comm = await open_socket(token)
    # Revoked by another worker: no group message reaches this process, only the heartbeat notices.
    await database_sync_to_async(Runtime.objects.filter(pk=runtime.pk).update)(revoked_at=timezone.now())
    message = await comm.receive_output(3)
    assert message == {"type": "websocket.close", "code": 4401, "reason": None} or message.get("code") == 4401


# -- through a real daphne --------------------------------------------------------------------------------


def _ws(daphne_url):
    return daphne_url.replace("http://", "ws://") + "/ws/runtime/"


def _post(url, body, token):
    request = urllib.request.Request(
        url + "/api/events",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, json.loads(response.read()), response.headers
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read()), error.headers


async def test_invalid_utf8_in_a_text_frame_closes_1007_through_daphne(daphne_url):
    import websockets

    runtime, token = await database_sync_to_async(services.runtime_create)(name="utf8")
    async with websockets.connect(
        _ws(daphne_url), additional_headers={"Authorization": f"Bearer {token}"}
    ) as ws:
        await ws.send(json.dumps(envelope(1)))
        ack = json.loads(await ws.recv())
        await ws.send(b'{"session_id": "\xff\xfe"}', text=True)  # a text frame whose bytes are not UTF-8
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await ws.recv()
    assert ack["type"] == "ack"
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1007


async def test_the_audit_events_through_daphne_socket_and_post(daphne_url):
    """The socket stays open past each unstorable event; POST /api/events rejects them one by one."""
    import websockets

    runtime, token = await database_sync_to_async(services.runtime_create)(name="audit")
    frames = (
        [envelope(1)]
        + [
            {**frame, "seq": seq} if "seq" in frame else frame
            for seq, (frame, _) in enumerate(UNSTORABLE_BEFORE.values(), start=2)
        ]
        + [envelope(50, dropped_messages=2**31), envelope(51)]
    )
    async with websockets.connect(
        _ws(daphne_url), additional_headers={"Authorization": f"Bearer {token}"}
    ) as ws:
        replies = []
        for frame in frames:
            await ws.send(json.dumps(frame))
            replies.append(json.loads(await ws.recv()))
    kinds = [r["type"] for r in replies]
    assert kinds == ["ack"] + ["error"] * len(UNSTORABLE_BEFORE) + ["ack", "ack"]

    batch = (
        [envelope(101)]
        + [
            {**frame, "seq": 100 + seq} if "seq" in frame else frame
            for seq, (frame, _) in enumerate(UNSTORABLE_BEFORE.values(), start=2)
        ]
        + [envelope(150, dropped_messages=2**31)]
    )
    status, body, _ = await asyncio.to_thread(_post, daphne_url, {"events": batch}, token)
    assert status == 200
    statuses = [r["status"] for r in body["results"]]
    assert statuses == ["stored"] + ["rejected"] * len(UNSTORABLE_BEFORE) + ["stored"]
    assert await stored_seqs(runtime.pk) == [1, 50, 51, 101, 150]


def _free_port():
    with closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _database_url():
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    user = db.get("USER") or "postgres"
    auth = f"{user}:{db['PASSWORD']}@" if db.get("PASSWORD") else f"{user}@"
    return f"postgres://{auth}{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"


def _daphne(port, **env):
    """A daphne subprocess on the test database (a real process, so it can be SIGKILLed)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "dashboard.asgi:application"],
        cwd=REPO,
        env={**os.environ, "DATABASE_URL": _database_url(), "DJANGO_ALLOWED_HOSTS": "127.0.0.1", **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with closing(socket.socket()) as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("daphne did not start")


def _stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()


def test_a_runtime_whose_server_was_killed_goes_offline_and_the_silent_alert_fires():
    runtime, token = services.runtime_create(name="killed")
    connection.close()  # the server process writes to the same database
    port = _free_port()
    server = _daphne(port)

    async def connect_then_kill():
        nonlocal server
        import websockets

        ws = await websockets.connect(
            f"ws://127.0.0.1:{port}/ws/runtime/", additional_headers={"Authorization": f"Bearer {token}"}
        )
        await ws.send(json.dumps(envelope(1)))
        assert json.loads(await ws.recv())["type"] == "ack"
        server.send_signal(signal.SIGKILL)  # no disconnect handler runs: `connected` stays at 1
        server.wait(timeout=10)
        server = _daphne(port)
        await ws.close()

    try:
        asyncio.run(connect_then_kill())
    finally:
        _stop(server)
    row = Runtime.objects.get(pk=runtime.pk)
    assert row.connected == 1  # the counter is what the kill leaves behind
    assert runtime_online(row, now=timezone.now())
    assert not runtime_online(row, now=row.last_seen_at + timedelta(seconds=61))
    later = row.last_seen_at + timedelta(minutes=15)
    silent = [a for a in selectors.fleet_alerts(now=later) if a.kind == "runtime_silent"]
    assert [a.runtime for a in silent] == ["killed"]


def test_throttling_answers_429_and_closes_1013_through_daphne():
    runtime, token = services.runtime_create(name="throttled")
    connection.close()
    port = _free_port()
    server = _daphne(port, TRIMSCOPE_INGEST_LIMIT="60", TRIMSCOPE_INGEST_WINDOW="3600")
    url = f"http://127.0.0.1:{port}"

    async def flood():
        import websockets

        status, _, _ = await asyncio.to_thread(
            _post, url, {"events": [envelope(s) for s in range(1, 41)]}, token
        )
        assert status == 200
        over, body, headers = await asyncio.to_thread(
            _post,
            url,
            {"events": [envelope(s) for s in range(41, 71)]},
            token,  # 70 > 60: all refused
        )
        acks = 0
        async with websockets.connect(
            f"ws://127.0.0.1:{port}/ws/runtime/", additional_headers={"Authorization": f"Bearer {token}"}
        ) as ws:
            with pytest.raises(websockets.ConnectionClosed) as closed:
                for seq in range(100, 200):
                    await ws.send(json.dumps(envelope(seq)))
                    assert json.loads(await ws.recv())["type"] == "ack"
                    acks += 1
        return over, body, headers, acks, closed.value.rcvd.code

    try:
        over, body, headers, acks, code = asyncio.run(flood())
    finally:
        _stop(server)
    assert over == 429 and int(headers["Retry-After"]) >= 1 and "ingestion rate" in body["message"]
    assert code == 1013
    assert acks == 20  # 60 in the window: 40 by POST, 20 over the socket
    assert TrimEvent.objects.filter(runtime=runtime).count() == 60


def test_ingestion_does_not_depend_on_the_throttle_cache_being_up(
    runtime_token, monkeypatch, client, settings
):
    """With the cache (Redis) down, events are stored unthrottled rather than refused."""
    settings.TRIMSCOPE_INGEST_LIMIT, settings.TRIMSCOPE_INGEST_WINDOW = 1, 3600

    def cache_down(*args, **kwargs):
        raise ConnectionError("cache unreachable")

    monkeypatch.setattr(cache, "add", cache_down)
    _, token = runtime_token
    response = client.post(
        "/api/events",
        json.dumps({"events": [envelope(1), envelope(2), envelope(3)]}),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 200
    assert [r["status"] for r in response.json()["results"]] == ["stored"] * 3
