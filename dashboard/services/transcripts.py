"""Writes and their side effects. Views, API handlers and consumers call these; nothing else writes models."""

from __future__ import annotations

from typing import NamedTuple

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.urls import reverse

import simulator
from dashboard import parsed_forms, parsed_parts, stored_counts
from dashboard.errors import ApplicationError
from dashboard.models import (
    Transcript,
    TranscriptParse,
    TranscriptParsePart,
    TranscriptSource,
    TranscriptTokenCounts,
)
from dashboard.selectors.transcript_pages import transcript_stored_tokens, transcript_upload_index
from dashboard.selectors.transcripts import (
    text_sha256,
    transcript_parse,
    transcript_read,
    transcript_text,
)
from simulator import (
    SimulatorError,
    TranscriptParseError,
    TranscriptTokens,
    parse_transcript,
    transcript_index,
)


class TranscriptAlreadyStored(SimulatorError, ApplicationError):
    """The same content is already stored (409); ``copy=True`` stores another one anyway."""

    status = 409

    def __init__(self, existing: Transcript) -> None:
        self.existing = existing
        url = reverse("transcript-detail", args=[existing.pk])
        super().__init__(
            f"this content is already stored as transcript {existing.pk} ({existing.name!r});"
            ' set store_copy (API) or tick "Store a copy" to store it again',
            {
                "transcript_id": existing.pk,
                "name": existing.name,
                "url": url,
                "api_url": reverse("api:get_transcript", args=[existing.pk]),
            },
        )


def _stored_with(sha256: str) -> Transcript | None:
    # The original when there is one, else the oldest copy (the original may have been deleted).
    return Transcript.objects.filter(sha256=sha256).order_by("is_copy", "id").first()


def transcript_import(
    *,
    text: str,
    name: str = "",
    format: str | None = None,
    source: str | None = None,
    user: User | AnonymousUser | None = None,
    copy: bool = False,
) -> Transcript:
    """Parse ``text`` and store it.

    Raises:
        TranscriptParseError: before anything is written.
        TranscriptAlreadyStored: when the same text is stored and ``copy`` is false (nothing is written).
    """
    sha256 = text_sha256(text)
    if not copy:
        existing = _stored_with(sha256)
        if existing is not None:
            raise TranscriptAlreadyStored(existing)
    parsed = transcript_parse(text=text, format=format or None, source=source)
    for field, value in (("session id", parsed.session_id), ("title", parsed.title)):
        if value and "\x00" in value:  # PostgreSQL cannot store it; the text itself keeps it escaped
            raise TranscriptParseError(
                f"the transcript's {field} contains a NUL character (U+0000)",
                formats_tried=(parsed.format,),
                source=source,
            )
    summary = transcript_upload_index(sha256=sha256, parsed=parsed)
    row = Transcript(
        name=(name.strip() or source or parsed.title or "transcript")[:200],
        format=parsed.format,
        sha256=sha256,
        size_bytes=len(text.encode("utf-8")),
        session_id=(parsed.session_id or "")[:200],
        message_count=summary.message_count,
        turn_count=summary.turn_count,
        tool_pair_count=summary.tool_pair_count,
        orphan_count=summary.orphan_count,
        estimated_tokens=summary.estimated_tokens,
        uploaded_by=user if isinstance(user, User) else None,
        is_copy=copy and _stored_with(sha256) is not None,
    )
    # A long session's parsed form is pickled and stored by the task worker after the upload, with its
    # counts (a third of a 100,000-message upload's time); until then a cold read parses the text again.
    later = summary.message_count >= settings.TRIMSCOPE_COUNT_AFTER_UPLOAD_MESSAGES
    form = None if later else _encoded(parsed, summary, sha256)
    try:
        with transaction.atomic():
            row.save()
            TranscriptSource.objects.create(transcript=row, text=text)
            if form is not None:
                _write_form(row, form, new=True)
    except IntegrityError:
        # Another upload of the same text committed between the check and the insert.
        existing = _stored_with(sha256)
        if existing is None:
            raise
        raise TranscriptAlreadyStored(existing) from None
    if later:
        transaction.on_commit(lambda: _finish_later(row.pk))
    return row


COUNT_TASK_PRIORITY = -10
"""Below the default (0): a corpus evaluation's chunks, which someone is waiting for, run first."""


def _finish_later(transcript_id: int) -> None:
    from dashboard.tasks import transcript_count_task, transcript_form_task  # tasks import the services

    # The form at the default priority, so before any evaluation of the session enqueued after it (and
    # the count, which then reads it instead of parsing the text again).
    transcript_form_task.enqueue(transcript_id)
    transcript_count_task.using(priority=COUNT_TASK_PRIORITY).enqueue(transcript_id)


def transcript_form_store(*, transcript_id: int) -> bool:
    """Store a transcript's parsed form when it has none made by this parser: what the task worker does
    after a long session's upload, which leaves it (``transcript_import``). Whether it stored one."""
    transcript = Transcript.objects.filter(pk=transcript_id).first()
    if transcript is None or _current_forms().filter(pk=transcript_id).exists():
        return False
    try:
        parsed = parse_transcript(transcript_text(transcript=transcript), format=transcript.format)
    except TranscriptParseError:
        return False  # refused by this parser (changed since the upload): pages say why, as for any text
    try:
        _store_form(transcript, parsed)
    except IntegrityError:  # deleted meanwhile, or stored by `store_parsed_forms` at the same time
        return False
    return True


def transcript_count_all(*, transcript_id: int) -> int:
    """Count every message of a stored transcript with o200k, fingerprint it for the cost model, and store
    both (``TranscriptTokenCounts``), so that the first cost panel of any server process, after a restart
    too, reads them instead of making them. Returns the messages counted: 0 when the transcript is gone or
    its content's current counts are stored already."""
    transcript = Transcript.objects.filter(pk=transcript_id).first()
    if transcript is None or transcript_stored_tokens(transcript=transcript) is not None:
        return 0
    # Read, not kept: the worker's process serves no page. A text repeated in the session (a file read
    # again) is counted once.
    threads = settings.TRIMSCOPE_COUNT_THREADS
    tokens = TranscriptTokens.of(transcript_read(transcript=transcript), threads=threads)
    counts, fingerprints, version = stored_counts.encode(tokens)
    try:
        TranscriptTokenCounts.objects.update_or_create(
            transcript_id=transcript_id,
            defaults={"counter_version": version, "counts": counts, "fingerprints": fingerprints},
        )
    except IntegrityError:  # the transcript was deleted while it was counted
        return 0
    return len(tokens.tokens)


def transcript_parsed_forms_store() -> tuple[int, list[tuple[Transcript, str]]]:
    """Store the parsed form of every transcript whose form is missing, was made by another parser or was
    stored before its page parts were (``_current_forms``).

    Run after an upgrade (``make migrate`` does): until then, a stale form is ignored and the text
    parsed again on every cold read.

    Returns:
        How many forms were stored, and the transcripts whose text this parser refuses, with why.
    """
    stale = Transcript.objects.exclude(pk__in=_current_forms().values("pk")).order_by("pk")
    stored, refused = 0, []
    for row in stale.select_related("source").iterator(chunk_size=20):
        try:
            parsed = parse_transcript(row.source.text, format=row.format)
        except TranscriptParseError as exc:
            refused.append((row, exc.message))
            continue
        _store_form(row, parsed)
        stored += 1
    return stored, refused


def _current_forms() -> QuerySet[Transcript]:
    """Transcripts whose parsed form and page parts were made by this parser (a form stored before the
    parts were is made again: its page would read the whole form)."""
    version = parsed_forms.parser_version()
    return Transcript.objects.filter(parsed_form__parser_version=version).filter(
        parsed_parts__number=parsed_parts.HEAD, parsed_parts__parser_version=version
    )


class _Encoded(NamedTuple):
    form: tuple[bytes, str, str]
    parts: list[parsed_parts.Part]


def _encoded(parsed: simulator.Transcript, index: simulator.TranscriptIndex, sha256: str) -> _Encoded:
    """The whole form and its page parts, the message chunks pickled and compressed once for both."""
    size = parsed_forms.CHUNK_MESSAGES
    chunks = parsed_forms.message_chunks(parsed, size)
    content = parsed_parts.content_of(sha256, parsed.format)
    return _Encoded(
        parsed_forms.encode(parsed, index, chunks),
        parsed_parts.encode(index, chunks, size, content),
    )


def _write_form(transcript: Transcript, encoded: _Encoded, *, new: bool = False) -> None:
    """Store (or replace) the form and its parts, all or none (the caller's transaction)."""
    blob, version, signature = encoded.form
    if new:
        TranscriptParse.objects.create(
            transcript=transcript, parser_version=version, signature=signature, blob=blob
        )
    else:
        TranscriptParse.objects.update_or_create(
            transcript=transcript, defaults={"parser_version": version, "signature": signature, "blob": blob}
        )
        TranscriptParsePart.objects.filter(transcript=transcript).delete()
    TranscriptParsePart.objects.bulk_create(
        TranscriptParsePart(
            transcript=transcript, number=p.number, parser_version=version, signature=p.signature, blob=p.blob
        )
        for p in encoded.parts
    )


def _store_form(transcript: Transcript, parsed: simulator.Transcript) -> None:
    """Store (or replace) ``transcript``'s parsed form, page index and page parts in one transaction."""
    encoded = _encoded(parsed, transcript_index(parsed), transcript.sha256)
    with transaction.atomic():
        _write_form(transcript, encoded)


def transcript_delete(*, transcript: Transcript) -> None:
    transcript.delete()
