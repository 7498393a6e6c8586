"""Tasks (django-tasks, stored by django-tasks-db, run by ``manage.py db_worker``). Each is a thin call
into a service, so the work can also be run and tested without a worker."""

from __future__ import annotations

from django_tasks import task


@task()
def evaluation_chunk_task(chunk_id: int) -> int:
    from dashboard.services.evaluations import evaluation_chunk_run

    return evaluation_chunk_run(chunk_id=chunk_id)


@task()
def evaluation_watch_task(evaluation_id: int) -> None:
    from dashboard.services.evaluations import evaluation_watch

    evaluation_watch(evaluation_id=evaluation_id)


@task()
def tune_task(tune_id: int) -> None:
    from dashboard.services.evaluations import tune_execute

    tune_execute(tune_id=tune_id)


@task()
def fleet_prune_task() -> int:
    """Retention: prune events and rollups past their age, then come back in an hour."""
    from dashboard.services.fleet_rollups import fleet_prune_and_reschedule

    return fleet_prune_and_reschedule()


@task()
def transcript_after_upload_task(transcript_id: int) -> int:
    """A long session's parsed form stored, and every message counted with o200k, after its upload."""
    from dashboard.services.transcripts import transcript_upload_finish

    return transcript_upload_finish(transcript_id=transcript_id)


@task()
def transcript_count_task(transcript_id: int) -> int:
    """Every message counted with o200k and stored: what uploads enqueued before
    ``transcript_after_upload_task`` (kept so that such queued tasks still run after an upgrade)."""
    from dashboard.services.transcripts import transcript_count_all

    return transcript_count_all(transcript_id=transcript_id)
