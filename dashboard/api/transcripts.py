"""The transcripts API: list, upload (409 when the content is already stored), read with turns, delete."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router, Status
from ninja.errors import HttpError

from dashboard import selectors, services
from dashboard.api.docs import body_example
from dashboard.models import Transcript
from dashboard.schemas import (
    ErrorOut,
    MessageOut,
    SkippedLineOut,
    ToolCallOut,
    TranscriptDetailOut,
    TranscriptIn,
    TranscriptOut,
)

router = Router(tags=["transcripts"])

# The handlers below name their operation ids: ninja derives them from the module, and these keep the ids
# they had in ``dashboard/api.py`` so clients generated from the OpenAPI document keep their method names.


@router.get(
    "",
    response=list[TranscriptOut],
    operation_id="dashboard_api_list_transcripts",
    summary="List transcripts",
)
def list_transcripts(request: HttpRequest) -> list[Transcript]:
    """Every stored transcript, newest first, with its counts (messages, turns, tool pairs, orphans, estimated
    tokens); the text itself is not included.
    """
    return list(selectors.transcript_list())


@router.post(
    "",
    response={201: TranscriptOut, 409: ErrorOut, 413: ErrorOut, 422: ErrorOut},
    operation_id="dashboard_api_create_transcript",
    summary="Upload a transcript",
    openapi_extra=body_example(TranscriptIn),
)
def create_transcript(request: HttpRequest, payload: TranscriptIn) -> Status[Transcript]:
    """Stores a transcript file's text after detecting (or, with `format`, forcing) its format. Content
    that is already stored answers 409 with the stored transcript's id in `extra`, unless `store_copy` is set;
    text over the upload limit answers 413, text no reader accepts 422 naming the formats tried and the
    first bad place.
    """
    if len(payload.text.encode("utf-8")) > selectors.upload_limit():
        raise HttpError(413, f"transcript is over the {selectors.upload_limit():,} byte limit")
    return Status(
        201,
        services.transcript_import(
            text=payload.text,
            name=payload.name,
            format=payload.format,
            user=request.user,
            copy=payload.store_copy,
        ),
    )


@router.get(
    "/{transcript_id}",
    response={200: TranscriptDetailOut, 404: ErrorOut},
    operation_id="dashboard_api_get_transcript",
    summary="Read a transcript",
)
def get_transcript(request: HttpRequest, transcript_id: int) -> dict[str, object]:
    """The transcript with every message: its turn, role, text, three token counts (the runtime's estimate,
    o200k, the provider's reported usage), tool call and result links, and flags for orphan and
    duplicate tool ids; plus the reader's warnings and skipped lines.
    """
    transcript = selectors.transcript_get_or_404(transcript_id=transcript_id)
    view = selectors.transcript_overview(transcript=transcript)
    messages: list[MessageOut] = []
    # Blocks are contiguous and in message order; a turn block's key is its turn number.
    for block in view.blocks:
        turn = int(block.key) if block.kind == "turn" else None
        for row in block.rows:
            assert row.tokenizer_tokens is not None  # the full overview counts every row
            messages.append(
                MessageOut(
                    index=row.index,
                    turn=turn,
                    role=row.role,
                    text=row.text,
                    estimated_tokens=row.estimated_tokens,
                    tokenizer_tokens=row.tokenizer_tokens,
                    provider_input_tokens=row.provider_input_tokens,
                    tool_calls=[
                        ToolCallOut(id=c.id, name=c.name, arguments=c.arguments, result_index=c.result_index)
                        for c in row.tool_calls
                    ],
                    result_of_call_id=row.result_of.call_id if row.result_of else None,
                    result_of_index=row.result_of.call_index if row.result_of else None,
                    flags=list(row.flags),
                    role_label=row.role_label,
                    error=row.error,
                )
            )
    return {
        **TranscriptOut.from_orm(transcript).dict(),
        "problems": list(view.problems),
        "warnings": list(view.warnings),
        "skipped_lines": [SkippedLineOut(line=s.line, reason=s.reason) for s in view.skipped_lines],
        "messages": messages,
    }


@router.delete(
    "/{transcript_id}",
    response={204: None, 404: ErrorOut},
    operation_id="dashboard_api_delete_transcript",
    summary="Delete a transcript",
)
def delete_transcript(request: HttpRequest, transcript_id: int) -> Status[None]:
    """Deletes the transcript and the simulation runs stored for it."""
    services.transcript_delete(transcript=selectors.transcript_get_or_404(transcript_id=transcript_id))
    return Status(204, None)
