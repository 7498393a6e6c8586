"""``POST /api/events``: the HTTP fallback for runtimes that cannot keep a WebSocket open.

Authenticated with the runtime's own token (``Authorization: Bearer rt_…``), not a user's API token.
Same frames and guarantees as ``/ws/runtime/``: each frame is validated on its own, each stored event is
committed in its own transaction before it is reported ``stored``, a resend (same session and ``seq``, or
same event ``id``) is reported ``duplicate`` with the id already stored, and a bad frame (or one the
database refuses, or an envelope naming another runtime) is ``rejected`` without stopping the others.
A runtime over its ingestion rate gets 429 with ``Retry-After`` and nothing of the batch is stored.
"""

from __future__ import annotations

import math

from django.http import HttpRequest
from ninja import Router
from ninja.errors import AuthenticationError
from ninja.security import HttpBearer

from dashboard import selectors, services
from dashboard.api.docs import body_example
from dashboard.errors import ApplicationError
from dashboard.fleet_schemas import FrameError, check_runtime, parse_frame
from dashboard.models import Runtime
from dashboard.schemas import ErrorOut, EventBatchIn, EventBatchOut, EventResultOut
from dashboard.services.throttle import ingest_throttle


class RuntimeTokenAuth(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> Runtime | None:
        return selectors.runtime_authenticate(token=token)


router = Router(tags=["events"], auth=RuntimeTokenAuth())


def _rejected(index: int, exc: FrameError) -> EventResultOut:
    return EventResultOut(index=index, status="rejected", message=exc.message, field=exc.field or None)


@router.post(
    "",
    response={200: EventBatchOut, 401: ErrorOut, 422: ErrorOut, 429: ErrorOut},
    summary="Send trim events (runtime token)",
    openapi_extra=body_example(EventBatchIn),
)
def ingest_events(request: HttpRequest, payload: EventBatchIn) -> EventBatchOut:
    """The HTTP fallback to `/ws/runtime/`, authenticated with the runtime's own token. Each frame (a ZeroClaw
    wire shape or a Trimscope envelope) is checked and stored on its own: `stored`, `duplicate` (a
    resend) or `rejected` with the field at fault, in frame order. Over the runtime's ingestion rate:
    429 with `Retry-After`, nothing stored.
    """
    runtime = request.auth  # type: ignore[attr-defined]  # set by ninja from RuntimeTokenAuth
    if not isinstance(runtime, Runtime):
        raise AuthenticationError()
    wait = ingest_throttle(runtime_id=runtime.pk, events=len(payload.events))
    if wait > 0:
        seconds = math.ceil(wait)
        raise ApplicationError(
            f"runtime {runtime.name!r} is over its ingestion rate; retry in {seconds} s",
            {"retry_after": seconds},
            status=429,
        )
    results: list[EventResultOut] = []
    for index, data in enumerate(payload.events):
        try:
            checked = check_runtime((parse_frame(data), data), runtime.name)  # type: ignore[arg-type]
        except FrameError as exc:
            results.append(_rejected(index, exc))
            continue
        if isinstance(checked, FrameError):
            results.append(_rejected(index, checked))
            continue
        frame, body = checked
        ingested = services.trim_event_ingest(runtime=runtime, frame=frame, payload=body, touch=False)
        if isinstance(ingested, services.IngestFailed):
            results.append(EventResultOut(index=index, status="rejected", message=ingested.message))
            continue
        results.append(
            EventResultOut(
                index=index, status="stored" if ingested.created else "duplicate", id=ingested.event.pk
            )
        )
    services.runtime_seen(runtime_id=runtime.pk)
    return EventBatchOut(results=results)
