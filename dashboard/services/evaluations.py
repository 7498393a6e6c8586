"""Evaluations: profiles run over a corpus in chunks by database-backed tasks, and profile searches.

``evaluation_start`` snapshots the profiles, splits the corpus into chunks of about
``TRIMSCOPE_EVALUATION_CHUNK_MESSAGES`` transcript messages × profiles each (so a task's own cost --
claiming its row, storing its result, the worker's poll -- stays a small share of the work), and enqueues
one task per chunk plus a watch task. Any number of ``manage.py db_worker`` processes, on any machine that
shares the database, run them.

Exactly once: results are keyed by (evaluation, transcript, profile) and inserted with conflicts ignored,
so a chunk that runs twice writes each pair once. A chunk holds a lease that its worker extends while it
works; a chunk still running after its lease ran out belonged to a worker that died (SIGKILL, a lost
machine) and is enqueued again by the watch task or by any chunk that finishes. Progress is published to
the evaluation's channel group after each chunk commits.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime, timedelta

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks.exceptions import TaskResultDoesNotExist

from dashboard.errors import ApplicationError
from dashboard.models import (
    Corpus,
    Evaluation,
    EvaluationChunk,
    EvaluationProfile,
    EvaluationResult,
    Profile,
    Transcript,
    TuneRun,
)
from dashboard.selectors.transcripts import transcript_read
from simulator import (
    JSON,
    OBJECTIVES,
    RUNTIMES,
    Constraints,
    Objective,
    PreparedTranscript,
    ProfileSummary,
    Runtime,
    SessionMetrics,
    SimulatorError,
    evaluate_session,
    profile_from_document,
    profile_to_document,
    summarise,
    tune,
)


class EvaluationError(SimulatorError, ApplicationError):
    """An evaluation or tune request that cannot be met: 422."""

    status = 422


def evaluation_group(evaluation_id: int) -> str:
    return f"evaluation-{evaluation_id}"


def _user(user: User | AnonymousUser | None) -> User | None:
    return user if isinstance(user, User) else None


def _chunks(transcripts: Sequence[tuple[int, int]], profiles: int, target: int) -> list[list[int]]:
    """Transcript ids grouped so each group holds about ``target`` messages × profiles of work."""
    out: list[list[int]] = []
    current: list[int] = []
    work = 0
    for pk, messages in transcripts:
        current.append(pk)
        work += max(messages, 1) * profiles
        if work >= target:
            out.append(current)
            current, work = [], 0
    if current:
        out.append(current)
    return out


def _enqueue_chunk(chunk: EvaluationChunk) -> None:
    from dashboard.tasks import evaluation_chunk_task

    result = evaluation_chunk_task.enqueue(chunk.pk)
    EvaluationChunk.objects.filter(pk=chunk.pk).update(task_id=str(result.id))


def _enqueue_watch(evaluation_id: int) -> None:
    from dashboard.tasks import evaluation_watch_task

    lease = float(settings.TRIMSCOPE_EVALUATION_LEASE_SECONDS)
    evaluation_watch_task.using(run_after=timezone.now() + timedelta(seconds=lease)).enqueue(evaluation_id)


@transaction.atomic
def evaluation_start(
    *, corpus: Corpus, profiles: Sequence[Profile], user: User | AnonymousUser | None = None
) -> Evaluation:
    """Create an evaluation of ``profiles`` over ``corpus`` and enqueue its chunks."""
    return _start(corpus, [(p, p.name, p.runtime, p.settings) for p in profiles], user)


Snapshot = tuple[Profile | None, str, str, object]


def _start(corpus: Corpus, snapshots: Sequence[Snapshot], user: User | AnonymousUser | None) -> Evaluation:
    if not snapshots:
        raise EvaluationError("choose at least one profile", {"field": "profiles"})
    rows = list(corpus.transcripts.order_by("pk").values_list("pk", "message_count"))
    if not rows:
        raise EvaluationError(f"corpus {corpus.name!r} has no transcripts", {"field": "corpus"})
    evaluation = Evaluation.objects.create(
        corpus=corpus, total_pairs=len(rows) * len(snapshots), created_by=_user(user)
    )
    for position, (profile, name, runtime, document) in enumerate(snapshots):
        EvaluationProfile.objects.create(
            evaluation=evaluation,
            position=position,
            profile=profile,
            name=name,
            runtime=runtime,
            document=document,
        )
    target = int(settings.TRIMSCOPE_EVALUATION_CHUNK_MESSAGES)
    chunks = [
        EvaluationChunk.objects.create(evaluation=evaluation, number=n, transcript_ids=ids)
        for n, ids in enumerate(_chunks(rows, len(snapshots), target), start=1)
    ]

    def enqueue() -> None:
        for chunk in chunks:
            _enqueue_chunk(chunk)
        _enqueue_watch(evaluation.pk)

    transaction.on_commit(enqueue)
    return evaluation


@transaction.atomic
def evaluation_rerun(*, evaluation: Evaluation, user: User | AnonymousUser | None = None) -> Evaluation:
    """A new evaluation of the same corpus with the same profile documents as ``evaluation``."""
    snapshots: list[Snapshot] = [
        (p.profile, p.name, p.runtime, p.document) for p in evaluation.profiles.all()
    ]
    return _start(evaluation.corpus, snapshots, user)


def evaluation_cancel(*, evaluation: Evaluation) -> Evaluation:
    """Stop an evaluation: chunks not yet started are skipped; results already stored stay."""
    Evaluation.objects.filter(pk=evaluation.pk, status__in=["queued", "running"]).update(
        status=Evaluation.Status.CANCELLED, finished_at=timezone.now()
    )
    evaluation.refresh_from_db()
    _publish(evaluation)
    return evaluation


def _metrics_row(
    evaluation: Evaluation, transcript_id: int, profile_id: int, m: SessionMetrics
) -> EvaluationResult:
    return EvaluationResult(
        evaluation=evaluation,
        transcript_id=transcript_id,
        profile_id=profile_id,
        calls=m.calls,
        calls_trimmed=m.calls_trimmed,
        overflow_failures=m.overflow_failures,
        messages_dropped=m.messages_dropped,
        turns_dropped=m.turns_dropped,
        turns=m.turns,
        min_kept_turn_fraction=m.min_kept_turn_fraction,
        mean_kept_turn_fraction=m.mean_kept_turn_fraction,
        kept_histogram=list(m.kept_histogram),
        tokens_sent=m.tokens_sent,
        tokens_full=m.tokens_full,
        input_tokens=m.input_tokens,
        cache_read_tokens=m.cache_read_tokens,
        cache_write_tokens=m.cache_write_tokens,
        output_tokens=m.output_tokens,
        cost_usd=m.cost_usd,
        first_trim_call=m.first_trim_call,
        rereads=m.rereads,
    )


def _claim(chunk_id: int) -> EvaluationChunk | None:
    """Take the chunk for this worker, or ``None`` when it is done or its evaluation is over."""
    lease = float(settings.TRIMSCOPE_EVALUATION_LEASE_SECONDS)
    with transaction.atomic():
        chunk = (
            EvaluationChunk.objects.select_for_update()
            .select_related("evaluation")
            .filter(pk=chunk_id)
            .first()
        )
        if chunk is None or chunk.status == EvaluationChunk.Status.DONE:
            return None
        evaluation = chunk.evaluation
        if evaluation.status in (Evaluation.Status.CANCELLED, Evaluation.Status.DONE):
            return None
        now = timezone.now()
        chunk.status = EvaluationChunk.Status.RUNNING
        chunk.attempts += 1
        chunk.lease_until = now + timedelta(seconds=lease)
        chunk.save(update_fields=["status", "attempts", "lease_until"])
        Evaluation.objects.filter(pk=evaluation.pk, status=Evaluation.Status.QUEUED).update(
            status=Evaluation.Status.RUNNING, started_at=now
        )
    return chunk


def evaluation_chunk_run(*, chunk_id: int) -> int:
    """Run one chunk: every transcript in it under every profile. Returns the pairs newly stored.

    Safe to run any number of times, concurrently too: each pair is stored once.
    """
    chunk = _claim(chunk_id)
    if chunk is None:
        return 0
    evaluation = chunk.evaluation
    if chunk.attempts > MAX_ATTEMPTS:
        return _give_up(chunk)
    lease = float(settings.TRIMSCOPE_EVALUATION_LEASE_SECONDS)
    profiles = [(p.pk, profile_from_document(p.document, name=p.name)) for p in evaluation.profiles.all()]
    started = time.perf_counter()
    last_beat = started
    rows: list[EvaluationResult] = []
    chunk_transcripts = Transcript.objects.filter(pk__in=chunk.transcript_ids)
    for transcript in chunk_transcripts.order_by("pk"):
        try:
            parsed = transcript_read(transcript=transcript)
            prepared = PreparedTranscript.of(parsed, source=str(transcript.pk))
        except SimulatorError as exc:
            rows.extend(
                EvaluationResult(
                    evaluation=evaluation, transcript=transcript, profile_id=pk, error=exc.message
                )
                for pk, _ in profiles
            )
            continue
        # Parsed once, replayed under every profile.
        for pk, profile in profiles:
            rows.append(_metrics_row(evaluation, transcript.pk, pk, evaluate_session(prepared, profile)))
        if time.perf_counter() - last_beat > lease / 3:
            last_beat = time.perf_counter()
            EvaluationChunk.objects.filter(pk=chunk.pk).update(
                lease_until=timezone.now() + timedelta(seconds=lease)
            )
    work = time.perf_counter() - started
    with transaction.atomic():
        before = EvaluationResult.objects.filter(evaluation=evaluation).count()
        EvaluationResult.objects.bulk_create(rows, ignore_conflicts=True)
        stored = EvaluationResult.objects.filter(evaluation=evaluation).count() - before
        EvaluationChunk.objects.filter(pk=chunk.pk).update(
            status=EvaluationChunk.Status.DONE,
            work_seconds=work,
            finished_at=timezone.now(),
            lease_until=None,
        )
        _finish_if_complete(evaluation.pk)
    evaluation.refresh_from_db()
    transaction.on_commit(lambda: _publish(evaluation), robust=True)
    evaluation_sweep(evaluation=evaluation)
    return stored


MAX_ATTEMPTS = 5
"""A chunk whose workers died this many times is recorded as failed rather than tried forever."""


def _give_up(chunk: EvaluationChunk) -> int:
    evaluation = chunk.evaluation
    reason = f"not evaluated: the chunk's worker stopped {chunk.attempts - 1} times"
    rows = [
        EvaluationResult(evaluation=evaluation, transcript_id=t, profile_id=p, error=reason)
        for t in chunk.transcript_ids
        for p in evaluation.profiles.values_list("pk", flat=True)
    ]
    with transaction.atomic():
        EvaluationResult.objects.bulk_create(rows, ignore_conflicts=True)
        EvaluationChunk.objects.filter(pk=chunk.pk).update(
            status=EvaluationChunk.Status.DONE, finished_at=timezone.now(), lease_until=None
        )
        _finish_if_complete(evaluation.pk)
    return 0


def _finish_if_complete(evaluation_id: int) -> None:
    open_chunks = EvaluationChunk.objects.filter(evaluation_id=evaluation_id).exclude(
        status=EvaluationChunk.Status.DONE
    )
    if not open_chunks.exists():
        Evaluation.objects.filter(pk=evaluation_id, status__in=["queued", "running"]).update(
            status=Evaluation.Status.DONE, finished_at=timezone.now()
        )


def _task_died(chunk: EvaluationChunk, stale_before: datetime) -> bool:
    """Whether the task that should run a pending chunk was taken by a worker that never claimed the chunk
    (it died between taking the task and claiming the chunk, which takes milliseconds) or failed."""
    from dashboard.tasks import evaluation_chunk_task

    if not chunk.task_id:
        return False
    try:
        result = evaluation_chunk_task.get_result(chunk.task_id)
    except TaskResultDoesNotExist:
        return True
    if result.status == TaskResultStatus.FAILED:
        return True
    started = result.started_at
    return result.status == TaskResultStatus.RUNNING and started is not None and started < stale_before


def evaluation_sweep(*, evaluation: Evaluation) -> int:
    """Enqueue again every chunk whose worker died. Returns how many.

    A running chunk whose lease ran out lost its worker mid-chunk; a pending chunk whose task a worker
    took more than a lease ago (or that failed) lost it before the chunk was claimed.
    """
    if evaluation.status not in (Evaluation.Status.QUEUED, Evaluation.Status.RUNNING):
        return 0
    lease = float(settings.TRIMSCOPE_EVALUATION_LEASE_SECONDS)
    now = timezone.now()
    again = 0
    running = EvaluationChunk.objects.filter(
        evaluation=evaluation, status=EvaluationChunk.Status.RUNNING, lease_until__lt=now
    )
    for chunk in running:
        # Conditional on the lease seen, so two sweepers never both enqueue it.
        claimed = EvaluationChunk.objects.filter(pk=chunk.pk, lease_until=chunk.lease_until).update(
            status=EvaluationChunk.Status.PENDING, lease_until=None
        )
        if claimed:
            _enqueue_chunk(chunk)
            again += 1
    pending = EvaluationChunk.objects.filter(evaluation=evaluation, status=EvaluationChunk.Status.PENDING)
    for chunk in pending.exclude(task_id=""):
        if not _task_died(chunk, now - timedelta(seconds=lease)):
            continue
        if EvaluationChunk.objects.filter(pk=chunk.pk, task_id=chunk.task_id, status="pending").update(
            task_id=""
        ):
            _enqueue_chunk(chunk)
            again += 1
    return again


def evaluation_watch(*, evaluation_id: int) -> None:
    """The watch task: come back later while the evaluation is open, and re-enqueue dead chunks.

    The next watch is enqueued first, so a worker killed in the middle of this one does not end the chain.
    """
    evaluation = Evaluation.objects.filter(pk=evaluation_id).first()
    if evaluation is None or evaluation.status not in (Evaluation.Status.QUEUED, Evaluation.Status.RUNNING):
        return
    _enqueue_watch(evaluation.pk)
    evaluation_sweep(evaluation=evaluation)
    _finish_if_complete(evaluation.pk)


def _publish(evaluation: Evaluation) -> None:
    from dashboard.selectors.evaluations import evaluation_progress

    layer = get_channel_layer()
    if layer is None:
        return
    progress = evaluation_progress(evaluation=evaluation)
    async_to_sync(layer.group_send)(
        evaluation_group(evaluation.pk),
        {"type": "evaluation.progress", **progress.as_message()},
    )


# -- profile search -------------------------------------------------------------------------------------


def tune_start(
    *,
    corpus: Corpus,
    runtime: str,
    objective: str = "cost",
    max_overflow: int = 0,
    min_kept_turns: float = 0.0,
    kept_at: str = "every",
    max_trims_per_session: int | None = None,
    user: User | AnonymousUser | None = None,
) -> TuneRun:
    if runtime not in RUNTIMES:
        raise EvaluationError(f"runtime must be one of {', '.join(RUNTIMES)}", {"field": "runtime"})
    if objective not in OBJECTIVES:
        raise EvaluationError(f"objective must be one of {', '.join(OBJECTIVES)}", {"field": "objective"})
    if kept_at not in ("every", "average"):
        raise EvaluationError("kept_at must be 'every' or 'average'", {"field": "kept_at"})
    if not 0.0 <= min_kept_turns <= 1.0:
        raise EvaluationError("min_kept_turns must be between 0 and 1", {"field": "min_kept_turns"})
    if max_overflow < 0 or (max_trims_per_session is not None and max_trims_per_session < 0):
        raise EvaluationError("limits must be 0 or more", {"field": "max_overflow"})
    if not corpus.transcripts.exists():
        raise EvaluationError(f"corpus {corpus.name!r} has no transcripts", {"field": "corpus"})
    run = TuneRun.objects.create(
        corpus=corpus,
        runtime=runtime,
        objective=objective,
        max_overflow=max_overflow,
        min_kept_turns=min_kept_turns,
        kept_at=kept_at,
        max_trims_per_session=max_trims_per_session,
        created_by=_user(user),
    )

    def enqueue() -> None:
        from dashboard.tasks import tune_task

        tune_task.enqueue(run.pk)

    transaction.on_commit(enqueue)
    return run


def _summary_json(summary: ProfileSummary) -> dict[str, object]:
    return {
        **summary.row(),
        "mean_kept_turn_fraction": summary.mean_kept_turn_fraction,
        "min_kept_turn_fraction": summary.min_kept_turn_fraction,
    }


def tune_execute(*, tune_id: int) -> TuneRun | None:
    """The tune task: parse the corpus once, search, store the result."""
    run = TuneRun.objects.filter(pk=tune_id).select_related("corpus").first()
    if run is None or run.status == TuneRun.Status.DONE:
        return run
    TuneRun.objects.filter(pk=run.pk).update(status=TuneRun.Status.RUNNING)
    prepared: list[PreparedTranscript] = []
    for transcript in run.corpus.transcripts.order_by("pk"):
        try:
            parsed = transcript_read(transcript=transcript)
        except SimulatorError:
            continue
        prepared.append(PreparedTranscript.of(parsed, source=str(transcript.pk)))
    runtime: Runtime = next(r for r in RUNTIMES if r == run.runtime)
    objective: Objective = next(o for o in OBJECTIVES if o == run.objective)
    constraints = Constraints(
        max_overflow=run.max_overflow,
        min_kept_turns=run.min_kept_turns,
        kept_at="average" if run.kept_at == "average" else "every",
        max_trims_per_session=run.max_trims_per_session,
    )
    result = tune(
        runtime,
        lambda profiles: [
            summarise(p.name, p.runtime, [evaluate_session(t, p) for t in prepared]) for p in profiles
        ],
        constraints=constraints,
        objective=objective,
    )
    run.result = {
        "best": None
        if result.best is None
        else {"profile": result.best.candidate.document, "metrics": _summary_json(result.best.summary)},
        "reasons": list(result.reasons),
        "front": [
            {"profile": s.candidate.document, "metrics": _summary_json(s.summary)} for s in result.front
        ],
        "candidates": [
            {
                "name": s.candidate.profile.name,
                "metrics": _summary_json(s.summary),
                "violations": list(s.violations),
            }
            for s in result.scored
        ],
        "sessions": len(prepared),
    }
    run.status = TuneRun.Status.DONE
    run.finished_at = timezone.now()
    run.save(update_fields=["result", "status", "finished_at"])
    return run


def tune_best_document(*, run: TuneRun) -> dict[str, JSON] | None:
    """The recommended profile's document, canonical (as the profile reader writes it back)."""
    if not run.result or not isinstance(run.result, dict) or run.result.get("best") is None:
        return None
    profile = profile_from_document(run.result["best"]["profile"], name="recommended")
    return dict(profile_to_document(profile))


__all__ = [
    "EvaluationError",
    "evaluation_cancel",
    "evaluation_chunk_run",
    "evaluation_group",
    "evaluation_rerun",
    "evaluation_start",
    "evaluation_sweep",
    "evaluation_watch",
    "tune_best_document",
    "tune_execute",
    "tune_start",
]
