"""Reads. Parsed transcripts are rebuilt from the stored text and memoised by content hash."""

from __future__ import annotations

from functools import lru_cache

from django.conf import settings
from django.db.models import QuerySet

from dashboard.models import Transcript
from simulator.importers import parse_transcript
from simulator.overview import TranscriptOverview, overview
from simulator.transcript import Transcript as ParsedTranscript


def transcript_list() -> QuerySet[Transcript]:
    return Transcript.objects.defer("source_text").all()


def transcript_get(*, transcript_id: int) -> Transcript | None:
    return Transcript.objects.filter(pk=transcript_id).first()


@lru_cache(maxsize=16)
def _parsed(sha256: str, fmt: str, text: str) -> ParsedTranscript:
    del sha256  # part of the key only: two rows with the same text share one parse
    return parse_transcript(text, format=fmt)


def transcript_parsed(*, transcript: Transcript) -> ParsedTranscript:
    return _parsed(transcript.sha256, transcript.format, transcript.source_text)


@lru_cache(maxsize=16)
def _overview(sha256: str, fmt: str, text: str) -> TranscriptOverview:
    return overview(_parsed(sha256, fmt, text))


def transcript_overview(*, transcript: Transcript) -> TranscriptOverview:
    return _overview(transcript.sha256, transcript.format, transcript.source_text)


def upload_limit() -> int:
    limit: int = settings.TRIMSCOPE_MAX_UPLOAD_BYTES
    return limit
