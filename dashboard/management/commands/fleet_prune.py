"""``manage.py fleet_prune [--schedule | --every SECONDS]``: delete trim events and rollups past their
retention now, or schedule the periodic prune task that a ``db_worker`` runs."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from dashboard import services


class Command(BaseCommand):
    help = (
        "Delete trim events older than TRIMSCOPE_EVENT_RETENTION_DAYS and rollups older than "
        "TRIMSCOPE_ROLLUP_RETENTION_DAYS. --schedule enqueues the hourly prune task instead (make run does); "
        "--every keeps pruning in this process (for a host without a task worker)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--days", type=int, help="event retention in days (default: the setting)")
        parser.add_argument("--rollup-days", type=int, help="rollup retention in days (default: the setting)")
        parser.add_argument("--every", type=int, default=0, help="repeat every SECONDS until stopped")
        parser.add_argument(
            "--schedule", action="store_true", help="enqueue the periodic prune task (django-tasks) and exit"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        for name in ("days", "rollup_days"):
            if options[name] is not None and options[name] < 1:
                raise CommandError(f"--{name.replace('_', '-')} must be at least 1 (got {options[name]})")
        if options["every"] < 0:
            raise CommandError(f"--every must be 0 (once) or a number of seconds (got {options['every']})")
        if options["schedule"]:
            enqueued = services.fleet_prune_schedule()
            self.stdout.write("prune task enqueued" if enqueued else "a prune task is already waiting")
            return
        while True:
            pruned = services.fleet_prune(event_days=options["days"], rollup_days=options["rollup_days"])
            self.stdout.write(f"pruned {pruned.events:,} events and {pruned.rollups:,} rollup rows")
            if not options["every"]:
                return
            time.sleep(options["every"])
