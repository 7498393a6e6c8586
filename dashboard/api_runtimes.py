"""The runtimes API for operators (session or a user's API token): list, register, revoke.

Registering returns the runtime's token once; only its hash is stored. The token opens
``/ws/runtime/`` and ``POST /api/events`` for that runtime and nothing else.
"""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404, HttpRequest
from ninja import Router, Status
from ninja.errors import HttpError

from dashboard import selectors, services
from dashboard.models import Runtime
from dashboard.schemas import ErrorOut, RuntimeCreatedOut, RuntimeIn, RuntimeOut

router = Router(tags=["runtimes"])


@router.get("", response=list[RuntimeOut])
def list_runtimes(request: HttpRequest) -> QuerySet[Runtime]:
    return selectors.runtime_list()


@router.post("", response={201: RuntimeCreatedOut, 409: ErrorOut, 422: ErrorOut})
def create_runtime(request: HttpRequest, payload: RuntimeIn) -> Status[dict[str, object]]:
    try:
        runtime, token = services.runtime_create(name=payload.name, kind=payload.kind)
    except services.RuntimeNameTaken as exc:
        raise HttpError(409, exc.message) from exc
    except services.RuntimeInvalid as exc:
        raise HttpError(422, exc.message) from exc
    return Status(201, {**RuntimeOut.from_orm(runtime).dict(), "token": token})


@router.post("/{runtime_id}/revoke", response={200: RuntimeOut, 404: ErrorOut})
def revoke_runtime(request: HttpRequest, runtime_id: int) -> Runtime:
    runtime = selectors.runtime_get(runtime_id=runtime_id)
    if runtime is None:
        raise Http404(f"no runtime with id {runtime_id}")
    services.runtime_revoke(runtime=runtime)
    return runtime
