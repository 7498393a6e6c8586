"""The fleet pages at millions of stored events, on a PostgreSQL database of the benchmark's own.

``python -m benchmarks.fleet_pages [EVENTS] [--keep] [--reuse]`` drops and creates the database
``trimscope_bench_fleet`` on the server of ``BENCH_PG_URL`` (default ``postgres://postgres@127.0.0.1:5432``),
migrates it, loads EVENTS trim events (default 10,000,000) with ``COPY … FROM STDIN`` spread over the
last 30 days (20 runtimes, sessions of 200 trims over about two hours each, one failed overflow recovery
in 500), builds the rollups with ``manage.py fleet_rollups`` (``INSERT … SELECT``) and times, in-process
with Django's test client (no server: the view's own time — queries, view model, template), the fleet
page, a runtime page (``/fleet/?runtime=…``) and a session page, each at every time range; median of 5.
``--keep`` leaves the database; ``--reuse`` only times the pages of a kept one. The last line of output
is the result as JSON.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta

from benchmarks.common import ms

DB_NAME = "trimscope_bench_fleet"
RUNTIMES = 20
SESSION_EVENTS = 200
SESSION_SPAN_MINUTES = 120
DAYS = 30
CHUNK = 500_000
REASONS = ("context token budget exceeded", "max_history_messages", "overflow retry")


def _database(server: str) -> str:
    import psycopg

    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME}")
        conn.execute(f"CREATE DATABASE {DB_NAME}")
    return f"{server}/{DB_NAME}"


def _rows(total: int, runtime_ids: list[int], now: datetime, first: int, last: int):
    """Tab-separated COPY lines for events ``first``..``last-1``; deterministic (no random module)."""
    span = DAYS * 24 * 3600 - SESSION_SPAN_MINUTES * 60
    sessions = max(1, total // SESSION_EVENTS)
    step = SESSION_SPAN_MINUTES * 60 / SESSION_EVENTS
    for i in range(first, last):
        s, k = divmod(i, SESSION_EVENTS)
        # Session starts spread evenly over the period (a multiplicative hash scatters neighbours).
        start = ((s * 2654435761) % sessions) * span / sessions
        at = now - timedelta(seconds=span + SESSION_SPAN_MINUTES * 60 - start - k * step)
        runtime = runtime_ids[s % len(runtime_ids)]
        reason = REASONS[(i * 7) % 10 // 4]  # 40 % / 40 % / 20 %
        failed = "failed" if i % 500 == 499 else ""
        stamp = at.isoformat()
        yield (
            f"{runtime}\tenvelope\tsess-{s:07d}\t{k}\t{reason}\t4\t12\t2\t33000\t31000\t32000\t\t{failed}"
            f"\t\t\t\t{k * 2}\t{stamp}\t{stamp}\t{{}}\n"
        )


COLUMNS = (
    "runtime_id, shape, session_id, seq, reason, dropped_messages, kept_turns, dropped_turns, "
    "tokens_before, tokens_after, budget, trim_target, overflow_recovery, channel, agent_alias, turn_id, "
    "call_number, occurred_at, received_at, payload"
)


def run(events: int, keep: bool = False, reuse: bool = False) -> dict[str, object]:
    """Load and time; ``reuse`` times the pages of the database a ``--keep`` run left (no load)."""
    server = os.environ.get("BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432")
    os.environ["DATABASE_URL"] = f"{server}/{DB_NAME}" if reuse else _database(server)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dashboard.settings")
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from dashboard import services
    from dashboard.models import TrimEvent

    now = datetime.now(UTC)
    out: dict[str, object] = {"events": events}
    if reuse:
        # The pages are timed as of the end of the load (the clock stands still there), so the ranges
        # hold what they held then, however long ago the kept database was loaded.
        from django.db.models import Max
        from django.utils import timezone

        loaded = TrimEvent.objects.aggregate(last=Max("received_at"))["last"] or now
        timezone.now = lambda: loaded  # type: ignore[assignment]
        return _time_pages(out, loaded, keep=True, server=server)
    call_command("migrate", verbosity=0)
    runtime_ids = [services.runtime_create(name=f"rt-{i:02d}")[0].pk for i in range(RUNTIMES)]

    started = time.perf_counter()
    table = TrimEvent._meta.db_table
    with connection.cursor() as cursor:
        raw = cursor.connection  # psycopg 3
        for first in range(0, events, CHUNK):
            with raw.cursor() as c, c.copy(f"COPY {table} ({COLUMNS}) FROM STDIN") as copy:
                copy.write("".join(_rows(events, runtime_ids, now, first, min(events, first + CHUNK))))
            print(f"  copied {min(events, first + CHUNK):,} events", file=sys.stderr, flush=True)
        cursor.execute(f"ANALYZE {table}")
    out["copy_seconds"] = time.perf_counter() - started
    print(f"  copied in {out['copy_seconds']:.0f} s", file=sys.stderr, flush=True)

    started = time.perf_counter()
    services.trim_rollups_rebuild()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE dashboard_runtimeminute")
        cursor.execute("ANALYZE dashboard_runtimehour")
        cursor.execute("ANALYZE dashboard_sessionminute")
        cursor.execute("ANALYZE dashboard_sessionhour")
    out["rollup_seconds"] = time.perf_counter() - started
    print(f"  rollups rebuilt in {out['rollup_seconds']:.0f} s", file=sys.stderr, flush=True)
    return _time_pages(out, now, keep=keep, server=server)


def _time_pages(out: dict[str, object], now: datetime, *, keep: bool, server: str) -> dict[str, object]:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    from dashboard.models import RuntimeHour, RuntimeMinute, SessionHour, SessionMinute, TrimEvent

    table = TrimEvent._meta.db_table
    out["events"] = TrimEvent.objects.count()
    out["runtime_minutes"] = RuntimeMinute.objects.count()
    out["runtime_hours"] = RuntimeHour.objects.count()
    out["session_minutes"] = SessionMinute.objects.count()
    out["session_hours"] = SessionHour.objects.count()
    user = get_user_model().objects.filter(username="bench").first() or get_user_model().objects.create_user(
        "bench", password="bench-password"
    )
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    # A session active now: its page is what an operator opens from the alert strip.
    recent = (
        TrimEvent.objects.filter(received_at__gt=now - timedelta(minutes=30))
        .order_by("-received_at")
        .values_list("session_id", flat=True)
        .first()
    ) or "sess-0000000"
    pages = {
        "fleet": "/fleet/",
        "runtime": "/fleet/?runtime=rt-03",
        "session": f"/fleet/sessions/{recent}/",
    }
    timings: dict[str, dict[str, float]] = {}
    for name, url in pages.items():
        for key in ("15m", "1h", "24h", "7d") if name != "session" else ("",):
            full = url if not key else f"{url}{'&' if '?' in url else '?'}range={key}"
            samples = []
            for _ in range(6):
                t = time.perf_counter()
                response = client.get(full)
                samples.append(time.perf_counter() - t)
                assert response.status_code == 200, (full, response.status_code)
            timings[f"{name} {key}".strip()] = statistics.median(samples[1:])  # first one warms caches
            print(f"  {full}: {ms(timings[f'{name} {key}'.strip()])}", file=sys.stderr, flush=True)
    out["pages"] = timings
    status = []
    for _ in range(6):
        t = time.perf_counter()
        client.get("/fleet/", headers={"HX-Request": "true", "HX-Target": "fleet-alerts"})
        status.append(time.perf_counter() - t)
    out["pages"]["fleet status poll (5 s)"] = statistics.median(status[1:])  # type: ignore[index]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT pg_total_relation_size('{table}'), pg_total_relation_size('dashboard_sessionminute')"
        )
        sizes = cursor.fetchone()
    out["event_bytes"], out["rollup_bytes"] = sizes
    connection.close()
    if not keep:
        import psycopg

        with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME}")
    return out


def report(result: dict[str, object]) -> list[str]:
    pages = result["pages"]
    assert isinstance(pages, dict)
    n = int(str(result["events"]))
    copy_s = float(str(result.get("copy_seconds", "nan")))
    rollup_s = float(str(result.get("rollup_seconds", "nan")))
    event_gib = int(str(result["event_bytes"])) / 2**30
    rollup_gib = int(str(result["rollup_bytes"])) / 2**30
    loaded = (
        f"loaded with COPY in {copy_s:.0f} s and rollups rebuilt with `INSERT … SELECT` in {rollup_s:.0f} s"
        if copy_s == copy_s  # not NaN: this run loaded the events itself
        else "timed on a database a `--keep` run loaded (`--reuse`), as of the end of that load"
    )
    lines = [
        f"## Fleet pages at {n:,} stored events (PostgreSQL)",
        "",
        f"`python -m benchmarks.fleet_pages {n}`: {n:,} events spread over 30 days (20 runtimes, sessions "
        f"of 200 trims over two hours), {loaded} ({int(str(result['runtime_minutes'])):,} runtime-minutes, "
        f"{int(str(result['session_minutes'])):,} session-minutes, {int(str(result['session_hours'])):,} "
        f"session-hours). Events table with its indexes {event_gib:.2f} GiB, per-minute session rollup "
        f"{rollup_gib:.2f} GiB. In-process test client (the view's own time: queries, view model, "
        "template), median of 5 after one warm-up request:",
        "",
        "| page | 15 min | 1 h | 24 h | 7 d |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, label in (("fleet", "fleet `/fleet/`"), ("runtime", "runtime `/fleet/?runtime=rt-03`")):
        cells = [ms(pages[f"{name} {k}"]) for k in ("15m", "1h", "24h", "7d")]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"- session page (a session trimmed in the last 30 min, 200 events): {ms(pages['session'])}",
        f"- the fleet page's 5-second status poll (alerts, runtimes, top sessions; 1 h): "
        f"{ms(pages['fleet status poll (5 s)'])}",
    ]
    return lines


def main() -> None:
    events = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 10_000_000
    result = run(events, keep="--keep" in sys.argv, reuse="--reuse" in sys.argv)
    print("\n".join(report(result)), file=sys.stderr)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
