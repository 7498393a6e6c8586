"""A cold transcript page (after a restart, in another server process) reads its head and the chunk it draws
from the stored parts, never the whole parsed form; a part that is missing, stale or tampered with is
ignored and the page takes the general way, drawing the same page."""

from __future__ import annotations

import dataclasses
import json
import pickle
import random
import re

import pytest
import zstandard
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from dashboard import memo, parsed_forms, parsed_parts, services
from dashboard.models import TranscriptParse, TranscriptParsePart, TranscriptSource
from dashboard.selectors import transcript_pages, transcript_parts
from dashboard.selectors import transcripts as transcript_selectors
from dashboard.services import transcripts as transcript_services
from simulator import parse_transcript, transcript_index, transcript_message_rows

pytestmark = pytest.mark.django_db

CHUNK = 37
"""Messages per chunk in these tests: not a divisor of a page (100), so some pages cross chunks."""


def _chat(turns: int, seed: int) -> str:
    """An OpenAI-chat session with tool calls answered, left unanswered, answered twice or never called,
    so rows carry links both ways and flags."""
    rng = random.Random(seed)
    messages: list[dict[str, object]] = [{"role": "system", "content": "be brief"}]
    for t in range(turns):
        calls = [f"c{t}-{k}" for k in range(rng.randint(0, 3))]
        if calls and rng.random() < 0.1:
            calls.append(calls[0])  # a duplicate id
        messages.append({"role": "user", "content": f"task {t} " + "x" * rng.randint(0, 400)})
        messages.append(
            {
                "role": "assistant",
                "content": None if calls else f"thinking about {t}",
                **(
                    {
                        "tool_calls": [
                            {"id": c, "type": "function", "function": {"name": "read", "arguments": "{}"}}
                            for c in calls
                        ]
                    }
                    if calls
                    else {}
                ),
            }
        )
        for c in dict.fromkeys(calls):
            if rng.random() < 0.85:
                messages.append({"role": "tool", "tool_call_id": c, "content": "line\n" * rng.randint(1, 50)})
        if rng.random() < 0.05:
            messages.append({"role": "tool", "tool_call_id": f"nobody-{t}", "content": "stray"})
        messages.append({"role": "assistant", "content": f"done {t}"})
    return json.dumps(messages)


@pytest.fixture
def chunked(monkeypatch):
    monkeypatch.setattr(parsed_forms, "CHUNK_MESSAGES", CHUNK)


@pytest.fixture
def stored(operator, chunked):
    memo.clear()
    return services.transcript_import(text=_chat(90, seed=1), name="long", user=operator)


def _html(client, transcript, page: int) -> str:
    response = client.get(reverse("transcript-detail", args=[transcript.pk]) + f"?page={page}")
    assert response.status_code == 200
    # The CSRF token differs per request: everything else must be the same.
    return re.sub(r'(csrfmiddlewaretoken" value="|"X-CSRFToken": ")[^"]*', "", response.content.decode())


def _warm(client, transcript, page: int) -> str:
    memo.clear()
    transcript_selectors.transcript_parsed(transcript=transcript)  # kept, as after the upload
    return _html(client, transcript, page)


def _cold(client, transcript, page: int) -> str:
    memo.clear()  # as after a restart, or in another server process
    return _html(client, transcript, page)


def _never(*args, **kwargs):
    pytest.fail("the whole parsed form or the text was read")


def _pages(transcript) -> list[int]:
    last = transcript_pages.page_count(transcript.message_count)
    return [1, (1 + last) // 2, last]


def test_the_session_has_several_pages_and_chunks(stored):
    assert (
        stored.message_count > 2 * 100 and TranscriptParsePart.objects.filter(transcript=stored).count() > 8
    )


def test_a_cold_page_is_the_warm_page(operator_client, stored):
    for page in _pages(stored):
        assert _cold(operator_client, stored, page) == _warm(operator_client, stored, page)


def test_a_cold_page_and_its_counts_never_read_the_whole_form_or_the_text(
    operator_client, stored, monkeypatch
):
    expected = {page: _warm(operator_client, stored, page) for page in _pages(stored)}
    monkeypatch.setattr(parsed_forms, "decode", _never)
    monkeypatch.setattr(transcript_selectors, "parse_transcript", _never)
    TranscriptSource.objects.filter(transcript=stored).update(text="not a transcript")
    for page, html in expected.items():
        assert _cold(operator_client, stored, page) == html
        memo.clear()
        start = (page - 1) * 100
        url = reverse("transcript-counts", args=[stored.pk]) + f"?from={start}&to={start + 100}"
        assert operator_client.get(url).status_code == 200
    assert memo.PARSED.get(transcript_selectors.transcript_key(stored)) is None


def _spoil(transcript, number: int, **change) -> None:
    TranscriptParsePart.objects.filter(transcript=transcript, number=number).update(**change)


@pytest.mark.parametrize(
    "change",
    [
        {"blob": b"not what was signed"},
        {"parser_version": "an older parser"},
        {"signature": "0" * 64},
    ],
    ids=["tampered", "stale", "unsigned"],
)
@pytest.mark.parametrize("part", ["head", "chunk messages", "chunk index"])
def test_a_spoiled_part_is_ignored_and_the_page_read_the_general_way(
    operator_client, stored, monkeypatch, change, part
):
    page = _pages(stored)[1]
    chunk = (page - 1) * 100 // CHUNK
    number = {"head": parsed_parts.HEAD, "chunk messages": parsed_parts.messages_part(chunk)}.get(
        part, parsed_parts.index_part(chunk)
    )
    expected = _warm(operator_client, stored, page)
    _spoil(stored, number, **change)
    decoded = []
    real = parsed_forms.decode
    monkeypatch.setattr(parsed_forms, "decode", lambda *a: decoded.append(1) or real(*a))
    assert _cold(operator_client, stored, page) == expected
    assert decoded == [1]  # the whole form, as before the parts


def test_a_missing_part_falls_back_to_parsing_the_text_when_the_form_is_gone(operator_client, stored):
    page = _pages(stored)[2]
    expected = _warm(operator_client, stored, page)
    TranscriptParse.objects.filter(transcript=stored).delete()
    TranscriptParsePart.objects.filter(transcript=stored, number=parsed_parts.messages_part(0)).delete()
    TranscriptParsePart.objects.filter(transcript=stored, number=parsed_parts.HEAD).delete()
    assert _cold(operator_client, stored, page) == expected


def test_a_part_is_not_read_in_another_places_stead(operator_client, stored):
    """A part signed for one chunk, copied over another's, is refused: the signature names its number."""
    page = _pages(stored)[2]
    chunk = (page - 1) * 100 // CHUNK
    expected = _warm(operator_client, stored, page)
    first = TranscriptParsePart.objects.get(transcript=stored, number=parsed_parts.messages_part(0))
    _spoil(stored, parsed_parts.messages_part(chunk), blob=first.blob, signature=first.signature)
    assert _cold(operator_client, stored, page) == expected


def test_a_transcript_deleted_while_its_page_is_read_is_a_404(operator_client, stored, monkeypatch):
    real = transcript_parts.page_head

    def head_then_delete(*, transcript):
        head = real(transcript=transcript)
        stored.delete()
        return head

    monkeypatch.setattr(transcript_parts, "page_head", head_then_delete)
    memo.clear()
    response = operator_client.get(reverse("transcript-detail", args=[stored.pk]) + "?page=2")
    assert response.status_code == 404


@pytest.mark.django_db(transaction=True)  # the store's own transaction commits, and is refused
def test_storing_the_form_of_a_transcript_deleted_meanwhile_leaves_no_part(stored, monkeypatch):
    pk = stored.pk
    TranscriptParse.objects.all().delete()
    TranscriptParsePart.objects.all().delete()
    real = transcript_services.parse_transcript

    def parse_then_delete(*args, **kwargs):
        parsed = real(*args, **kwargs)
        stored.delete()
        return parsed

    monkeypatch.setattr(transcript_services, "parse_transcript", parse_then_delete)
    assert transcript_services.transcript_form_store(transcript_id=pk) is False
    assert not TranscriptParsePart.objects.exists() and not TranscriptParse.objects.exists()


def test_the_form_and_its_parts_are_written_all_or_none(stored, monkeypatch):
    TranscriptParse.objects.filter(transcript=stored).update(parser_version="an older parser")
    before = set(TranscriptParsePart.objects.filter(transcript=stored).values_list("number", "signature"))

    def fail(*args, **kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(TranscriptParsePart.objects, "bulk_create", fail)
    with pytest.raises(RuntimeError):
        transcript_services.transcript_form_store(transcript_id=stored.pk)
    assert TranscriptParse.objects.get(transcript=stored).parser_version == "an older parser"
    after = set(TranscriptParsePart.objects.filter(transcript=stored).values_list("number", "signature"))
    assert after == before


def test_store_parsed_forms_adds_the_parts_of_a_form_stored_before_them(operator_client, stored, capsys):
    page = _pages(stored)[1]
    expected = _warm(operator_client, stored, page)
    TranscriptParsePart.objects.all().delete()
    assert transcript_services.transcript_form_store(transcript_id=stored.pk) is True
    assert TranscriptParsePart.objects.filter(transcript=stored, number=parsed_parts.HEAD).exists()
    assert _cold(operator_client, stored, page) == expected


def test_a_whole_form_of_one_pickle_written_before_the_chunks_is_still_read(stored):
    text = TranscriptSource.objects.get(transcript=stored).text
    parsed = parse_transcript(text)
    index = transcript_index(parsed)
    blob = zstandard.ZstdCompressor(level=1).compress(pickle.dumps((parsed, index)))
    version = parsed_forms.parser_version()
    assert parsed_forms.decode(blob, version, parsed_forms._signature(version, blob)) == (parsed, index)


# The page's rows from a window of chunks against the general rows over the whole parse.


def _window_rows(parsed, index, chunk: int, start: int, end: int, tokens):
    chunks = parsed_forms.message_chunks(parsed)
    cut = parsed_parts.chunk_indexes(index, chunk)
    head = parsed_parts.PageHead.of(index, chunk)
    wanted = range(start // chunk, (end - 1) // chunk + 1)
    read = [parsed_parts.Chunk(parsed_forms.decode_chunk(chunks[k]), cut[k]) for k in wanted]
    return transcript_parts.window_rows(transcript_parts._joined(head, read), start, end, tokens)


def _compare(seed: int, monkeypatch) -> None:
    rng = random.Random(seed)
    parsed = parse_transcript(_chat(rng.randint(5, 60), seed=seed))
    index = transcript_index(parsed)
    n = len(parsed.messages)
    for _ in range(6):
        chunk = rng.randint(1, 50)
        monkeypatch.setattr(parsed_forms, "CHUNK_MESSAGES", chunk)
        start = rng.randrange(n)
        end = rng.randint(start + 1, min(n, start + 120))

        def tokens(i: int) -> int | None:
            return i * 7 if i % 3 else None

        expected = transcript_message_rows(parsed, index, start, end, tokens)
        assert _window_rows(parsed, index, chunk, start, end, tokens) == expected, (seed, chunk, start, end)
        spans = parsed_parts.chunk_indexes(index, chunk)
        assert [s for c in spans for s in c.spans if s.start >= c.start] == list(index.spans)


@pytest.mark.parametrize("seed", range(12))
def test_rows_from_chunks_equal_the_general_rows(seed, monkeypatch):
    _compare(seed, monkeypatch)


def test_a_wrong_window_is_caught_by_the_comparison(monkeypatch):
    real = parsed_parts.chunk_indexes

    def without_flags(index, chunk):
        return [
            parsed_parts.ChunkIndex(c.start, c.sizes, c.result_of_call, c.call_of_result, {}, c.spans)
            if c.flags
            else c
            for c in real(index, chunk)
        ]

    monkeypatch.setattr(parsed_parts, "chunk_indexes", without_flags)
    failed = 0
    for seed in range(12):
        try:
            _compare(seed, monkeypatch)
        except AssertionError:
            failed += 1
    assert failed


def test_shifted_rows_are_caught_by_the_comparison(monkeypatch):
    real = transcript_parts._joined

    def shifted(head, chunks):
        found = real(head, chunks)
        return found._replace(offset=found.offset + 1)

    monkeypatch.setattr(transcript_parts, "_joined", shifted)
    with pytest.raises(AssertionError):
        _compare(0, monkeypatch)


@pytest.mark.django_db(transaction=True)
def test_the_migration_adds_the_parts_table_and_removes_it_going_back():
    executor = MigrationExecutor(connection)
    executor.migrate([("dashboard", "0014_transcript_token_counts")])
    assert "dashboard_transcriptparsepart" not in connection.introspection.table_names()
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert "dashboard_transcriptparsepart" in connection.introspection.table_names()


# The whole form put back together from its chunks against the parse it was made from.


def _round_trip(seed: int, monkeypatch) -> None:
    rng = random.Random(seed)
    parsed = parse_transcript(_chat(rng.randint(1, 40), seed=seed))
    index = transcript_index(parsed)
    monkeypatch.setattr(parsed_forms, "CHUNK_MESSAGES", rng.randint(1, 60))
    decoded = parsed_forms.decode(*parsed_forms.encode(parsed, index))
    assert decoded == (parsed, index), seed


@pytest.mark.parametrize("seed", range(8))
def test_the_whole_form_read_back_from_its_chunks_is_the_parse(seed, monkeypatch):
    _round_trip(seed, monkeypatch)


def test_a_chunk_read_back_wrong_is_caught_by_the_round_trip(monkeypatch):
    real = parsed_forms.decode_chunk

    def first_message_lost(chunk):
        part = real(chunk)
        return dataclasses.replace(part, messages=part.messages[1:]) if part is not None else None

    monkeypatch.setattr(parsed_forms, "decode_chunk", first_message_lost)
    with pytest.raises(AssertionError):
        _round_trip(0, monkeypatch)
