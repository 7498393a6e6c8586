"""``POST /api/events``: the HTTP fallback for runtimes that cannot keep a WebSocket open.

Authenticated with the runtime's own token (``Authorization: Bearer rt_…``), not a user's API token.
Same frames and guarantees as ``/ws/runtime/``: each frame is validated on its own, each stored event is
committed in its own transaction before it is reported ``stored``, a resend (same session and ``seq``, or
same event ``id``) is reported ``duplicate`` with the id already stored, and a bad frame is ``rejected``
without stopping the others.
"""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router
from ninja.errors import AuthenticationError
from ninja.security import HttpBearer

from dashboard import selectors, services
from dashboard.fleet_schemas import FrameError, parse_frame
from dashboard.models import Runtime
from dashboard.schemas import ErrorOut, EventBatchIn, EventBatchOut, EventResultOut


class RuntimeTokenAuth(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> Runtime | None:
        return selectors.runtime_authenticate(token=token)


router = Router(tags=["events"], auth=RuntimeTokenAuth())


@router.post("", response={200: EventBatchOut, 401: ErrorOut, 422: ErrorOut})
def ingest_events(request: HttpRequest, payload: EventBatchIn) -> EventBatchOut:
    runtime = request.auth  # type: ignore[attr-defined]  # set by ninja from RuntimeTokenAuth
    if not isinstance(runtime, Runtime):
        raise AuthenticationError()
    results: list[EventResultOut] = []
    for index, data in enumerate(payload.events):
        try:
            frame = parse_frame(data)
        except FrameError as exc:
            results.append(
                EventResultOut(index=index, status="rejected", message=exc.message, field=exc.field or None)
            )
            continue
        assert isinstance(data, dict)  # parse_frame accepts JSON objects only
        ingested = services.trim_event_ingest(runtime=runtime, frame=frame, payload=data, touch=False)
        results.append(
            EventResultOut(
                index=index, status="stored" if ingested.created else "duplicate", id=ingested.event.pk
            )
        )
    services.runtime_seen(runtime_id=runtime.pk)
    return EventBatchOut(results=results)
