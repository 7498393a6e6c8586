"""``manage.py follow`` against fake ZeroClaw gateways (SSE and WebSocket), each dropping the stream once."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from websockets.sync.server import ServerConnection, serve

from dashboard.models import Runtime, TrimEvent

pytestmark = pytest.mark.django_db

TOKEN = "gw-secret"
BUDGET = "context token budget exceeded"


def ws_frame(n: int) -> dict[str, object]:
    return {"type": "history_trimmed", "dropped_messages": n, "kept_turns": 2, "reason": BUDGET}


# One stream per wire shape, in a mix with other event types, an invalid history_trimmed and garbage.
# Valid history_trimmed frames carry distinct dropped_messages so each can be found exactly once.
FRAMES: list[str] = [
    json.dumps(ws_frame(1)),
    json.dumps({"type": "chunk", "delta": "Looking at the logs"}),
    json.dumps(
        {
            "type": "history_trimmed",
            "source": "observability",
            "dropped_messages": 2,
            "kept_turns": 5,
            "reason": "history message limit exceeded",
            "timestamp": "2026-03-08T09:18:21Z",
            "channel": "cli",
        },
        indent=1,  # spread over several data: lines
    ),
    "{not json at all",
    json.dumps(
        {
            "type": "history_trimmed",
            "session_id": "gw-s1",
            "dropped_messages": 3,
            "kept_turns": 4,
            "reason": BUDGET,
        }
    ),
    json.dumps({"type": "history_trimmed", "dropped_messages": "many", "kept_turns": 1, "reason": BUDGET}),
    json.dumps(
        {
            "jsonrpc": "2.0",
            "method": "_zeroclaw/history_trimmed",
            "params": {"sessionId": "gw-s2", "droppedMessages": 4, "keptTurns": 6, "reason": BUDGET},
        }
    ),
    json.dumps({"type": "tool_call", "name": "read_file"}),
    json.dumps(
        {
            "session_id": "gw-s3",
            "seq": 7,
            "sent_at": "2026-03-08T09:20:00Z",
            "event": {**ws_frame(5), "tokens_before": 9000, "tokens_after": 7000, "budget": 8000},
        }
    ),
    json.dumps(ws_frame(6)),
]
VALID = {1: "ws", 2: "sse", 3: "rpc", 4: "acp", 5: "envelope", 6: "ws"}
DROP_AFTER = 4  # the first connection ends after this many events


class SseGateway(BaseHTTPRequestHandler):
    requests: list[dict[str, str | None]] = []
    done = threading.Event()

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        type(self).requests.append(
            {"auth": self.headers.get("Authorization"), "last": self.headers.get("Last-Event-ID")}
        )
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            self.send_error(401)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        last = self.headers.get("Last-Event-ID")
        start = int(last) if last else 0
        end = DROP_AFTER if start == 0 else len(FRAMES)
        self.wfile.write(b": hello\n\n")
        for i in range(start, end):
            lines = "".join(f"data: {line}\n" for line in FRAMES[i].split("\n"))
            self.wfile.write(f"id: {i + 1}\nevent: message\n{lines}\n".encode())
            self.wfile.flush()
        if end == len(FRAMES):
            type(self).done.wait(5)  # keep the stream open like a live gateway
        # else: returning closes the connection mid-stream (HTTP/1.0: the body ends here)


@pytest.fixture
def sse_gateway() -> Iterator[str]:
    SseGateway.requests = []
    SseGateway.done = threading.Event()
    server = ThreadingHTTPServer(("127.0.0.1", 0), SseGateway)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/api/events/stream"
    SseGateway.done.set()
    server.shutdown()
    server.server_close()


class WsGateway:
    def __init__(self) -> None:
        self.connections: list[str | None] = []
        self.release = threading.Event()

    def handler(self, ws: ServerConnection) -> None:
        self.connections.append(ws.request.headers.get("Authorization") if ws.request else None)
        if len(self.connections) == 1:
            for text in FRAMES[:DROP_AFTER]:
                ws.send(text)
            ws.close(1011, "gateway restarting")
            return
        for text in FRAMES[DROP_AFTER:]:
            ws.send(text)
        self.release.wait(5)


@pytest.fixture
def ws_gateway() -> Iterator[tuple[str, WsGateway]]:
    gateway = WsGateway()
    with serve(gateway.handler, "127.0.0.1", 0) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        port = server.socket.getsockname()[1]
        yield f"ws://127.0.0.1:{port}/ws", gateway
        gateway.release.set()
        server.shutdown()


def follow(url: str, *extra: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(
        "follow",
        url,
        "--token",
        TOKEN,
        "--runtime",
        "gw-1",
        "--max-events",
        str(len(VALID)),
        "--backoff-initial",
        "0.01",
        "--backoff-max",
        "0.05",
        "--max-retries",
        "5",
        "--idle-timeout",
        "5",
        *extra,
        stdout=out,
        stderr=err,
    )
    return out.getvalue(), err.getvalue()


def assert_stored_exactly_the_valid_frames() -> None:
    runtime = Runtime.objects.get(name="gw-1")
    assert runtime.kind == "zeroclaw"
    rows = list(TrimEvent.objects.filter(runtime=runtime))
    assert sorted((r.dropped_messages, r.shape) for r in rows) == sorted(VALID.items())
    by_drop = {r.dropped_messages: r for r in rows}
    assert by_drop[3].session_id == "gw-s1" and by_drop[4].session_id == "gw-s2"
    assert by_drop[5].session_id == "gw-s3" and by_drop[5].seq == 7 and by_drop[5].tokens_before == 9000
    assert by_drop[2].channel == "cli" and by_drop[2].reason == "history message limit exceeded"


def test_follow_sse_ingests_each_history_trimmed_once_and_resumes(sse_gateway):
    out, err = follow(sse_gateway)
    assert_stored_exactly_the_valid_frames()
    # Two connections: the drop was followed by a resume from the last event id.
    assert [r["last"] for r in SseGateway.requests] == [None, str(DROP_AFTER)]
    assert all(r["auth"] == f"Bearer {TOKEN}" for r in SseGateway.requests)
    assert "unreadable frame" in err and "invalid history_trimmed frame" in err
    assert "reconnecting" in err
    assert "6 stored, 0 already stored, 2 other events, 2 invalid, 2 connections" in out


def test_follow_ws_ingests_each_history_trimmed_once_after_a_drop(ws_gateway):
    url, gateway = ws_gateway
    out, err = follow(url)
    assert_stored_exactly_the_valid_frames()
    assert gateway.connections == [f"Bearer {TOKEN}", f"Bearer {TOKEN}"]
    assert "6 stored" in out and "2 connections" in out


def test_follow_transport_override_turns_http_into_ws(ws_gateway):
    url, _ = ws_gateway
    out, _ = follow(url.replace("ws://", "http://"), "--transport", "ws")
    assert "(ws)" in out
    assert TrimEvent.objects.filter(runtime__name="gw-1").count() == len(VALID)


def test_follow_refused_token_stops_without_retrying(sse_gateway):
    with pytest.raises(CommandError, match="refused the token"):
        call_command("follow", sse_gateway, "--token", "wrong", "--runtime", "gw-1", stdout=StringIO())
    assert len(SseGateway.requests) == 1
    assert not TrimEvent.objects.exists()


def test_follow_gives_up_after_max_retries_when_nothing_listens():
    with pytest.raises(CommandError, match="giving up after 2 attempts"):
        call_command(
            "follow",
            "http://127.0.0.1:9/stream",
            "--token",
            TOKEN,
            "--backoff-initial",
            "0.001",
            "--max-retries",
            "2",
            stdout=StringIO(),
            stderr=StringIO(),
        )
    assert Runtime.objects.filter(name="gateway-127.0.0.1:9", kind="zeroclaw").exists()


def test_follow_refuses_a_revoked_runtime():
    from dashboard import services

    runtime, _ = services.runtime_create(name="gw-off")
    services.runtime_revoke(runtime=runtime)
    with pytest.raises(CommandError, match="revoked"):
        call_command(
            "follow", "http://127.0.0.1:9/", "--token", TOKEN, "--runtime", "gw-off", stdout=StringIO()
        )
