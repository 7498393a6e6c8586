"""Migration 0013 moves each transcript's text to its own table and back, every character kept."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from dashboard.models import Transcript, TranscriptSource

BEFORE = [("dashboard", "0012_transcript_parse")]
AFTER = [("dashboard", "0013_transcript_source")]
TEXTS = ("[]", '[{"role": "user", "content": "ünïcödé \\u2028 ☃"}]', "x" * 300_000)


def _old_rows() -> list[int]:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps.get_model("dashboard", "Transcript")
    fields = {
        "format": "openai-chat",
        "size_bytes": 2,
        "message_count": 0,
        "turn_count": 0,
        "tool_pair_count": 0,
        "orphan_count": 0,
        "estimated_tokens": 0,
    }
    return [
        old.objects.create(name=f"t{n}", sha256=f"{n:064}", source_text=text, **fields).pk
        for n, text in enumerate(TEXTS)
    ]


def _migrate(targets: list[tuple[str, str]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor


@pytest.mark.django_db(transaction=True)
def test_every_text_moves_to_its_own_table_and_the_row_keeps_the_rest():
    ids = _old_rows()
    executor = _migrate(AFTER)
    texts = dict(TranscriptSource.objects.values_list("transcript_id", "text"))
    names = dict(Transcript.objects.filter(pk__in=ids).values_list("pk", "name"))
    _migrate(executor.loader.graph.leaf_nodes())  # back to the full schema
    assert texts == dict(zip(ids, TEXTS, strict=True))
    assert names == {pk: f"t{n}" for n, pk in enumerate(ids)}
    columns = [
        c.name
        for c in connection.introspection.get_table_description(connection.cursor(), "dashboard_transcript")
    ]
    assert "source_text" not in columns


@pytest.mark.django_db(transaction=True)
def test_migrating_back_puts_every_text_back_in_its_row():
    ids = _old_rows()
    _migrate(AFTER)
    executor = _migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps.get_model("dashboard", "Transcript")
    back = dict(old.objects.filter(pk__in=ids).values_list("pk", "source_text"))
    _migrate(executor.loader.graph.leaf_nodes())
    assert back == dict(zip(ids, TEXTS, strict=True))
