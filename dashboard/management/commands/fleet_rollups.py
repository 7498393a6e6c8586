"""``manage.py fleet_rollups [--since-days N]``: rebuild the per-minute rollups from the stored events."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from dashboard import services


class Command(BaseCommand):
    help = "Recompute the per-minute trim rollups from the events (all of them, or the last N days)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--since-days", type=int, help="only the last N days (default: every event)")

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["since_days"]
        if days is not None and days < 1:
            raise CommandError(f"--since-days must be at least 1 (got {days})")
        since = timezone.now() - timedelta(days=days) if days is not None else None
        counts = services.trim_rollups_rebuild(since=since)
        self.stdout.write(
            f"rollups rebuilt: {counts.runtime_rows:,} runtime-minutes, "
            f"{counts.session_rows:,} session-minutes"
        )
