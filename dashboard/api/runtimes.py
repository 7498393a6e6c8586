"""The runtimes API for operators (session or a user's API token): list, register, revoke.

Registering returns the runtime's token once; only its hash is stored. The token opens
``/ws/runtime/`` and ``POST /api/events`` for that runtime and nothing else. A runtime registered with an
API token is revoked when that API token is (dashboard.services.tokens).
"""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import HttpRequest
from ninja import Router, Status
from ninja.errors import AuthenticationError

from dashboard import selectors, services
from dashboard.api.docs import body_example
from dashboard.api.errors import get_or_404
from dashboard.auth import request_api_token
from dashboard.models import Runtime
from dashboard.schemas import ErrorOut, RuntimeCreatedOut, RuntimeIn, RuntimeOut
from dashboard.services.tokens import ApiTokenRevoked, runtime_create_with_api_token

router = Router(tags=["runtimes"])


@router.get("", response=list[RuntimeOut], summary="List fleet runtimes")
def list_runtimes(request: HttpRequest) -> QuerySet[Runtime]:
    """Every registered fleet runtime (a process that streams trim events): kind, token prefix, last
    seen, open connections.
    """
    return selectors.runtime_list()


@router.post(
    "",
    response={201: RuntimeCreatedOut, 401: ErrorOut, 409: ErrorOut, 422: ErrorOut},
    summary="Register a fleet runtime",
    openapi_extra=body_example(RuntimeIn),
)
def create_runtime(request: HttpRequest, payload: RuntimeIn) -> Status[dict[str, object]]:
    """Registers a runtime and answers its token once (only a hash is stored); the token opens `/ws/runtime/`
    and `POST /api/events` for this runtime only. A name already taken answers 409, a blank or overlong
    name or kind 422.
    """
    api_token = request_api_token(request)
    try:
        if api_token is None:
            runtime, token = services.runtime_create(name=payload.name, kind=payload.kind)
        else:
            runtime, token = runtime_create_with_api_token(
                name=payload.name, kind=payload.kind, token=api_token
            )
    except ApiTokenRevoked as exc:
        raise AuthenticationError() from exc
    return Status(201, {**RuntimeOut.from_orm(runtime).dict(), "token": token})


@router.post(
    "/{runtime_id}/revoke", response={200: RuntimeOut, 404: ErrorOut}, summary="Revoke a fleet runtime"
)
def revoke_runtime(request: HttpRequest, runtime_id: int) -> Runtime:
    """Revokes the runtime's token; its open sockets are closed with 4401."""
    runtime = get_or_404(selectors.runtime_get(runtime_id=runtime_id), "runtime", runtime_id)
    services.runtime_revoke(runtime=runtime)
    return runtime
