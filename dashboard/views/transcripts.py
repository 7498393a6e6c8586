"""Transcript screens: list + upload, detail (turns, tool links, token counts), delete."""

from __future__ import annotations

import codecs
import itertools
from urllib.parse import urlencode

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.http import Http404, HttpResponse, HttpResponseBadRequest, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from dashboard import forms, selectors, services
from dashboard.models import Transcript, TranscriptSource
from dashboard.views.common import HtmxHttpRequest
from simulator import FORMATS, SimulatorError, TranscriptParseError


def _list_context(**extra: object) -> dict[str, object]:
    return {
        "nav": "transcripts",
        "transcripts": selectors.transcript_list(),
        "formats": FORMATS,
        "max_upload_mb": settings.TRIMSCOPE_MAX_UPLOAD_BYTES // (1024 * 1024),
        "form_values": {},
        **extra,
    }


@require_GET
def transcript_list(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "dashboard/transcript-list.html", _list_context())


UPLOAD_CHUNK_BYTES = 4 * 1024 * 1024


class UploadRejected(SimulatorError):
    """The upload itself is unusable (too big, not text, empty) before any format is tried."""


def _read_upload(request: HtmxHttpRequest) -> tuple[str, str | None]:
    limit = settings.TRIMSCOPE_MAX_UPLOAD_BYTES
    upload = request.FILES.get("file")
    if upload is not None and upload.size:
        if upload.size > limit:
            raise UploadRejected(f"file is {upload.size:,} bytes; the limit is {limit:,} bytes")
        return _decoded(upload), upload.name
    text = request.POST.get("text", "")
    if len(text.encode("utf-8")) > limit:
        raise UploadRejected(f"pasted text is over the {limit:,} byte limit")
    if not text.strip():
        raise UploadRejected("choose a file or paste a transcript")
    return text, None


def _decoded(upload: UploadedFile[bytes]) -> str:
    """The file's text, decoded chunk by chunk from where it was streamed (a temporary file for a large
    upload), so the raw bytes and the text are never both held whole."""
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    pieces: list[str] = []
    consumed = 0
    for chunk in itertools.chain(upload.chunks(UPLOAD_CHUNK_BYTES), [b""]):
        held = len(decoder.getstate()[0])  # the start of a character cut by the previous chunk
        try:
            pieces.append(decoder.decode(chunk, final=not chunk))
        except UnicodeDecodeError as exc:
            raise UploadRejected(f"file is not UTF-8 text (byte {consumed - held + exc.start})") from exc
        consumed += len(chunk)
    return "".join(pieces)


@require_POST
def transcript_upload(request: HtmxHttpRequest) -> HttpResponse:
    values = {k: request.POST.get(k, "") for k in ("name", "format", "text", "copy")}
    try:
        text, filename = _read_upload(request)
        transcript = services.transcript_import(
            text=text,
            name=values["name"],
            format=values["format"] or None,
            source=filename,
            user=request.user,
            copy=bool(values["copy"]),
        )
    except SimulatorError as exc:
        existing = exc.existing if isinstance(exc, services.TranscriptAlreadyStored) else None
        error = {
            "message": exc.message,
            "formats_tried": exc.formats_tried if isinstance(exc, TranscriptParseError) else (),
            "line": exc.line if isinstance(exc, TranscriptParseError) else None,
            "message_index": exc.message_index if isinstance(exc, TranscriptParseError) else None,
            "existing": existing,
        }
        context = _list_context(upload_error=error, form_values=values)
        if request.htmx:
            # htmx does not swap 4xx bodies by default; the partial itself carries the alert.
            return render(request, "dashboard/transcript-list.html#upload-form", context)
        return render(
            request, "dashboard/transcript-list.html", context, status=422 if existing is None else 409
        )
    url = reverse("transcript-detail", args=[transcript.pk])
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return HttpResponseRedirect(url)


@require_GET
def transcript_detail(request: HtmxHttpRequest, transcript_id: int) -> HttpResponse:
    transcript = selectors.transcript_get_or_404(transcript_id=transcript_id)
    trace = _trace_context(request, transcript=transcript)
    if request.htmx and request.htmx.target == "trace":
        return render(
            request, "dashboard/transcript-detail.html#trace-panel", {"transcript": transcript, **trace}
        )
    try:
        page = selectors.transcript_page(transcript=transcript, page=_int(request.GET.get("page")))
    except TranscriptSource.DoesNotExist:  # deleted while the page was read: its parts and text are gone
        raise Http404(f"no transcript with id {transcript_id}") from None
    return render(
        request,
        "dashboard/transcript-detail.html",
        {"nav": "transcripts", "transcript": transcript, "view": page.index, "page": page, **trace},
    )


MAX_COUNTED_RANGE = 500
"""Messages one count request may ask for (a page asks for its own, at most 100)."""


@require_GET
def transcript_counts(request: HtmxHttpRequest, transcript_id: int) -> HttpResponse:
    """o200k counts of messages ``[from, to)``, swapped into their rows out of band (asked for by a page
    once it is drawn; each count is kept, so paging back shows them at once)."""
    transcript = selectors.transcript_get_or_404(transcript_id=transcript_id)
    start, end = _int(request.GET.get("from")), _int(request.GET.get("to"))
    if start is None or end is None or not 0 <= start <= end:
        return HttpResponseBadRequest("from and to must be whole numbers with 0 ≤ from ≤ to")
    if end - start > MAX_COUNTED_RANGE:
        return HttpResponseBadRequest(
            f"at most {MAX_COUNTED_RANGE} messages per request (asked for {end - start})"
        )
    try:
        counts = selectors.message_o200k(transcript=transcript, indices=range(start, end))
    except TranscriptSource.DoesNotExist:  # deleted since the page was drawn
        raise Http404(f"no transcript with id {transcript_id}") from None
    return render(request, "dashboard/transcript-detail.html#o200k-counts", {"counts": counts.items()})


def _trace_context(request: HtmxHttpRequest, *, transcript: Transcript) -> dict[str, object]:
    """The trace panel: the query, and the profile to replay it through (the first one by default)."""
    profiles = list(selectors.profile_list())
    chosen = next(
        (p for p in profiles if str(p.pk) == request.GET.get("profile")), profiles[0] if profiles else None
    )
    find = request.GET.get("find", "")
    regex = bool(request.GET.get("regex"))
    screen = None
    if find and chosen is not None:
        screen = selectors.simulation_trace(
            transcript=transcript,
            profile=forms.simulation_profile(profile=chosen),
            find=find,
            regex=regex,
            opened=_int(request.GET.get("open")),
        )
    params: list[tuple[str, str | int]] = [("find", find)]
    if regex:
        params.append(("regex", "on"))
    if chosen is not None:
        params.insert(0, ("profile", chosen.pk))
    return {
        "trace_screen": screen,
        "trace_action": reverse("transcript-detail", args=[transcript.pk]),
        "trace_hidden": [],
        "trace_query": urlencode(params),
        "trace_target": "trace",
        "trace_profiles": profiles,
        "trace_profile": chosen,
    }


def _int(raw: str | None) -> int | None:
    try:
        return int(raw) if raw else None
    except ValueError:
        return None


@require_POST
def transcript_delete(request: HtmxHttpRequest, transcript_id: int) -> HttpResponse:
    transcript = selectors.transcript_get_or_404(transcript_id=transcript_id)
    services.transcript_delete(transcript=transcript)
    return HttpResponseRedirect(reverse("transcript-list"))
