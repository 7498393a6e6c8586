"""The JSON API (django-ninja; OpenAPI at /api/docs). Thin: validate, call one service or selector, return.

Errors always have one shape, ``{"message", "extra"}``, with a 4xx status.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse
from ninja import NinjaAPI, Router, Status
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError

from dashboard import selectors, services
from dashboard.api_corpora import corpora_router, evaluations_router, tune_router
from dashboard.api_events import router as events_router
from dashboard.api_fleet import router as fleet_router
from dashboard.api_pricing import router as pricing_router
from dashboard.api_profiles import router as profiles_router
from dashboard.api_runtimes import router as runtimes_router
from dashboard.api_simulations import compare_router
from dashboard.api_simulations import router as simulations_router
from dashboard.api_tokens import router as tokens_router
from dashboard.auth import API_AUTH
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
from simulator import ProfileError, SimulatorError, TranscriptParseError

# The OpenAPI page and schema are for signed-in operators, like every other page.
api = NinjaAPI(
    title="Trimscope API",
    version="1",
    auth=API_AUTH,
    urls_namespace="api",
    docs_decorator=login_required,
)
transcripts = Router(tags=["transcripts"])


@api.exception_handler(SimulatorError)
def _simulator_error(request: HttpRequest, exc: SimulatorError) -> HttpResponse:
    status = 422 if isinstance(exc, TranscriptParseError | ProfileError) else 400
    if isinstance(exc, services.ProfileNameTaken | services.TranscriptAlreadyStored):
        status = 409
    return api.create_response(request, {"message": exc.message, "extra": exc.extra}, status=status)


@api.exception_handler(ValidationError)
def _validation_error(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    fields = [".".join(str(p) for p in e.get("loc", ())) for e in exc.errors]
    message = "invalid request: " + ", ".join(f or "body" for f in fields)
    return api.create_response(request, {"message": message, "extra": {"errors": exc.errors}}, status=422)


@api.exception_handler(AuthenticationError)
def _auth_error(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return api.create_response(
        request,
        {"message": "authentication required: session or 'Authorization: Bearer <token>'", "extra": {}},
        status=401,
    )


@api.exception_handler(Throttled)
def _throttled(request: HttpRequest, exc: Throttled) -> HttpResponse:
    wait = max(1, int(exc.wait or 1))
    body = {"message": f"too many requests: try again in {wait} s", "extra": {"retry_after": wait}}
    response = api.create_response(request, body, status=429)
    response["Retry-After"] = str(wait)
    return response


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    return api.create_response(request, {"message": str(exc), "extra": {}}, status=exc.status_code)


@api.exception_handler(RequestDataTooBig)
def _too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    # Normally refused earlier, before the body is read (dashboard/body_limit.py); this covers WSGI.
    return api.create_response(
        request, {"message": f"request body too large: {exc}", "extra": {}}, status=413
    )


@api.exception_handler(Http404)
def _not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return api.create_response(request, {"message": str(exc) or "not found", "extra": {}}, status=404)


def _transcript_or_404(transcript_id: int) -> Transcript:
    transcript = selectors.transcript_get(transcript_id=transcript_id)
    if transcript is None:
        raise Http404(f"no transcript with id {transcript_id}")
    return transcript


@transcripts.get("", response=list[TranscriptOut])
def list_transcripts(request: HttpRequest) -> list[Transcript]:
    return list(selectors.transcript_list())


@transcripts.post("", response={201: TranscriptOut, 409: ErrorOut, 413: ErrorOut, 422: ErrorOut})
def create_transcript(request: HttpRequest, payload: TranscriptIn) -> Status[Transcript]:
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


@transcripts.get("/{transcript_id}", response={200: TranscriptDetailOut, 404: ErrorOut})
def get_transcript(request: HttpRequest, transcript_id: int) -> dict[str, object]:
    transcript = _transcript_or_404(transcript_id)
    view = selectors.transcript_overview(transcript=transcript)
    messages: list[MessageOut] = []
    # Blocks are contiguous and in message order; a turn block's key is its turn number.
    for block in view.blocks:
        turn = int(block.key) if block.kind == "turn" else None
        for row in block.rows:
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


@transcripts.delete("/{transcript_id}", response={204: None, 404: ErrorOut})
def delete_transcript(request: HttpRequest, transcript_id: int) -> Status[None]:
    services.transcript_delete(transcript=_transcript_or_404(transcript_id))
    return Status(204, None)


api.add_router("/transcripts", transcripts)
api.add_router("/profiles", profiles_router)
api.add_router("/simulations", simulations_router)
api.add_router("/compare", compare_router)
api.add_router("/tokens", tokens_router)
api.add_router("/events", events_router)
api.add_router("/runtimes", runtimes_router)
api.add_router("/fleet", fleet_router)
api.add_router("/pricing", pricing_router)
api.add_router("/corpora", corpora_router)
api.add_router("/evaluations", evaluations_router)
api.add_router("/tune", tune_router)
