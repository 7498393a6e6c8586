"""Scale-out: two ``db_worker`` processes on PostgreSQL share an evaluation; one is killed with SIGKILL
while it holds a chunk. The evaluation still completes and every (transcript, profile) pair is counted
exactly once. Runs only when DATABASE_URL points at PostgreSQL (the scale-out CI pass)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection
from django.db.models import Count
from django_tasks_db.models import DBTaskResult

from dashboard import services
from dashboard.models import Evaluation, EvaluationChunk, EvaluationResult
from dashboard.services import corpora as corpus_services
from dashboard.services import evaluations as eval_services
from simulator.synthetic import synthetic_openclaw_session

pytestmark = [
    pytest.mark.services,
    pytest.mark.skipif(
        not os.environ.get("DATABASE_URL", "").startswith("postgres"),
        reason="needs DATABASE_URL (PostgreSQL)",
    ),
]

ROOT = Path(__file__).resolve().parents[2]
LEASE_SECONDS = 3


def worker(name: str) -> subprocess.Popen[bytes]:
    db = connection.settings_dict
    url = f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "TRIMSCOPE_EVALUATION_LEASE_SECONDS": str(LEASE_SECONDS),
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--no-reload", "--interval", "0.2", "--worker-id", name],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_evaluation_loses_nothing_and_counts_nothing_twice(settings):
    settings.TRIMSCOPE_EVALUATION_LEASE_SECONDS = LEASE_SECONDS
    # Chunks of about two sessions of 1,200-1,650 messages: long enough (a good fraction of a second) for
    # the poll below to find the doomed worker inside one. With sessions of a few dozen turns a chunk took
    # a few milliseconds once replays got faster, and the poll could miss every one of them.
    settings.TRIMSCOPE_EVALUATION_CHUNK_MESSAGES = 3000
    corpus = corpus_services.corpus_create(name="scale-out")
    corpus_services.corpus_add_files(
        corpus=corpus,
        files=[
            (f"s{i}.jsonl", synthetic_openclaw_session(300 + 10 * i, session_id=f"s{i}").encode())
            for i in range(12)
        ],
    )
    profiles = services.demo_profiles_ensure()[:2]
    evaluation = eval_services.evaluation_start(corpus=corpus, profiles=profiles)
    assert evaluation.chunks.count() >= 6

    doomed, survivor = worker("worker-doomed"), worker("worker-survivor")
    try:

        def doomed_mid_chunk() -> int | None:
            """A chunk the doomed worker has claimed and is working on right now."""
            for task in DBTaskResult.objects.filter(
                status="RUNNING",
                task_path="dashboard.tasks.evaluation_chunk_task",
                worker_ids__contains=["worker-doomed"],
            ):
                chunk_id = task.args_kwargs["args"][0]
                if EvaluationChunk.objects.filter(pk=chunk_id, status="running").exists():
                    return int(chunk_id)
            return None

        held_chunk = wait_for(doomed_mid_chunk, 60, "the doomed worker to be in the middle of a chunk")
        doomed.send_signal(signal.SIGKILL)
        doomed.wait(timeout=10)

        def finished() -> bool:
            evaluation.refresh_from_db()
            return evaluation.status == Evaluation.Status.DONE

        wait_for(finished, 180, "the evaluation to complete with one worker")
    finally:
        for proc in (doomed, survivor):
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=10)

    results = EvaluationResult.objects.filter(evaluation=evaluation)
    assert results.count() == evaluation.total_pairs == 12 * 2
    pairs = results.values("transcript", "profile").annotate(n=Count("id"))
    assert {row["n"] for row in pairs} == {1} and len(pairs) == 24
    chunk = EvaluationChunk.objects.get(pk=held_chunk)
    assert chunk.status == "done" and chunk.attempts >= 2
    # The killed worker's task row stays RUNNING (django-tasks-db does not reclaim it); the chunk was
    # enqueued again as a new task instead.
    assert DBTaskResult.objects.filter(args_kwargs__args=[held_chunk]).count() >= 2
