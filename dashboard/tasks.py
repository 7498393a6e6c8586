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
def transcript_form_task(transcript_id: int) -> bool:
    """A long session's parsed form stored after its upload (which leaves it)."""
    from dashboard.services.transcripts import transcript_form_store

    return transcript_form_store(transcript_id=transcript_id)


@task()
def transcript_count_task(transcript_id: int) -> int:
    """Every message of a long session counted with o200k after its upload, and stored."""
    from dashboard.services.transcripts import transcript_count_all

    return transcript_count_all(transcript_id=transcript_id)
