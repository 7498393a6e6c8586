"""One stored transcript per content hash; further uploads of the same text only as explicit copies.

Rows that already share a hash keep the oldest as the original and become copies, so the constraint holds
on existing data.
"""

from django.db import migrations, models


def mark_existing_duplicates(apps, schema_editor):
    Transcript = apps.get_model("dashboard", "Transcript")
    seen = set()
    copies = []
    for pk, sha256 in Transcript.objects.order_by("id").values_list("id", "sha256"):
        if sha256 in seen:
            copies.append(pk)
        seen.add(sha256)
    Transcript.objects.filter(pk__in=copies).update(is_copy=True)


class Migration(migrations.Migration):
    dependencies = [
        ("dashboard", "0006_widen_trim_event_counts"),
    ]

    operations = [
        migrations.AddField(
            model_name="transcript",
            name="is_copy",
            field=models.BooleanField(
                default=False, help_text="stored on request although the same content was already stored"
            ),
        ),
        migrations.RunPython(mark_existing_duplicates, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="transcript",
            constraint=models.UniqueConstraint(
                condition=models.Q(("is_copy", False)), fields=("sha256",), name="transcript_one_per_content"
            ),
        ),
    ]
