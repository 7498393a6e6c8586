"""``manage.py import_corpus DIR [DIR...] --name NAME``: add every transcript file under DIR to a corpus.

Folders are walked recursively for ``*.json``, ``*.jsonl`` and ``*.ndjson``; named files are taken as they
are. The format of each file is detected. A file that cannot be read is listed with its error at the end
(and stored with the corpus); the rest go on. A progress bar (rich) shows files done, the rate and the
time left. The corpus is created when no corpus has that name, else the files are added to it.
"""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from dashboard.models import Corpus
from dashboard.services import corpora as corpus_services
from simulator import corpus_files


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("paths", nargs="+", metavar="DIR", help="folders (recursive) or transcript files")
        parser.add_argument("--name", required=True, help="the corpus to create or add to")
        parser.add_argument("--description", default="")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar (for logs)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            files = corpus_files(options["paths"])
        except FileNotFoundError as exc:
            raise CommandError(str(exc), returncode=2) from None
        corpus = Corpus.objects.filter(name=options["name"].strip()).first()
        if corpus is None:
            try:
                corpus = corpus_services.corpus_create(
                    name=options["name"], description=options["description"]
                )
            except corpus_services.CorpusError as exc:
                raise CommandError(exc.message, returncode=2) from None
        before = corpus.failures.count()
        added = failed = 0
        console = Console(stderr=True)
        columns = (
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
        )
        with Progress(*columns, console=console, disable=options["no_progress"]) as progress:
            bar = progress.add_task(f"importing into {corpus.name}", total=len(files))
            for path in files:
                try:
                    data = path.read_bytes()
                except OSError as exc:
                    corpus.failures.create(file=str(path)[:500], error=f"cannot read: {exc}")
                    failed += 1
                else:
                    result = corpus_services.corpus_add_files(corpus=corpus, files=[(str(path), data)])
                    added, failed = added + result.added, failed + result.failed
                progress.advance(bar)
        for failure in corpus.failures.order_by("id")[before:]:
            self.stderr.write(f"unreadable: {failure.file}: {failure.error}")
        self.stdout.write(f"corpus {corpus.name!r} (id {corpus.pk}): {added} added, {failed} unreadable")
