"""A transcript's parsed form is stored with it and read back after a restart, by another process and by
evaluation tasks; a form made by another parser or not signed by this deployment is never used."""

from __future__ import annotations

import pickle
import zlib

import pytest
import zstandard
from django.core.management import call_command

from dashboard import memo, parsed_forms, selectors, services
from dashboard.models import Evaluation, EvaluationResult, TranscriptParse, TranscriptSource
from dashboard.selectors import transcripts as transcript_selectors
from dashboard.services import corpora as corpus_services
from dashboard.services import evaluations as eval_services
from simulator import parse_transcript, transcript_index
from tests.support import tool_heavy_chat

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored(operator):
    memo.clear()
    return services.transcript_import(text=tool_heavy_chat(12), name="chat", user=operator)


def _unparseable(*transcripts) -> None:
    """Spoil the stored texts: what reads them now can only have read the stored parsed forms."""
    for t in transcripts:
        TranscriptSource.objects.filter(transcript_id=t.pk).update(text="not a transcript")


def _text(transcript) -> str:
    return TranscriptSource.objects.get(transcript_id=transcript.pk).text


def test_an_import_stores_the_parsed_form_made_by_this_parser(stored):
    form = TranscriptParse.objects.get(transcript=stored)
    assert form.parser_version == parsed_forms.parser_version()
    decoded = parsed_forms.decode(form.blob, form.parser_version, form.signature)
    expected = parse_transcript(_text(stored))
    assert decoded == (expected, transcript_index(expected))


def test_a_cold_read_takes_the_stored_form_and_does_not_parse(stored):
    expected = parse_transcript(_text(stored))
    memo.clear()  # as after a restart, or in another server process
    _unparseable(stored)
    row = selectors.transcript_get(transcript_id=stored.pk)
    assert selectors.transcript_parsed(transcript=row) == expected
    # The page index came back with it: the transcript page does not walk every message again.
    assert memo.INDEXES.get(transcript_selectors.transcript_key(row)) == transcript_index(expected)


def test_the_form_is_zstandard_compressed_and_one_stored_with_zlib_before_is_still_read(stored, monkeypatch):
    form = TranscriptParse.objects.get(transcript=stored)
    blob = bytes(form.blob)
    assert blob.startswith(b"\x28\xb5\x2f\xfd")  # a Zstandard frame
    expected = parsed_forms.decode(blob, form.parser_version, form.signature)
    assert expected is not None
    # A form written with zlib, signed by this deployment as it was then.
    older = zlib.compress(zstandard.ZstdDecompressor().decompress(blob), 1)
    signature = parsed_forms._signature(form.parser_version, older)
    TranscriptParse.objects.filter(pk=form.pk).update(blob=older, signature=signature)
    memo.clear()
    _unparseable(stored)
    assert selectors.transcript_parsed(transcript=stored) == expected.parsed


def test_a_form_made_by_another_parser_is_ignored_and_the_text_parsed(stored, monkeypatch):
    # The code was upgraded since the form was stored: the running parser has another version.
    monkeypatch.setattr(parsed_forms, "parser_version", lambda: "the upgraded parser")
    memo.clear()
    calls = []
    real = transcript_selectors.parse_transcript
    monkeypatch.setattr(
        transcript_selectors, "parse_transcript", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    parsed = selectors.transcript_parsed(transcript=stored)
    assert calls == [1] and parsed == real(_text(stored))


def test_bytes_not_signed_by_this_deployment_are_never_unpickled(stored, monkeypatch):
    class Boom:
        def __reduce__(self):
            return (pytest.fail, ("unsigned bytes were unpickled",))

    form = TranscriptParse.objects.get(transcript=stored)
    TranscriptParse.objects.filter(pk=form.pk).update(blob=zlib.compress(pickle.dumps(Boom())))
    memo.clear()
    assert selectors.transcript_parsed(transcript=stored) == parse_transcript(_text(stored))


def test_a_new_secret_key_makes_earlier_forms_unreadable(stored, settings):
    form = TranscriptParse.objects.get(transcript=stored)
    assert parsed_forms.decode(form.blob, form.parser_version, form.signature) is not None
    settings.SECRET_KEY = "another deployment's key " * 3
    assert parsed_forms.decode(form.blob, form.parser_version, form.signature) is None


def test_store_parsed_forms_refreshes_only_what_is_missing_or_stale(stored, operator, capsys):
    other = services.transcript_import(text=tool_heavy_chat(3), name="other", user=operator)
    TranscriptParse.objects.filter(transcript=stored).update(parser_version="an older parser")
    TranscriptParse.objects.filter(transcript=other).delete()
    call_command("store_parsed_forms")
    assert "parsed forms stored: 2; refused: 0" in capsys.readouterr().out
    assert set(TranscriptParse.objects.values_list("parser_version", flat=True)) == {
        parsed_forms.parser_version()
    }
    call_command("store_parsed_forms")
    assert capsys.readouterr().out == ""  # nothing left to do


def test_an_evaluation_task_reads_the_stored_forms():
    corpus = corpus_services.corpus_create(name="c")
    corpus_services.corpus_add_files(
        corpus=corpus, files=[(f"s{i}.json", tool_heavy_chat(4 + i).encode()) for i in range(3)]
    )
    profiles = services.demo_profiles_ensure()[:1]
    evaluation = eval_services.evaluation_start(corpus=corpus, profiles=profiles)
    _unparseable(*corpus.transcripts.all())
    for chunk in evaluation.chunks.order_by("number"):
        eval_services.evaluation_chunk_run(chunk_id=chunk.pk)
    evaluation.refresh_from_db()
    assert evaluation.status == Evaluation.Status.DONE
    results = EvaluationResult.objects.filter(evaluation=evaluation)
    assert results.count() == 3 and not results.exclude(error="").exists()
