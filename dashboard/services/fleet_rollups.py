"""Per-minute rollups of trim events, and retention: what keeps the fleet pages fast at millions of events.

Rollups keyed by the minute of ``TrimEvent.received_at`` (whole minutes since the epoch), per minute
for the short ranges and per hour for the long ones: ``RuntimeMinute``/``RuntimeHour`` (per runtime) and
``SessionMinute``/``SessionHour`` (per runtime, session and reason). Ingestion adds each stored batch
with one upsert per rollup (``ON CONFLICT … DO UPDATE``, which PostgreSQL and SQLite both speak), in
the batch's transaction, so a rollup never counts an event that was rolled back.
``trim_rollups_rebuild`` recomputes them from the events (after an import, or to check them), and
``fleet_prune`` deletes events past ``TRIMSCOPE_EVENT_RETENTION_DAYS`` and rollups past
``TRIMSCOPE_ROLLUP_RETENTION_DAYS``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from dashboard.models import (
    RuntimeHour,
    RuntimeMinute,
    RuntimeRollup,
    SessionHour,
    SessionMinute,
    SessionRollup,
    TrimEvent,
)
from dashboard.selectors.fleet_filters import epoch_minute

FAILED = "failed"
PRUNE_BATCH = 20_000


def minute_start(minute: int) -> datetime:
    return datetime.fromtimestamp(minute * 60, tz=UTC)


def session_key(session_id: str, reason: str) -> str:
    """The short unique key of a (session, reason) pair; the SQL rebuild computes the same digest."""
    return hashlib.md5(f"{len(session_id)}:{session_id}{reason}".encode(), usedforsecurity=False).hexdigest()


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


Param = int | str | datetime | None


def _upsert(
    table: str, columns: Sequence[str], conflict: Sequence[str], updates: str, rows: list[tuple[Param, ...]]
) -> None:
    if not rows:
        return
    one = "(" + ", ".join(["%s"] * len(columns)) + ")"
    values = ", ".join([one] * len(rows))
    sql = (
        f"INSERT INTO {_q(table)} ({', '.join(_q(c) for c in columns)}) VALUES {values} "
        f"ON CONFLICT ({', '.join(_q(c) for c in conflict)}) DO UPDATE SET {updates}"
    )
    params = [value for row in rows for value in row]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _add(table: str, column: str) -> str:
    return f"{_q(column)} = {_q(table)}.{_q(column)} + excluded.{_q(column)}"


def trim_rollups_add(*, events: Iterable[TrimEvent]) -> None:
    """Count newly stored events into both rollups: one upsert each for the whole batch.

    Call inside the transaction that stored them. Rows are sorted by key so two workers upserting
    overlapping minutes take their row locks in the same order (no deadlock).
    """
    events = list(events)
    _runtimes_add(RuntimeMinute, 1, events)
    _runtimes_add(RuntimeHour, 60, events)
    _sessions_add(SessionMinute, 1, events)
    _sessions_add(SessionHour, 60, events)


def _runtimes_add(model: type[RuntimeRollup], width: int, events: Sequence[TrimEvent]) -> None:
    groups: dict[tuple[int, int], list[int]] = {}
    for event in events:
        minute = epoch_minute(event.received_at)
        counts = groups.setdefault((minute - minute % width, event.runtime_id), [0, 0, 0])
        counts[0] += 1
        counts[1] += event.dropped_messages
        counts[2] += 1 if event.overflow_recovery == FAILED else 0
    table = model._meta.db_table
    _upsert(
        table,
        ["minute", "runtime_id", "trims", "dropped_messages", "failed"],
        ["minute", "runtime_id"],
        ", ".join(_add(table, c) for c in ("trims", "dropped_messages", "failed")),
        [(m, r, *c) for (m, r), c in sorted(groups.items())],
    )


def _sessions_add(model: type[SessionRollup], width: int, events: Sequence[TrimEvent]) -> None:
    groups: dict[tuple[int, int, str], tuple[str, str, list[int], list[datetime]]] = {}
    for event in events:
        minute = epoch_minute(event.received_at)
        bucket = minute - minute % width
        failed = 1 if event.overflow_recovery == FAILED else 0
        key = session_key(event.session_id, event.reason)
        entry = groups.get((bucket, event.runtime_id, key))
        if entry is None:
            groups[(bucket, event.runtime_id, key)] = (
                event.session_id,
                event.reason,
                [1, failed],
                [event.received_at],
            )
        else:
            entry[2][0] += 1
            entry[2][1] += failed
            entry[3][0] = max(entry[3][0], event.received_at)
    table = model._meta.db_table
    adapt = connection.ops.adapt_datetimefield_value
    last = f"{_q(table)}.{_q('last_at')}"
    _upsert(
        table,
        ["minute", "runtime_id", "key", "session_id", "reason", "trims", "failed", "last_at"],
        ["minute", "runtime_id", "key"],
        ", ".join(_add(table, c) for c in ("trims", "failed"))
        + f", {_q('last_at')} = CASE WHEN excluded.{_q('last_at')} > {last} "
        f"THEN excluded.{_q('last_at')} ELSE {last} END",
        [
            (m, r, k, session, reason, counts[0], counts[1], adapt(at[0]))
            for (m, r, k), (session, reason, counts, at) in sorted(groups.items())
        ],
    )


@dataclass(frozen=True, slots=True)
class RollupCounts:
    runtime_rows: int
    runtime_hour_rows: int
    session_rows: int
    session_hour_rows: int


def _minute_sql(column: str) -> str:
    if connection.vendor == "postgresql":
        return f"(FLOOR(EXTRACT(EPOCH FROM {column}) / 60))::bigint"
    return f"(CAST(strftime('%%s', {column}) AS INTEGER) / 60)"


def trim_rollups_rebuild(*, since: datetime | None = None) -> RollupCounts:
    """Recompute the rollups from the stored events from ``since`` (its minute) on, or all of them.

    The rollups of that span are deleted and rebuilt in one transaction with ``INSERT … SELECT … GROUP
    BY`` (PostgreSQL) — no event passes through Python; on SQLite the grouped rows are keyed in Python.
    Rollups older than the oldest kept event are left as they are: that is what they are kept for.
    """
    first = epoch_minute(since) if since is not None else None
    events = TrimEvent._meta.db_table
    minute = _minute_sql(_q("received_at"))
    where = f"WHERE {_q('received_at')} >= %s" if first is not None else ""
    params: list[Param] = (
        [connection.ops.adapt_datetimefield_value(minute_start(first))] if first is not None else []
    )
    failed = f"SUM(CASE WHEN {_q('overflow_recovery')} = 'failed' THEN 1 ELSE 0 END)"
    with transaction.atomic():
        for width, runtime_model, session_model in (
            (1, RuntimeMinute, SessionMinute),
            (60, RuntimeHour, SessionHour),
        ):
            bucket = minute if width == 1 else f"({minute} / 60 * 60)"
            start: list[Param] = list(params)
            if width != 1 and first is not None:
                start = [connection.ops.adapt_datetimefield_value(minute_start(first - first % width))]
            for model in (runtime_model, session_model):
                rows = model._default_manager.all()
                (rows.filter(minute__gte=first - first % width) if first is not None else rows).delete()
            with connection.cursor() as cursor:
                cursor.execute(
                    f"INSERT INTO {_q(runtime_model._meta.db_table)} "
                    f"(minute, runtime_id, trims, dropped_messages, failed) "
                    f"SELECT {bucket}, runtime_id, COUNT(*), SUM(dropped_messages), {failed} "
                    f"FROM {_q(events)} {where} GROUP BY 1, 2",
                    start,
                )
            _sessions_rebuild(session_model, bucket, where, start, failed)
    return RollupCounts(
        RuntimeMinute.objects.count(),
        RuntimeHour.objects.count(),
        SessionMinute.objects.count(),
        SessionHour.objects.count(),
    )


def _sessions_rebuild(
    model: type[SessionRollup], bucket: str, where: str, params: list[Param], failed: str
) -> None:
    events = TrimEvent._meta.db_table
    select = (
        f"SELECT {bucket}, runtime_id, session_id, reason, COUNT(*), {failed}, MAX(received_at) "
        f"FROM {_q(events)} {where} GROUP BY 1, 2, 3, 4"
    )
    columns = "(minute, runtime_id, session_id, reason, trims, failed, last_at, key)"
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                f"INSERT INTO {_q(model._meta.db_table)} {columns} "
                f"SELECT g.*, md5(length(g.session_id)::text || ':' || g.session_id || g.reason) "
                f"FROM ({select}) AS g(minute, runtime_id, session_id, reason, trims, failed, last_at)",
                params,
            )
            return
        cursor.execute(select, params)
        grouped = cursor.fetchall()
    model._default_manager.bulk_create(
        (
            model(
                minute=m,
                runtime_id=r,
                session_id=s,
                reason=reason,
                trims=n,
                failed=f,
                last_at=_as_datetime(at),
                key=session_key(s, reason),
            )
            for m, r, s, reason, n, f, at in grouped
        ),
        batch_size=2000,
    )


def _as_datetime(value: object) -> datetime:
    # SQLite hands MAX(received_at) back as text: the aggregate loses the column's converter.
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    parsed = datetime.fromisoformat(str(value))
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Pruned:
    events: int
    rollups: int


def fleet_prune(
    *, now: datetime | None = None, event_days: int | None = None, rollup_days: int | None = None
) -> Pruned:
    """Delete events received more than ``event_days`` ago and rollups older than ``rollup_days``.

    Events go in batches of ``PRUNE_BATCH`` (one short transaction each), so a first prune of a large
    backlog does not hold one huge transaction against live ingestion.
    """
    now = now or timezone.now()
    event_days = event_days if event_days is not None else settings.TRIMSCOPE_EVENT_RETENTION_DAYS
    rollup_days = rollup_days if rollup_days is not None else settings.TRIMSCOPE_ROLLUP_RETENTION_DAYS
    cutoff = now - timedelta(days=event_days)
    events = 0
    while True:
        ids = list(
            TrimEvent.objects.filter(received_at__lt=cutoff)
            .order_by()
            .values_list("pk", flat=True)[:PRUNE_BATCH]
        )
        if not ids:
            break
        deleted, _ = TrimEvent.objects.filter(pk__in=ids).delete()
        events += deleted
    first_kept = epoch_minute(now - timedelta(days=rollup_days))
    rollups = 0
    for model in (RuntimeMinute, RuntimeHour, SessionMinute, SessionHour):
        deleted, _ = model._default_manager.filter(minute__lt=first_kept).delete()
        rollups += deleted
    return Pruned(events, rollups)


def fleet_prune_schedule(*, delay_seconds: float = 0) -> bool:
    """Enqueue the periodic prune task (django-tasks) unless one is already waiting; ``True`` if enqueued.

    The task prunes, then enqueues itself again ``TRIMSCOPE_PRUNE_EVERY_SECONDS`` later, so one call
    (``manage.py fleet_prune --schedule``, which ``make run`` makes) keeps retention going for as long
    as a ``db_worker`` runs.
    """
    from django_tasks.base import TaskResultStatus
    from django_tasks_db.models import DBTaskResult

    from dashboard.tasks import fleet_prune_task

    waiting = DBTaskResult.objects.filter(
        task_path=fleet_prune_task.module_path, status=TaskResultStatus.READY
    ).exists()
    if waiting:
        return False
    fleet_prune_task.using(run_after=timezone.now() + timedelta(seconds=delay_seconds)).enqueue()
    return True


def fleet_prune_and_reschedule() -> int:
    """What the periodic task runs: one prune, then the next run enqueued. Returns the events deleted."""
    pruned = fleet_prune()
    transaction.on_commit(
        lambda: fleet_prune_schedule(delay_seconds=settings.TRIMSCOPE_PRUNE_EVERY_SECONDS), robust=True
    )
    return pruned.events
