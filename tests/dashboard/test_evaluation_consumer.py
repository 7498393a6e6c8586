"""``/ws/evaluations/<id>/``: signed-in users only; the current progress on connect, then one message per
finished chunk with done / total, rate and ETA."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from dashboard import services
from dashboard.asgi import application
from dashboard.services import corpora as corpus_services
from dashboard.services import evaluations as eval_services
from simulator.synthetic import synthetic_openclaw_session

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = (b"origin", b"http://localhost")


@database_sync_to_async
def _session_cookie() -> bytes:
    from django.contrib.auth.models import User

    user = User.objects.create_user(username="watcher", password="unused-password-1")
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode()


@database_sync_to_async
def _evaluation():
    corpus = corpus_services.corpus_create(name="live")
    corpus_services.corpus_add_files(
        corpus=corpus,
        files=[(f"s{i}.jsonl", synthetic_openclaw_session(4, session_id=f"s{i}").encode()) for i in range(3)],
    )
    return eval_services.evaluation_start(corpus=corpus, profiles=services.demo_profiles_ensure()[:1])


@database_sync_to_async
def _run_first_chunk(evaluation) -> None:
    eval_services.evaluation_chunk_run(chunk_id=evaluation.chunks.order_by("number").first().pk)


async def _connect(path: str, cookie: bytes | None = None) -> WebsocketCommunicator:
    headers = [ORIGIN] + ([(b"cookie", cookie)] if cookie else [])
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def test_anonymous_socket_is_closed_with_4401():
    communicator = await _connect("/ws/evaluations/1/")
    assert await communicator.receive_output(timeout=2) == {"type": "websocket.close", "code": 4401}
    await communicator.wait()


async def test_progress_arrives_on_connect_and_after_each_chunk(settings):
    settings.TRIMSCOPE_EVALUATION_CHUNK_MESSAGES = 10
    evaluation = await _evaluation()
    communicator = await _connect(f"/ws/evaluations/{evaluation.pk}/", await _session_cookie())
    first = json.loads(await communicator.receive_from(timeout=5))
    assert first["done"] == 0 and first["total"] == 3 and first["status"] == "queued"
    await _run_first_chunk(evaluation)
    update = json.loads(await communicator.receive_from(timeout=5))
    assert update["evaluation"] == evaluation.pk
    assert 0 < update["done"] < 3 and update["status"] == "running"
    assert update["rate"] > 0 and update["eta_seconds"] is not None
    assert update["chunks_done"] == 1 and update["chunks"] > 1
    await communicator.disconnect()
