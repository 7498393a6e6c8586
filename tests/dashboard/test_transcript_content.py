"""Uploads of the shapes real files have (YAML demos, malformed lines, error turns, developer instructions)
and of content that is already stored: through the service, the API and the pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse
from ninja.testing import TestClient

from dashboard import services
from dashboard.api import api as ninja_api
from dashboard.models import Transcript
from dashboard.services import transcripts as transcript_services

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


def _read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


@pytest.fixture
def api(operator):
    _, secret = services.api_token_create(user=operator, name="ci")
    return TestClient(ninja_api, headers={"Authorization": f"Bearer {secret}"})


# already stored


def test_api_upload_of_stored_content_is_409_linking_the_stored_transcript(api):
    first = api.post("/transcripts", json={"name": "demo", "text": _read("swe_agent_demo.yaml")})
    assert first.status_code == 201
    again = api.post("/transcripts", json={"name": "demo again", "text": _read("swe_agent_demo.yaml")})
    assert again.status_code == 409
    body = again.json()
    assert "already stored as transcript" in body["message"]
    assert body["extra"]["transcript_id"] == first.json()["id"]
    assert body["extra"]["url"] == reverse("transcript-detail", args=[first.json()["id"]])
    assert body["extra"]["api_url"] == f"/api/transcripts/{first.json()['id']}"
    assert Transcript.objects.count() == 1


def test_api_stores_a_copy_when_asked(api):
    first = api.post("/transcripts", json={"text": _read("swe_agent_demo.yaml")}).json()
    copy = api.post("/transcripts", json={"text": _read("swe_agent_demo.yaml"), "store_copy": True})
    assert copy.status_code == 201
    assert (first["is_copy"], copy.json()["is_copy"]) == (False, True)
    assert Transcript.objects.count() == 2


def test_asking_for_a_copy_of_new_content_stores_the_original():
    row = services.transcript_import(text=_read("swe_agent_demo.yaml"), copy=True)
    assert row.is_copy is False


def test_after_the_original_is_deleted_its_copy_is_what_a_new_upload_links_to():
    original = services.transcript_import(text=_read("swe_agent_demo.yaml"))
    copy = services.transcript_import(text=_read("swe_agent_demo.yaml"), copy=True)
    services.transcript_delete(transcript=original)
    with pytest.raises(services.TranscriptAlreadyStored) as info:
        services.transcript_import(text=_read("swe_agent_demo.yaml"))
    assert info.value.existing.pk == copy.pk


def test_a_concurrent_duplicate_is_refused_by_the_database_and_reported(monkeypatch):
    original = services.transcript_import(text=_read("swe_agent_demo.yaml"))
    calls = iter([None])

    def stale_lookup(sha256):
        # The first lookup misses the row another upload committed meanwhile; later ones see it.
        return next(calls, Transcript.objects.filter(sha256=sha256).first())

    monkeypatch.setattr(transcript_services, "_stored_with", stale_lookup)
    with pytest.raises(services.TranscriptAlreadyStored) as info:
        services.transcript_import(text=_read("swe_agent_demo.yaml"))
    assert info.value.existing.pk == original.pk
    assert Transcript.objects.count() == 1


def test_upload_page_says_the_content_is_stored_and_links_to_it(operator_client):
    stored = services.transcript_import(text=_read("swe_agent_demo.yaml"), name="the demo")
    upload = {"text": _read("swe_agent_demo.yaml"), "format": ""}
    response = operator_client.post(reverse("transcript-upload"), upload)
    assert response.status_code == 409
    body = response.content.decode()
    assert "already stored as" in body
    assert f'href="{reverse("transcript-detail", args=[stored.pk])}"' in body
    htmx = operator_client.post(reverse("transcript-upload"), upload, headers={"HX-Request": "true"})
    assert 'id="upload-duplicate"' in htmx.content.decode() and "<html" not in htmx.content.decode()
    copied = operator_client.post(reverse("transcript-upload"), {**upload, "copy": "1"})
    assert copied.status_code == 302
    assert Transcript.objects.filter(is_copy=True).count() == 1


# the new shapes through the API and the pages


def test_api_reads_a_swe_agent_yaml_demonstration(api):
    created = api.post("/transcripts", json={"text": _read("swe_agent_demo.yaml")})
    assert created.status_code == 201
    assert (created.json()["format"], created.json()["tool_pair_count"]) == ("swe-agent", 2)


def test_api_unknown_text_is_422_format_not_recognised(api):
    response = api.post("/transcripts", json={"text": "hello there\nthis is prose\n"})
    assert response.status_code == 422
    assert response.json()["message"].startswith("format not recognised")


def test_api_detail_lists_skipped_lines_and_failed_calls(api):
    broken = api.post("/transcripts", json={"text": _read("openclaw_malformed_lines.jsonl")}).json()
    detail = api.get(f"/transcripts/{broken['id']}").json()
    assert [s["line"] for s in detail["skipped_lines"]] == [4, 5]
    assert detail["message_count"] == 4
    pi = api.post("/transcripts", json={"text": _read("pi_session_v1.jsonl")}).json()
    messages = api.get(f"/transcripts/{pi['id']}").json()["messages"]
    failed = [(m["index"], m["role_label"], m["error"]) for m in messages if m["error"]]
    assert failed == [(5, "assistant · failed call", "fetch failed")]


def test_api_detail_labels_codex_developer_instructions(api):
    created = api.post("/transcripts", json={"text": _read("codex_rollout_developer.jsonl")}).json()
    messages = api.get(f"/transcripts/{created['id']}").json()["messages"]
    assert [m["role_label"] for m in messages if m["role"] == "system"] == ["developer instructions"]


def test_transcript_page_names_skipped_lines_and_shows_the_failed_call(operator_client):
    broken = services.transcript_import(text=_read("openclaw_malformed_lines.jsonl"))
    body = operator_client.get(reverse("transcript-detail", args=[broken.pk])).content.decode()
    assert "2 malformed lines skipped: line 4 (invalid JSON" in body
    pi = services.transcript_import(text=_read("pi_session_v1.jsonl"))
    body = operator_client.get(reverse("transcript-detail", args=[pi.pk])).content.decode()
    assert "1 failed provider call" in body
    assert "assistant · failed call" in body and "<code>fetch failed</code>" in body


@pytest.mark.django_db(transaction=True)
def test_migration_keeps_the_oldest_of_existing_duplicates_as_the_original():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before = [("dashboard", "0004_trim_event_field_lengths")]
    after = [("dashboard", "0007_transcript_one_per_content")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old_transcript = executor.loader.project_state(before).apps.get_model("dashboard", "Transcript")
    fields = {
        "format": "openai-chat",
        "source_text": "[]",
        "size_bytes": 2,
        "message_count": 0,
        "turn_count": 0,
        "tool_pair_count": 0,
        "orphan_count": 0,
        "estimated_tokens": 0,
    }
    ids = [
        old_transcript.objects.create(name=n, sha256="a" * 64, **fields).pk for n in ("one", "two", "three")
    ]
    other = old_transcript.objects.create(name="other", sha256="b" * 64, **fields).pk
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(after)
    copies = dict(Transcript.objects.values_list("pk", "is_copy"))
    MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())  # back to the full schema
    assert copies == {ids[0]: False, ids[1]: True, ids[2]: True, other: False}
