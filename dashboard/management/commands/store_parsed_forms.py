"""``manage.py store_parsed_forms``: store every transcript's parsed form that is missing or stale."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from dashboard import services


class Command(BaseCommand):
    help = (
        "Parse every transcript whose stored parsed form is missing or made by another version of the "
        "parser, and store the form (read back by pages and evaluations instead of parsing again)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        stored, refused = services.transcript_parsed_forms_store()
        for transcript, why in refused:
            self.stderr.write(f"transcript {transcript.pk} ({transcript.name!r}) no longer parses: {why}")
        if stored or refused:
            self.stdout.write(f"parsed forms stored: {stored:,}; refused: {len(refused):,}")
