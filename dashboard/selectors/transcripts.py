"""Reads. Parsed transcripts are rebuilt from the stored text and memoised by content hash.

The upload's own parse is remembered too (``transcript_parse``), so the first page after an upload does
not parse the same text again.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from functools import lru_cache

from django.conf import settings
from django.db.models import QuerySet

from dashboard.models import Transcript
from simulator import Transcript as ParsedTranscript
from simulator import TranscriptOverview, parse_transcript
from simulator import transcript_overview as overview


def transcript_list() -> QuerySet[Transcript]:
    return Transcript.objects.defer("source_text").all()


def transcript_get(*, transcript_id: int) -> Transcript | None:
    return Transcript.objects.filter(pk=transcript_id).first()


_PARSED_KEPT = 16
_parsed: OrderedDict[tuple[str, str], ParsedTranscript] = OrderedDict()
"""Recently parsed transcripts by (sha256 of the text, format); two rows with one text share a parse."""


def _remember(key: tuple[str, str], parsed: ParsedTranscript) -> ParsedTranscript:
    _parsed[key] = parsed
    _parsed.move_to_end(key)
    while len(_parsed) > _PARSED_KEPT:
        _parsed.popitem(last=False)
    return parsed


def transcript_parse(*, text: str, format: str | None = None, source: str | None = None) -> ParsedTranscript:
    """Parse an upload (raising ``TranscriptParseError``) and remember the result for its first views."""
    parsed = parse_transcript(text, format=format, source=source)
    return _remember((text_sha256(text), parsed.format), parsed)


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def transcript_parsed(*, transcript: Transcript) -> ParsedTranscript:
    key = (transcript.sha256, transcript.format)
    hit = _parsed.get(key)
    if hit is not None:
        _parsed.move_to_end(key)
        return hit
    return _remember(key, parse_transcript(transcript.source_text, format=transcript.format))


@lru_cache(maxsize=16)
def _overview(sha256: str, fmt: str, transcript_id: int) -> TranscriptOverview:
    del sha256, fmt  # the key: the content, whichever row holds it
    return overview(transcript_parsed(transcript=Transcript.objects.get(pk=transcript_id)))


def transcript_overview(*, transcript: Transcript) -> TranscriptOverview:
    return _overview(transcript.sha256, transcript.format, transcript.pk)


def upload_limit() -> int:
    limit: int = settings.TRIMSCOPE_MAX_UPLOAD_BYTES
    return limit
