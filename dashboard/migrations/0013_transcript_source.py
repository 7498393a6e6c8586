"""A transcript's text moves from a column of its row to a table of its own (``TranscriptSource``).

SQLite reads a row's columns in order, through every overflow page of a long column before the one asked
for: with a long session's text in the row, reading the row's later columns walked tens of megabytes.
The texts are copied a few rows at a time (each can be tens of megabytes), then the column is dropped;
backwards, they are copied back before the table goes.
"""

import django.db.models.deletion
from django.db import migrations, models

BATCH = 20
"""Texts copied per query: a long session's text is tens of megabytes."""


def _batches(query):
    """``query``'s rows a few at a time (ordered by key; each row can hold tens of megabytes)."""
    ids = list(query.order_by("pk").values_list("pk", flat=True))
    for at in range(0, len(ids), BATCH):
        yield query.filter(pk__in=ids[at : at + BATCH])


def _texts_to_own_table(apps, schema_editor):
    alias = schema_editor.connection.alias
    transcript = apps.get_model("dashboard", "Transcript")
    source = apps.get_model("dashboard", "TranscriptSource")
    for batch in _batches(transcript.objects.using(alias)):
        rows = batch.values_list("pk", "source_text")
        source.objects.using(alias).bulk_create([source(transcript_id=pk, text=text) for pk, text in rows])


def _texts_back_to_rows(apps, schema_editor):
    alias = schema_editor.connection.alias
    transcript = apps.get_model("dashboard", "Transcript")
    source = apps.get_model("dashboard", "TranscriptSource")
    for batch in _batches(source.objects.using(alias)):
        for pk, text in batch.values_list("pk", "text"):
            transcript.objects.using(alias).filter(pk=pk).update(source_text=text)


class Migration(migrations.Migration):
    dependencies = [
        ("dashboard", "0012_transcript_parse"),
    ]

    operations = [
        migrations.CreateModel(
            name="TranscriptSource",
            fields=[
                (
                    "transcript",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="source",
                        serialize=False,
                        to="dashboard.transcript",
                    ),
                ),
                ("text", models.TextField()),
            ],
        ),
        migrations.RunPython(_texts_to_own_table, _texts_back_to_rows),
        # A default, so that migrating back can add the column to the rows before their texts return.
        migrations.AlterField(
            model_name="transcript", name="source_text", field=models.TextField(default="")
        ),
        migrations.RemoveField(model_name="transcript", name="source_text"),
    ]
