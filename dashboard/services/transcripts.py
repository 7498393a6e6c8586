"""Writes and their side effects. Views, API handlers and consumers call these; nothing else writes models."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction

from dashboard.models import Transcript
from dashboard.selectors.transcripts import text_sha256, transcript_parse
from simulator.errors import TranscriptParseError
from simulator.overview import summarize


@transaction.atomic
def transcript_import(
    *,
    text: str,
    name: str = "",
    format: str | None = None,
    source: str | None = None,
    user: User | AnonymousUser | None = None,
) -> Transcript:
    """Parse ``text`` and store it. Raises ``TranscriptParseError`` before anything is written."""
    parsed = transcript_parse(text=text, format=format or None, source=source)
    for field, value in (("session id", parsed.session_id), ("title", parsed.title)):
        if value and "\x00" in value:  # PostgreSQL cannot store it; the text itself keeps it escaped
            raise TranscriptParseError(
                f"the transcript's {field} contains a NUL character (U+0000)",
                formats_tried=(parsed.format,),
                source=source,
            )
    summary = summarize(parsed)
    return Transcript.objects.create(
        name=(name.strip() or source or parsed.title or "transcript")[:200],
        format=parsed.format,
        source_text=text,
        sha256=text_sha256(text),
        size_bytes=len(text.encode("utf-8")),
        session_id=(parsed.session_id or "")[:200],
        message_count=summary.message_count,
        turn_count=summary.turn_count,
        tool_pair_count=summary.tool_pair_count,
        orphan_count=summary.orphan_count,
        estimated_tokens=summary.estimated_tokens,
        uploaded_by=user if isinstance(user, User) else None,
    )


def transcript_delete(*, transcript: Transcript) -> None:
    transcript.delete()
