"""Transcript screens: sign-in required, upload stores or rejects atomically, detail shows turns."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from dashboard.models import Transcript
from tests.support import SAMPLES_DIR

pytestmark = pytest.mark.django_db

CHAT = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "List files"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "a.py\nb.py"},
    {"role": "assistant", "content": "Two files."},
    {"role": "user", "content": "Thanks"},
]


def test_transcript_list_requires_sign_in(client):
    response = client.get(reverse("transcript-list"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_pasted_transcript_is_stored_with_its_numbers(operator_client):
    response = operator_client.post(
        reverse("transcript-upload"), {"name": "chat", "text": json.dumps(CHAT), "format": ""}
    )
    assert response.status_code == 302
    stored = Transcript.objects.get()
    assert (stored.format, stored.message_count, stored.turn_count, stored.tool_pair_count) == (
        "openai-chat",
        6,
        2,
        1,
    )
    assert response["Location"] == reverse("transcript-detail", args=[stored.pk])


def test_malformed_upload_shows_the_place_and_stores_nothing(operator_client):
    text = '{"type":"summary"}\n{"type":"user","message":{"role":"user","content":"hi"}}\n{"type":"bogus"}\n'
    response = operator_client.post(reverse("transcript-upload"), {"text": text, "format": "claude-code"})
    assert response.status_code == 422
    body = response.content.decode()
    assert "Not stored" in body
    assert "line 3" in body.lower() or "<dd>3</dd>" in body
    assert Transcript.objects.count() == 0


def test_htmx_upload_error_returns_the_form_partial_only(operator_client):
    response = operator_client.post(
        reverse("transcript-upload"), {"text": "certainly not a transcript"}, headers={"HX-Request": "true"}
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert 'id="upload-form"' in body and "<html" not in body
    assert "formats tried" in body.lower()
    assert Transcript.objects.count() == 0


def test_oversized_upload_is_rejected_before_parsing(operator_client, settings):
    settings.TRIMSCOPE_MAX_UPLOAD_BYTES = 100
    response = operator_client.post(reverse("transcript-upload"), {"text": json.dumps(CHAT)})
    assert response.status_code == 422
    assert "limit" in response.content.decode()
    assert Transcript.objects.count() == 0


def test_detail_page_groups_messages_into_turns_with_tool_links(operator_client):
    operator_client.post(reverse("transcript-upload"), {"name": "chat", "text": json.dumps(CHAT)})
    stored = Transcript.objects.get()
    body = operator_client.get(reverse("transcript-detail", args=[stored.pk])).content.decode()
    assert "Turn 1" in body and "Turn 2" in body and "Turn 3" not in body
    assert 'href="#m-3"' in body  # the call links to its result
    assert 'href="#m-2"' in body  # and the result back to its call


def test_transcript_content_is_escaped(operator_client):
    hostile = [
        {"role": "user", "content": '<script>alert(1)</script><a href="javascript:alert(2)">x</a>'},
        {"role": "assistant", "content": "<img src=x onerror=alert(3)>"},
    ]
    operator_client.post(reverse("transcript-upload"), {"name": "<b>evil</b>", "text": json.dumps(hostile)})
    stored = Transcript.objects.get()
    body = operator_client.get(reverse("transcript-detail", args=[stored.pk])).content.decode()
    assert "<script>alert(1)" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert 'href="javascript:' not in body
    assert "<img src=x" not in body
    assert "<b>evil</b>" not in body


def test_sweagent_sample_uploads_as_a_file(operator_client):
    path = SAMPLES_DIR / "sweagent_marshmallow-1867_function_calling.traj.json"
    with path.open("rb") as fh:
        response = operator_client.post(reverse("transcript-upload"), {"file": fh})
    assert response.status_code == 302
    stored = Transcript.objects.get()
    assert stored.format == "swe-agent"
    assert stored.name == path.name
    assert stored.tool_pair_count == 11 and stored.orphan_count == 0


def test_delete_removes_the_transcript(operator_client):
    operator_client.post(reverse("transcript-upload"), {"text": json.dumps(CHAT)})
    stored = Transcript.objects.get()
    response = operator_client.post(reverse("transcript-delete", args=[stored.pk]))
    assert response.status_code == 302
    assert Transcript.objects.count() == 0
