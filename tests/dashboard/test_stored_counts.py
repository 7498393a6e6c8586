"""A long session's parsed form, o200k counts and cost-model fingerprints: made by the task worker after
the upload, stored, and read back by the first page or cost panel of any server process instead of being
made again."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django_tasks_db.models import DBTaskResult

from dashboard import memo, parsed_forms, selectors, services, stored_counts
from dashboard.models import TranscriptParse, TranscriptTokenCounts
from dashboard.selectors import transcript_pages
from dashboard.selectors.transcripts import transcript_stored_form
from dashboard.services import transcripts as transcript_services
from simulator import TranscriptTokens
from tests.support import tool_heavy_chat

pytestmark = pytest.mark.django_db

TASK = "dashboard.tasks.transcript_count_task"
FORM_TASK = "dashboard.tasks.transcript_form_task"


@pytest.fixture
def long_upload(operator, settings, django_capture_on_commit_callbacks, monkeypatch):
    """A 161-message transcript, counted as long: its upload enqueues the count."""
    settings.TRIMSCOPE_COUNT_AFTER_UPLOAD_MESSAGES = 100
    monkeypatch.setattr(transcript_pages, "STORED_COUNTS_FROM", 10)
    memo.clear()
    with django_capture_on_commit_callbacks(execute=True):
        transcript = services.transcript_import(text=tool_heavy_chat(40), name="chat", user=operator)
    return transcript


def _expected(transcript):
    return TranscriptTokens.of(selectors.transcript_parsed(transcript=transcript))


def _never(*args, **kwargs):
    pytest.fail("made again")


@pytest.mark.django_db(transaction=True)  # the worker closes the connection it used
def test_a_long_upload_is_counted_by_the_worker_and_the_counts_stored(long_upload):
    queued = DBTaskResult.objects.get(task_path=TASK)
    assert queued.args_kwargs["args"] == [long_upload.pk]
    assert queued.priority == transcript_services.COUNT_TASK_PRIORITY < 0  # evaluations go first
    # The form first: before the count (which reads it) and any evaluation enqueued after the upload.
    form = DBTaskResult.objects.get(task_path=FORM_TASK)
    assert form.args_kwargs["args"] == [long_upload.pk] and form.priority == 0
    assert [t.task_path for t in DBTaskResult.objects.all()] == [FORM_TASK, TASK]  # the worker's order
    _run_worker()
    row = TranscriptTokenCounts.objects.get(transcript=long_upload)
    messages = long_upload.message_count
    stored = stored_counts.decode(row.counts, row.fingerprints, row.counter_version, messages)
    assert stored == _expected(long_upload)
    assert len(stored.tokens) == 161 and sum(stored.tokens) > 0 and len(set(stored.fingerprints)) > 80


def _run_worker():
    call_command("db_worker", "--batch", "--no-startup-delay", "--interval", "0", "--no-reload")


@pytest.mark.django_db(transaction=True)
def test_a_long_upload_leaves_its_parsed_form_to_the_worker(long_upload):
    assert not TranscriptParse.objects.filter(transcript=long_upload).exists()
    expected = selectors.transcript_parsed(transcript=long_upload)  # kept from the upload
    memo.clear()  # a restart before the worker ran: the text is parsed again, the same
    assert transcript_stored_form(transcript=long_upload) is None
    assert selectors.transcript_parsed(transcript=long_upload) == expected
    _run_worker()
    form = TranscriptParse.objects.get(transcript=long_upload)
    stored = parsed_forms.decode(form.blob, form.parser_version, form.signature)
    assert stored is not None and stored.parsed == expected
    assert TranscriptTokenCounts.objects.filter(transcript=long_upload).exists()


def test_the_form_task_leaves_a_current_form_and_replaces_a_stale_one(long_upload, monkeypatch):
    transcript_services.transcript_parsed_forms_store()  # as `store_parsed_forms` would, before the worker
    monkeypatch.setattr(transcript_services, "parse_transcript", _never)
    assert transcript_services.transcript_form_store(transcript_id=long_upload.pk) is False
    monkeypatch.undo()
    TranscriptParse.objects.filter(transcript=long_upload).update(parser_version="0" * 32)
    assert transcript_services.transcript_form_store(transcript_id=long_upload.pk) is True
    form = TranscriptParse.objects.get(transcript=long_upload)
    assert parsed_forms.decode(form.blob, form.parser_version, form.signature) is not None


def test_storing_the_form_of_a_deleted_upload_stores_nothing(long_upload):
    pk = long_upload.pk
    long_upload.delete()
    assert transcript_services.transcript_form_store(transcript_id=pk) is False
    assert not TranscriptParse.objects.exists()


def test_a_short_upload_is_not_queued(operator, settings, django_capture_on_commit_callbacks):
    settings.TRIMSCOPE_COUNT_AFTER_UPLOAD_MESSAGES = 162
    with django_capture_on_commit_callbacks(execute=True):
        short = services.transcript_import(text=tool_heavy_chat(40), name="chat", user=operator)
    assert not DBTaskResult.objects.exists()
    assert transcript_stored_form(transcript=short) is not None  # stored with the upload


def test_the_cost_model_reads_the_stored_counts_instead_of_making_them(long_upload, monkeypatch):
    expected = _expected(long_upload)
    assert transcript_services.transcript_count_all(transcript_id=long_upload.pk) == 161
    memo.clear()  # another server process, or this one after a restart
    monkeypatch.setattr(transcript_pages, "tiktoken_counts", _never)
    monkeypatch.setattr(transcript_pages, "message_fingerprint", _never)
    assert transcript_pages.transcript_tokens(transcript=long_upload) == expected
    # and the page's counts are the stored ones too
    counts = transcript_pages.message_o200k(transcript=long_upload, indices=range(161))
    assert tuple(counts.values()) == expected.tokens


def test_the_page_counts_read_the_stored_counts_for_a_long_request(long_upload, monkeypatch):
    expected = _expected(long_upload)
    transcript_services.transcript_count_all(transcript_id=long_upload.pk)
    memo.clear()
    monkeypatch.setattr(transcript_pages, "tiktoken_counts", _never)
    counts = transcript_pages.message_o200k(transcript=long_upload, indices=range(20, 60))  # >= 10 missing
    assert counts == dict(zip(range(20, 60), expected.tokens[20:60], strict=True))


def test_a_copy_reads_the_counts_stored_for_the_same_text(long_upload, operator, monkeypatch):
    expected = _expected(long_upload)
    transcript_services.transcript_count_all(transcript_id=long_upload.pk)
    copy = services.transcript_import(text=tool_heavy_chat(40), name="copy", user=operator, copy=True)
    assert transcript_services.transcript_count_all(transcript_id=copy.pk) == 0  # stored for this text
    memo.clear()
    monkeypatch.setattr(transcript_pages, "tiktoken_counts", _never)
    monkeypatch.setattr(transcript_pages, "message_fingerprint", _never)
    assert transcript_pages.transcript_tokens(transcript=copy) == expected


@pytest.mark.parametrize("stale", ["another counter", "one fingerprint short"])
def test_stale_stored_counts_are_counted_again(long_upload, stale, monkeypatch):
    expected = _expected(long_upload)
    transcript_services.transcript_count_all(transcript_id=long_upload.pk)
    row = TranscriptTokenCounts.objects.get(transcript=long_upload)
    if stale == "another counter":
        row.counter_version = "o200k_base:" + "0" * 32
    else:
        row.fingerprints = bytes(row.fingerprints)[:-16]
    row.save()
    memo.clear()
    calls = []
    counter = transcript_pages.tiktoken_counts
    monkeypatch.setattr(
        transcript_pages, "tiktoken_counts", lambda texts, **kw: calls.extend(texts) or counter(texts, **kw)
    )
    assert transcript_pages.transcript_tokens(transcript=long_upload) == expected
    assert len(calls) == 161


def test_a_page_of_rows_is_counted_on_the_spot(long_upload, monkeypatch):
    transcript_services.transcript_count_all(transcript_id=long_upload.pk)
    memo.clear()
    read = []
    monkeypatch.setattr(transcript_pages, "transcript_stored_tokens", lambda **kw: read.append(1))
    counts = transcript_pages.message_o200k(transcript=long_upload, indices=range(9))
    assert read == [] and counts == dict(enumerate(_expected(long_upload).tokens[:9]))


def test_counting_a_deleted_transcript_stores_nothing(long_upload):
    pk = long_upload.pk
    long_upload.delete()
    assert transcript_services.transcript_count_all(transcript_id=pk) == 0
    assert not TranscriptTokenCounts.objects.exists()


@pytest.mark.parametrize("counts", [(), (0,), (1, 70_000, 2**32 - 1, 5)])
def test_stored_counts_read_back_as_written(counts):
    fingerprints = tuple(f"{i:02x}" * 16 for i in range(len(counts)))
    tokens = TranscriptTokens(fingerprints=fingerprints, tokens=counts)
    packed, digests, version = stored_counts.encode(tokens)
    assert len(packed) == 4 * len(counts) and len(digests) == 16 * len(counts)
    assert stored_counts.decode(memoryview(packed), memoryview(digests), version, len(counts)) == tokens
    assert stored_counts.decode(packed, digests, version, len(counts) + 1) is None
    assert stored_counts.decode(packed, digests, version + "x", len(counts)) is None
