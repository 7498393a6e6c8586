"""The runtime socket /ws/runtime/: token auth, every accepted shape acked after commit, idempotent resends,
error frames that keep the socket open, 1009 for oversized frames, 1013 under backpressure, the live push."""

from __future__ import annotations

import asyncio
import json

import pytest
from channels.db import database_sync_to_async
from channels.layers import channel_layers, get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db import connection
from django.utils import timezone

from dashboard import events, services
from dashboard.asgi import application
from dashboard.consumers import runtime as runtime_consumer
from dashboard.fleet_schemas import parse_frame
from dashboard.models import Runtime, TrimEvent
from dashboard.services import fleet as fleet_service

pytestmark = pytest.mark.django_db(transaction=True)

WS = {
    "type": "history_trimmed",
    "dropped_messages": 4,
    "kept_turns": 2,
    "reason": "context token budget exceeded",
}
SSE = {
    "type": "history_trimmed",
    "source": "observability",
    "dropped_messages": 3,
    "kept_turns": 5,
    "reason": "history message limit exceeded",
    "timestamp": "2026-11-29T10:00:00Z",
    "channel": "cli",
    "agent_alias": "main",
}
RPC = {
    "type": "history_trimmed",
    "session_id": "s-rpc",
    "dropped_messages": 1,
    "kept_turns": 1,
    "reason": "context token budget exceeded",
}
ACP = {
    "jsonrpc": "2.0",
    "method": "_zeroclaw/history_trimmed",
    "params": {
        "sessionId": "s-acp",
        "droppedMessages": 6,
        "keptTurns": 3,
        "reason": "context token budget exceeded",
    },
}


def envelope(seq, session="s-1", **event):
    return {
        "runtime": "r1",
        "session_id": session,
        "seq": seq,
        "sent_at": "2026-11-29T10:00:00Z",
        "event": {**WS, **event},
    }


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    # The in-memory layer keeps asyncio queues; each test runs in its own event loop.
    channel_layers.backends = {}
    yield
    channel_layers.backends = {}


@database_sync_to_async
def make_runtime(name="r1"):
    return services.runtime_create(name=name)


@database_sync_to_async
def rows(**filters):
    return list(TrimEvent.objects.filter(**filters).order_by("id"))


@database_sync_to_async
def runtime_row(pk):
    return Runtime.objects.get(pk=pk)


@database_sync_to_async
def revoke(runtime):
    services.runtime_revoke(runtime=runtime)


@pytest.fixture
async def runtime_and_token():
    return await make_runtime()


def communicator(token=None, *, header=True, query=None):
    headers = [(b"authorization", f"Bearer {token}".encode())] if token and header else []
    path = "/ws/runtime/" + (f"?{query}" if query else "")
    return WebsocketCommunicator(application, path, headers=headers)


async def open_socket(token, **kwargs):
    comm = communicator(token, **kwargs)
    connected, _ = await comm.connect()
    assert connected
    return comm


async def closed_with(comm, code, timeout=3):
    """Skip replies until the close; returns the replies seen before it."""
    seen = []
    while True:
        message = await comm.receive_output(timeout)
        if message["type"] == "websocket.close":
            assert message.get("code") == code, (message, seen)
            return seen
        seen.append(json.loads(message["text"]))


async def send(comm, frame):
    await comm.send_to(text_data=json.dumps(frame))
    return await comm.receive_json_from(timeout=3)


# -- auth ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"token": None},
        {"token": "rt_not-a-real-token"},
        {"token": "rt_not-a-real-token", "header": False, "query": "token=rt_not-a-real-token"},
        {"token": None, "query": "token="},
    ],
    ids=["missing", "wrong-header", "wrong-query", "blank-query"],
)
async def test_missing_or_wrong_token_is_closed_4401_and_nothing_is_stored(runtime_and_token, kwargs):
    comm = communicator(kwargs["token"], header=kwargs.get("header", True), query=kwargs.get("query"))
    connected, _ = await comm.connect()
    assert connected  # accepted first, so the client can see the application close code
    await comm.send_to(text_data=json.dumps(WS))
    assert await closed_with(comm, 4401) == []
    await comm.disconnect()
    assert await rows() == []


async def test_revoked_token_is_closed_4401(runtime_and_token):
    runtime, token = runtime_and_token
    await revoke(runtime)
    comm = await open_socket(token)
    assert await closed_with(comm, 4401) == []
    await comm.disconnect()
    assert await rows() == []


async def test_token_in_the_query_string_is_accepted(runtime_and_token):
    _, token = runtime_and_token
    comm = await open_socket(None, query=f"token={token}")
    assert (await send(comm, WS))["type"] == "ack"
    await comm.disconnect()


async def test_revoking_closes_an_open_socket_4401(runtime_and_token):
    runtime, token = runtime_and_token
    comm = await open_socket(token)
    assert (await send(comm, envelope(1)))["type"] == "ack"
    await revoke(runtime)
    await closed_with(comm, 4401)
    await comm.disconnect()
    assert len(await rows()) == 1


async def test_revoked_elsewhere_is_noticed_on_the_next_seen_check(runtime_and_token, monkeypatch):
    """Revoked by another process (no message reaches this one): the next frame is refused, unstored."""
    monkeypatch.setattr(runtime_consumer, "SEEN_EVERY", 0.0)
    runtime, token = runtime_and_token
    comm = await open_socket(token)
    assert (await send(comm, envelope(1)))["type"] == "ack"
    await database_sync_to_async(Runtime.objects.filter(pk=runtime.pk).update)(revoked_at=timezone.now())
    await comm.send_to(text_data=json.dumps(envelope(2)))
    assert await closed_with(comm, 4401) == []
    await comm.disconnect()
    assert [r.seq for r in await rows()] == [1]


async def test_connections_are_counted_and_mark_the_runtime_seen(runtime_and_token):
    runtime, token = runtime_and_token
    first, second = await open_socket(token), await open_socket(token)
    row = await runtime_row(runtime.pk)
    assert row.connected == 2 and row.last_seen_at is not None
    await first.disconnect()
    assert (await runtime_row(runtime.pk)).connected == 1
    await second.disconnect()
    assert (await runtime_row(runtime.pk)).connected == 0


async def test_last_seen_is_written_at_most_about_once_a_second(runtime_and_token, monkeypatch):
    seen = []
    real_seen = services.runtime_seen
    monkeypatch.setattr(services, "runtime_seen", lambda **kw: seen.append(kw) or real_seen(**kw))
    monkeypatch.setattr(runtime_consumer, "SEEN_EVERY", 0.3)
    _, token = runtime_and_token
    comm = await open_socket(token)
    loop = asyncio.get_running_loop()
    started = loop.time()
    for seq in range(1, 41):
        assert (await send(comm, envelope(seq)))["type"] == "ack"
        await asyncio.sleep(0.02)
    elapsed = loop.time() - started
    await comm.disconnect()
    assert 1 <= len(seen) <= elapsed / 0.3 + 1  # not once per event (40)


# -- accepted shapes -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("frame", "shape", "session"),
    [
        (WS, "ws", ""),
        (SSE, "sse", ""),
        (RPC, "rpc", "s-rpc"),
        (ACP, "acp", "s-acp"),
        (envelope(7, tokens_before=9000, tokens_after=4000, budget=8000, id="ev-1"), "envelope", "s-1"),
    ],
    ids=["ws", "sse", "rpc", "acp", "envelope"],
)
async def test_every_wire_shape_is_acked_with_the_stored_id(runtime_and_token, frame, shape, session):
    runtime, token = runtime_and_token
    comm = await open_socket(token)
    ack = await send(comm, frame)
    await comm.disconnect()
    [row] = await rows()
    assert ack == {
        "type": "ack",
        "id": row.pk,
        "seq": row.seq,
        "event_id": row.event_id,
        "duplicate": False,
    }
    assert row.shape == shape and row.session_id == session and row.runtime_id == runtime.pk
    assert row.payload == json.loads(json.dumps(frame))
    if shape == "envelope":
        assert (ack["seq"], ack["event_id"]) == (7, "ev-1")
        assert (row.tokens_before, row.tokens_after, row.budget) == (9000, 4000, 8000)


async def test_resent_envelope_after_reconnect_is_acked_as_duplicate_and_stored_once(runtime_and_token):
    _, token = runtime_and_token
    comm = await open_socket(token)
    first = await send(comm, envelope(1))
    await comm.disconnect()
    comm = await open_socket(token)
    again = await send(comm, envelope(1))
    other_session = await send(comm, envelope(1, session="s-2"))
    await comm.disconnect()
    assert again == {**first, "duplicate": True}
    assert other_session["duplicate"] is False and other_session["id"] != first["id"]
    assert len(await rows(session_id="s-1", seq=1)) == 1


async def test_resent_event_id_is_a_duplicate(runtime_and_token):
    _, token = runtime_and_token
    comm = await open_socket(token)
    first = await send(comm, envelope(1, id="ev-9"))
    again = await send(comm, envelope(2, id="ev-9"))
    await comm.disconnect()
    assert again["duplicate"] is True and again["id"] == first["id"]
    assert len(await rows()) == 1


async def test_replies_come_in_the_order_the_frames_were_sent(runtime_and_token):
    _, token = runtime_and_token
    comm = await open_socket(token)
    frames = [envelope(1), {"bad": 1}, envelope(2), "nope", envelope(1)]
    for frame in frames:
        await comm.send_to(text_data=json.dumps(frame))
    replies = [await comm.receive_json_from(timeout=3) for _ in frames]
    await comm.disconnect()
    assert [r["type"] for r in replies] == ["ack", "error", "ack", "error", "ack"]
    assert [r.get("seq") for r in replies] == [1, None, 2, None, 1]
    assert replies[4]["duplicate"] is True


# -- bad frames ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ("garbage", None, "not JSON"),
        ('{"type": "history_trimmed", "dropped_messages": 4', None, "not JSON"),
        ("[1, 2]", None, "must be a JSON object"),
        (json.dumps({**WS, "dropped_messages": "4"}), "dropped_messages", "valid integer"),
        (json.dumps({**WS, "dropped_messages": -1}), "dropped_messages", "greater than or equal"),
        (json.dumps({**WS, "colour": "red"}), "colour", "Extra inputs"),
        (json.dumps({k: v for k, v in WS.items() if k != "reason"}), "reason", "Field required"),
        (json.dumps({**WS, "type": "turn_started"}), "type", "history_trimmed"),
        (json.dumps({**envelope(1), "seq": "1"}), "seq", "valid integer"),
        (json.dumps(envelope(1, tokens_before=True)), "event.tokens_before", "valid integer"),
        (json.dumps({**ACP, "params": {**ACP["params"], "keptTurns": None}}), "params.keptTurns", "integer"),
        ("[" * 100_000, None, "not JSON"),
        ("1" * 5000, None, "not JSON"),
    ],
    ids=[
        "garbage",
        "truncated",
        "not-an-object",
        "string-count",
        "negative",
        "extra-field",
        "missing-field",
        "other-type",
        "string-seq",
        "bool-in-envelope",
        "acp-null",
        "deep-nesting",
        "huge-int",
    ],
)
async def test_bad_frame_gets_an_error_frame_and_the_socket_stays_open(
    runtime_and_token, settings, text, field, words
):
    settings.TRIMSCOPE_MAX_FRAME_BYTES = 200_000
    _, token = runtime_and_token
    comm = await open_socket(token)
    await comm.send_to(text_data=text)
    error = await comm.receive_json_from(timeout=3)
    assert error["type"] == "error" and error["field"] == field and words in error["message"], error
    assert await rows() == []
    ack = await send(comm, WS)  # still open: the next valid frame is stored
    await comm.disconnect()
    assert ack["type"] == "ack" and [r.pk for r in await rows()] == [ack["id"]]


async def test_binary_frame_gets_an_error_frame(runtime_and_token):
    _, token = runtime_and_token
    comm = await open_socket(token)
    await comm.send_to(bytes_data=json.dumps(WS).encode())
    error = await comm.receive_json_from(timeout=3)
    assert error["type"] == "error" and "binary" in error["message"]
    assert (await send(comm, WS))["type"] == "ack"
    await comm.disconnect()


async def test_frame_over_the_size_limit_is_closed_1009_and_not_stored(runtime_and_token, settings):
    settings.TRIMSCOPE_MAX_FRAME_BYTES = 1024
    _, token = runtime_and_token
    comm = await open_socket(token)
    ack = await send(comm, WS)
    big = {**WS, "reason": "x" * 2000}
    await comm.send_to(text_data=json.dumps(big))
    await comm.send_to(text_data=json.dumps(WS))  # after the oversized frame: ignored
    assert await closed_with(comm, 1009) == []
    await comm.disconnect()
    assert [r.pk for r in await rows()] == [ack["id"]]


async def test_size_limit_counts_bytes_not_characters(runtime_and_token, settings):
    settings.TRIMSCOPE_MAX_FRAME_BYTES = 600
    _, token = runtime_and_token
    comm = await open_socket(token)
    await comm.send_to(text_data=json.dumps({**WS, "reason": "é" * 250}, ensure_ascii=False))  # ~560 B
    assert (await comm.receive_json_from(timeout=3))["type"] == "ack"
    await comm.send_to(text_data=json.dumps({**WS, "reason": "é" * 300}, ensure_ascii=False))  # ~660 B
    await closed_with(comm, 1009)
    await comm.disconnect()


# -- backpressure ----------------------------------------------------------------------------------------


async def test_full_queue_closes_1013_and_only_stored_events_are_acked(
    runtime_and_token, settings, monkeypatch
):
    settings.TRIMSCOPE_INGEST_QUEUE = 2
    real_store = runtime_consumer._store_all

    async def slow_store(*args):
        await asyncio.sleep(0.2)
        return await real_store(*args)

    monkeypatch.setattr(runtime_consumer, "_store_all", slow_store)
    _, token = runtime_and_token
    comm = await open_socket(token)
    for seq in range(1, 21):
        await comm.send_to(text_data=json.dumps(envelope(seq)))
    replies = await closed_with(comm, 1013, timeout=5)
    await comm.disconnect()

    stored = {r.seq: r.pk for r in await rows()}
    acked = {a["seq"]: a["id"] for a in replies}
    assert all(a["type"] == "ack" and not a["duplicate"] for a in replies)
    assert acked and len(acked) < 20  # some were refused
    assert acked.items() <= stored.items()  # nothing acked that is not stored
    assert sorted(acked) == list(range(1, len(acked) + 1))  # acks in order, none skipped

    # The runtime reconnects and resends everything unacked: each event ends up stored exactly once.
    monkeypatch.setattr(runtime_consumer, "_store_all", real_store)
    comm = await open_socket(token)
    for seq in range(1, 21):
        if seq not in acked:
            assert (await send(comm, envelope(seq)))["type"] == "ack"
    await comm.disconnect()
    assert sorted(r.seq for r in await rows()) == list(range(1, 21))


async def test_storage_failure_closes_1011_without_acks(runtime_and_token, monkeypatch):
    async def broken_store(*args):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(runtime_consumer, "_store_all", broken_store)
    _, token = runtime_and_token
    comm = await open_socket(token)
    await comm.send_to(text_data=json.dumps(envelope(1)))
    assert await closed_with(comm, 1011) == []
    await comm.disconnect()


# -- live push -------------------------------------------------------------------------------------------


async def test_ingested_event_reaches_the_fleet_group_only_after_commit(runtime_and_token, monkeypatch):
    published = []
    real_publish = fleet_service.event_publish_many

    def checking_publish(stored):
        published.append(([event.pk for event in stored], connection.in_atomic_block))
        real_publish(stored)

    monkeypatch.setattr(fleet_service, "event_publish_many", checking_publish)
    layer = get_channel_layer()
    browser = await layer.new_channel()
    await layer.group_add(events.FLEET_GROUP, browser)
    _, token = runtime_and_token
    comm = await open_socket(token)
    ack = await send(comm, envelope(3, tokens_before=100))
    message = await asyncio.wait_for(layer.receive(browser), 3)
    duplicate = await send(comm, envelope(3, tokens_before=100))
    await comm.disconnect()

    assert published == [([ack["id"]], False)]  # published once, outside any transaction (committed)
    assert message["type"] == "fleet.events" and [e["id"] for e in message["events"]] == [ack["id"]]
    (event,) = message["events"]
    assert event["runtime"] == "r1" and event["session_id"] == "s-1" and event["tokens_before"] == 100
    assert duplicate["duplicate"] is True
    with pytest.raises(asyncio.TimeoutError):  # a duplicate is not pushed again
        await asyncio.wait_for(layer.receive(browser), 0.3)


# -- the batch service behind the socket -----------------------------------------------------------------


def test_batch_ingest_stores_new_events_in_one_go_and_finds_resends_among_them(monkeypatch):
    runtime, _ = services.runtime_create(name="r1")
    pushed = []
    monkeypatch.setattr(
        fleet_service, "event_publish_many", lambda stored: pushed.append([e.pk for e in stored])
    )

    def batch(*frames):
        return services.trim_events_ingest(
            runtime=runtime, frames=[(parse_frame(frame), frame) for frame in frames]
        )

    first = batch(envelope(1), WS, envelope(2))
    assert [r.created for r in first] == [True, True, True]
    rows_now = list(TrimEvent.objects.order_by("id"))
    assert [r.event.pk for r in first] == [row.pk for row in rows_now]
    assert all(row.received_at is not None for row in rows_now)

    second = batch(envelope(3), envelope(2), envelope(3), WS)  # a resend, and a repeat inside the batch
    assert [(r.created, r.event.seq) for r in second] == [(True, 3), (False, 2), (False, 3), (True, None)]
    assert second[1].event.pk == first[2].event.pk and second[2].event.pk == second[0].event.pk
    assert TrimEvent.objects.count() == 5
    assert pushed == [[r.event.pk for r in first], [second[0].event.pk, second[3].event.pk]]


def test_batches_of_several_runtimes_share_one_transaction_and_keep_their_own_results(monkeypatch):
    one, _ = services.runtime_create(name="r1")
    two, _ = services.runtime_create(name="r2")
    pushed = []
    monkeypatch.setattr(
        fleet_service, "event_publish_many", lambda stored: pushed.append([e.pk for e in stored])
    )

    def frames(*envelopes):
        return [(parse_frame(e), e) for e in envelopes]

    services.trim_events_ingest(runtime=one, frames=frames(envelope(1)))
    pushed.clear()
    results = services.trim_events_ingest_many(
        batches=[
            (one, frames(envelope(1), envelope(2))),  # a resend, then a new event
            (two, frames({**envelope(1), "runtime": "r2"}, {**envelope(2), "runtime": "r2"})),
        ]
    )
    assert [[(r.created, r.event.runtime_id, r.event.seq) for r in batch] for batch in results] == [
        [(False, one.pk, 1), (True, one.pk, 2)],
        [(True, two.pk, 1), (True, two.pk, 2)],
    ]
    assert TrimEvent.objects.filter(runtime=one).count() == 2
    assert TrimEvent.objects.filter(runtime=two).count() == 2
    # One push for the whole transaction, holding only what it created.
    assert pushed == [[results[0][1].event.pk, results[1][0].event.pk, results[1][1].event.pk]]


async def test_sockets_sending_at_once_are_each_acked_for_their_own_events(monkeypatch):
    """Concurrent sockets share transactions: every frame is acked once, on its socket, in its order."""
    calls = []
    real_store = runtime_consumer._store_all

    async def counting_store(requests):
        calls.append(len(requests))
        return await real_store(requests)

    monkeypatch.setattr(runtime_consumer, "_store_all", counting_store)
    sockets, ids = [], {}
    for name in ("r1", "r2", "r3"):
        runtime, token = await make_runtime(name)
        ids[name] = runtime.pk
        sockets.append((name, await open_socket(token)))
    for seq in range(1, 11):
        for name, comm in sockets:
            await comm.send_to(text_data=json.dumps({**envelope(seq), "runtime": name}))
    for _name, comm in sockets:
        acks = [json.loads(await comm.receive_from(timeout=5)) for _ in range(10)]
        assert [(a["type"], a["seq"], a["duplicate"]) for a in acks] == [
            ("ack", s, False) for s in range(1, 11)
        ]
        await comm.disconnect()
    stored = await rows()
    assert sorted((r.runtime_id, r.seq) for r in stored) == sorted(
        (ids[name], s) for name, _ in sockets for s in range(1, 11)
    )
    assert max(calls) > 1  # at least one transaction held batches of several sockets


# -- through a real daphne -------------------------------------------------------------------------------


async def test_close_codes_and_acks_reach_a_real_client_through_daphne(daphne_url):
    """The codes a runtime sees on the wire: 4401 after the accept, acks, error frames, 1009."""
    import websockets

    _, token = await make_runtime()
    url = daphne_url.replace("http://", "ws://") + "/ws/runtime/"

    async with websockets.connect(url + "?token=rt_wrong") as ws:
        with pytest.raises(websockets.ConnectionClosed) as refused:
            await ws.recv()
    assert refused.value.rcvd.code == 4401

    async with websockets.connect(url, additional_headers={"Authorization": f"Bearer {token}"}) as ws:
        await ws.send(json.dumps(envelope(1)))
        ack = json.loads(await ws.recv())
        await ws.send("{nope")
        error = json.loads(await ws.recv())
        await ws.send(json.dumps({**WS, "reason": "x" * 70_000}))  # over the 64 KiB default
        with pytest.raises(websockets.ConnectionClosed) as too_big:
            await ws.recv()
    assert ack["type"] == "ack" and ack["seq"] == 1 and error["type"] == "error"
    assert too_big.value.rcvd.code == 1009
    assert [r.pk for r in await rows()] == [ack["id"]]


@pytest.mark.django_db(transaction=True)
def test_a_channel_layer_that_is_down_does_not_fail_ingestion(monkeypatch):
    """Publishing is best effort: with Redis restarting the event is still stored and acknowledged."""

    def layer_down(_events):
        raise ConnectionError("channel layer unreachable")

    monkeypatch.setattr(fleet_service, "event_publish_many", layer_down)
    runtime, _ = fleet_service.runtime_create(name="down-layer")
    frame = parse_frame({"type": "history_trimmed", "dropped_messages": 1, "kept_turns": 2, "reason": "r"})
    stored = fleet_service.trim_events_ingest(runtime=runtime, frames=[(frame, {"x": 1})])
    assert len(stored) == 1 and stored[0].created
    assert TrimEvent.objects.filter(runtime=runtime).count() == 1
