"""Transcript reads. Parsed transcripts are read back from their stored parsed form (or, when it is stale
or missing, parsed again from the stored text) and kept in ``dashboard.memo`` under their content hash
and format.

The upload's own parse is kept too (``transcript_parse``), so the first page after an upload does not
parse the same text again.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.db.models import QuerySet

from dashboard import memo, parsed_forms
from dashboard.errors import get_or_404
from dashboard.models import Transcript, TranscriptParse, TranscriptSource
from simulator import Transcript as ParsedTranscript
from simulator import TranscriptIndex, TranscriptOverview, parse_transcript
from simulator import transcript_overview as overview


def transcript_list() -> QuerySet[Transcript]:
    return Transcript.objects.all()


def transcript_get(*, transcript_id: int) -> Transcript | None:
    """The row without its source text (tens of MB for a long session): pages read the kept parse, and
    the text is loaded on its own only when that parse is not kept (``transcript_parsed``)."""
    return Transcript.objects.filter(pk=transcript_id).first()


def transcript_get_or_404(*, transcript_id: int) -> Transcript:
    """The transcript, or a 404 ``no transcript with id <id>`` (for the API and the pages alike)."""
    return get_or_404(transcript_get(transcript_id=transcript_id), "transcript", transcript_id)


def transcript_parse(*, text: str, format: str | None = None, source: str | None = None) -> ParsedTranscript:
    """Parse an upload (raising ``TranscriptParseError``) and remember the result for its first views."""
    parsed = parse_transcript(text, format=format, source=source)
    return memo.PARSED.put(memo.TranscriptKey(text_sha256(text), parsed.format), parsed)


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def transcript_key(transcript: Transcript) -> memo.TranscriptKey:
    """The cache key of a stored transcript's content (rows with the same text share it)."""
    return memo.TranscriptKey(transcript.sha256, transcript.format)


def transcript_parsed(*, transcript: Transcript) -> ParsedTranscript:
    key = transcript_key(transcript)
    return memo.PARSED.get_or_compute(key, lambda: _read_keeping_index(transcript, key))


def _read_keeping_index(transcript: Transcript, key: memo.TranscriptKey) -> ParsedTranscript:
    parsed, page_index = _read(transcript)
    if page_index is not None and memo.INDEXES.get(key) is None:
        memo.INDEXES.put(key, page_index)  # read back with the parse: the page index is not rebuilt
    return parsed


def transcript_read(*, transcript: Transcript) -> ParsedTranscript:
    """The parsed transcript without keeping it: its stored parsed form when that is current, else its text
    parsed again (raising ``TranscriptParseError`` as the upload would have)."""
    return _read(transcript)[0]


def _read(transcript: Transcript) -> tuple[ParsedTranscript, TranscriptIndex | None]:
    """The stored form's parse and page index, else the text parsed again (and no index)."""
    stored = transcript_stored_form(transcript=transcript)
    if stored is None:
        return parse_transcript(transcript_text(transcript=transcript), format=transcript.format), None
    return stored.parsed, stored.page_index


def transcript_text(*, transcript: Transcript) -> str:
    """The transcript's text exactly as uploaded (``TranscriptSource``)."""
    text: str = TranscriptSource.objects.values_list("text", flat=True).get(transcript_id=transcript.pk)
    return text


def transcript_stored_form(*, transcript: Transcript) -> parsed_forms.StoredForm | None:
    """The transcript's stored parsed form and page index, when current and signed by this deployment."""
    form = TranscriptParse.objects.filter(transcript_id=transcript.pk).first()
    if form is None:
        return None
    return parsed_forms.decode(form.blob, form.parser_version, form.signature)


def transcript_overview(*, transcript: Transcript) -> TranscriptOverview:
    return memo.OVERVIEWS.get_or_compute(
        transcript_key(transcript), lambda: overview(transcript_parsed(transcript=transcript))
    )


def upload_limit() -> int:
    limit: int = settings.TRIMSCOPE_MAX_UPLOAD_BYTES
    return limit
