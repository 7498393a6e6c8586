"""Hostile uploads and NUL characters through a real daphne and a plain HTTP client with CSRF on: every
one is a 4xx naming the problem, never a 500, and nothing is stored."""

from __future__ import annotations

import json

import pytest

from dashboard import services
from dashboard.body_limit import request_limit
from dashboard.models import ApiToken, Profile, Runtime, Transcript
from tests.conftest import OPERATOR_PASSWORD
from tests.wire import WireClient, raw_request

pytestmark = pytest.mark.django_db(transaction=True)

CHAT_OK = json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}])
DEEP_TRANSCRIPT = '[{"role":"user","content":' + "[" * 1000 + "]" * 1000 + "}]"
DEEP_PROFILE = '{"agent":{"max_history_messages":' + "[" * 2000 + "]" * 2000 + "}}"
TOML_ARRAYS = "a = " + "[" * 100_000 + "]" * 100_000
TOML_TABLES = "a = " + "{b=" * 5000 + "1" + "}" * 5000
LONG_INT = "9" * 4301
SURROGATE = '[{"role":"user","content":"a\\ud800b"},{"role":"assistant","content":"ok"}]'

HOSTILE_TRANSCRIPTS = {
    "nested 1,000 deep": (DEEP_TRANSCRIPT, "nested deeper than 128 levels"),
    "a 4,301-digit integer": (
        '[{"role":"user","content":"hi","n":' + LONG_INT + '},{"role":"assistant","content":"ok"}]',
        "more than 4,300 digits",
    ),
    "a lone surrogate": (SURROGATE, "lone surrogate"),
}
HOSTILE_PROFILES = {
    "JSON nested 2,000 deep": (DEEP_PROFILE, "nested deeper than 128 levels"),
    "TOML with 100k nested arrays": (TOML_ARRAYS, "nested deeper than 128 levels"),
    "TOML with 5k nested inline tables": (TOML_TABLES, "nested deeper than 128 levels"),
    "a 4,301-digit TOML integer": (f"[agent]\nmax_history_messages = {LONG_INT}\n", "more than 4,300 digits"),
    "a 4,301-digit JSON integer": (
        '{"agent": {"max_history_messages": ' + LONG_INT + "}}",
        "more than 4,300",
    ),
    "a NUL in a TOML string": ('[agent]\nname = "a\\u0000b"\n', "NUL"),
}


@pytest.fixture
def web(daphne_url, operator):
    client = WireClient(daphne_url)
    client.sign_in("op", OPERATOR_PASSWORD)
    return client


def counts():
    return (
        Transcript.objects.count(),
        Profile.objects.count(),
        Runtime.objects.count(),
        ApiToken.objects.count(),
    )


@pytest.mark.parametrize("case", list(HOSTILE_TRANSCRIPTS), ids=list(HOSTILE_TRANSCRIPTS))
def test_hostile_transcript_is_a_4xx_naming_the_problem_on_every_path(web, case):
    text, problem = HOSTILE_TRANSCRIPTS[case]
    before = counts()
    api = web.post_json("/api/transcripts", {"text": text, "name": "x"})
    paste = web.post_form("/transcripts/upload/", {"text": text, "name": "x"})
    upload = web.post_file("/transcripts/upload/", {"name": "x"}, "file", "t.json", text.encode())
    assert api.status == 422 and problem in api.json()["message"]
    for reply in (paste, upload):
        assert reply.status == 422 and problem in reply.text
    assert counts() == before


@pytest.mark.parametrize("case", list(HOSTILE_PROFILES), ids=list(HOSTILE_PROFILES))
def test_hostile_profile_is_a_4xx_naming_the_problem_on_every_path(web, case):
    text, problem = HOSTILE_PROFILES[case]
    before = counts()
    api = web.post_json("/api/profiles/import", {"name": "p", "text": text})
    form = web.post_form("/profiles/import/", {"name": "p", "text": text, "syntax": "auto"})
    assert api.status == 422 and problem in api.json()["message"]
    assert form.status == 422 and problem in form.text
    assert counts() == before


def test_implausible_token_counts_are_flagged_by_message_on_the_transcript_page(web):
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "a", "usage": {"prompt_tokens": -5, "completion_tokens": 3}},
        {"role": "user", "content": "again"},
        {"role": "assistant", "content": "b", "usage": {"prompt_tokens": 2**70, "completion_tokens": 3}},
        {"role": "user", "content": "more"},
        {"role": "assistant", "content": "c", "usage": {"prompt_tokens": 1e999, "completion_tokens": 3}},
    ]
    created = web.post_json("/api/transcripts", {"text": json.dumps(messages), "name": "counts"})
    assert created.status == 201
    page = web.get(f"/transcripts/{created.json()['id']}/")
    assert page.status == 200
    for warning in (
        "message 1: usage.prompt_tokens = -5 is negative",
        f"message 3: usage.prompt_tokens = {2**70} is over 1,000,000,000 tokens",
        "message 5: usage.prompt_tokens = inf is not a finite number",
    ):
        assert warning in page.text
    assert Transcript.objects.get().format == "openai-chat"  # an infinite count no longer derails detection


# -- sizes ------------------------------------------------------------------------------------------------


def _head(daphne_url, path, web, headers):
    port = daphne_url.rsplit(":", 1)[1]
    cookie = "; ".join(f"{c.name}={c.value}" for c in web.jar)
    lines = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", f"Cookie: {cookie}"]
    lines += [f"X-CSRFToken: {web.cookie('csrftoken')}", *headers]
    return "\r\n".join(lines) + "\r\n\r\n"


@pytest.mark.parametrize(
    ("path", "content_type"),
    [("/api/transcripts", "application/json"), ("/transcripts/upload/", "application/x-www-form-urlencoded")],
    ids=["api-body", "paste"],
)
def test_a_body_over_the_limit_is_answered_413_from_its_content_length_before_it_is_sent(
    daphne_url, web, path, content_type
):
    before = counts()
    limit = request_limit()  # the upload limit (TRIMSCOPE_MAX_UPLOAD_BYTES) + 1 MiB of envelope
    head = _head(
        daphne_url, path, web, [f"Content-Type: {content_type}", f"Content-Length: {limit + 4 * 1024 * 1024}"]
    )
    status, body = raw_request(daphne_url, head)  # the head alone: the answer must not wait for the body
    assert status == 413
    assert f"the limit is {limit:,} bytes".encode() in body
    assert counts() == before


def test_a_chunked_body_is_cut_off_at_the_limit_with_413(daphne_url, web):
    head = _head(
        daphne_url, "/api/transcripts", web, ["Content-Type: application/json", "Transfer-Encoding: chunked"]
    )
    piece = b"x" * (1024 * 1024)
    chunk = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    limit = request_limit()
    over = limit // len(piece) + 1  # just over the limit, no final chunk
    status, body = raw_request(daphne_url, head, [chunk] * over)
    assert status == 413
    assert json.loads(body)["message"].startswith(f"request body is over {limit:,} bytes")


def test_a_body_within_the_limit_still_reaches_the_view(web):
    reply = web.post_json("/api/transcripts", {"text": CHAT_OK + " " * (2 * 1024 * 1024), "name": "padded"})
    assert reply.status == 201


# -- NUL characters ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "payload", "field"),
    [
        ("json", "/api/transcripts", {"text": CHAT_OK, "name": "a\x00b"}, "name"),
        ("form", "/transcripts/upload/", {"text": CHAT_OK, "name": "a\x00b"}, "name"),
        ("json", "/api/profiles/import", {"name": "p\x00", "text": "[agent]\n"}, "name"),
        ("form", "/profiles/create/", {"preset": "zeroclaw-documented", "name": "p\x00"}, "name"),
        ("json", "/api/runtimes", {"name": "r\x00"}, "name"),
        ("form", "/runtimes/create/", {"name": "r\x00", "kind": "zeroclaw"}, "name"),
        ("json", "/api/tokens", {"name": "t\x00"}, "name"),
        ("form", "/tokens/create/", {"name": "t\x00"}, "name"),
        ("get", "/fleet/?session=s%00&runtime=r", None, "session"),
        ("get", "/api/fleet/events?runtime=r%00", None, "runtime"),
        ("get", "/fleet/sessions/s%00x/", None, "path"),
    ],
)
def test_a_nul_character_is_a_400_naming_the_field(web, method, path, payload, field):
    before = counts()
    if method == "json":
        reply = web.post_json(path, payload)
    elif method == "form":
        reply = web.post_form(path, payload)
    else:
        reply = web.get(path)
    assert reply.status == 400, reply.text[:300]
    assert f"{field}: contains a NUL character" in reply.text
    assert counts() == before


def test_a_transcript_whose_session_id_holds_a_nul_is_refused(web):
    text = "\n".join(
        json.dumps(record)
        for record in [
            {"type": "session", "id": "s\x00x", "version": 3, "timestamp": "2026-01-01T00:00:00Z"},
            {
                "type": "message",
                "id": "m1",
                "parentId": None,
                "timestamp": "2026-01-01T00:00:01Z",
                "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            },
        ]
    )
    before = counts()
    reply = web.post_json("/api/transcripts", {"text": text, "name": "nul-session"})
    assert reply.status == 422 and "session id contains a NUL character" in reply.json()["message"]
    assert counts() == before


def test_post_events_rejects_a_nul_event_alone_not_the_batch(daphne_url):
    runtime, token = services.runtime_create(name="nul-events")
    client = WireClient(daphne_url)
    ok = {"type": "history_trimmed", "dropped_messages": 1, "kept_turns": 1, "reason": "r"}
    reply = client.post_json(
        "/api/events",
        {"events": [ok, {**ok, "reason": "a\x00"}]},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert reply.status == 200
    assert [r["status"] for r in reply.json()["results"]] == ["stored", "rejected"]
    assert runtime.events.count() == 1
