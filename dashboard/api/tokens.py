"""The API tokens API: a signed-in user's own tokens only.

Listing and revoking work with the session or a bearer token (always scoped to that token's user);
creating needs the browser session, so a leaked token cannot mint replacements that outlive its own
revocation. Revoking a token also revokes every fleet runtime registered with it (see
``dashboard.api.runtimes``). Another user's token answers 404, as if it did not exist.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import HttpRequest
from ninja import Router, Status
from ninja.errors import AuthenticationError

from dashboard import selectors, services
from dashboard.api.docs import body_example
from dashboard.api.errors import get_or_404
from dashboard.auth import SessionWithCsrfAuth
from dashboard.models import ApiToken
from dashboard.schemas import ApiTokenCreatedOut, ApiTokenIn, ApiTokenOut, ErrorOut

router = Router(tags=["tokens"])


def _user(request: HttpRequest) -> User:
    # Both authenticators put the token's or session's user on the request; anything else is not signed in.
    if not isinstance(request.user, User):
        raise AuthenticationError()
    return request.user


def _token_or_404(request: HttpRequest, token_id: int) -> ApiToken:
    return get_or_404(selectors.api_token_get(user=_user(request), token_id=token_id), "token", token_id)


@router.get("", response=list[ApiTokenOut], summary="List your API tokens")
def list_tokens(request: HttpRequest) -> QuerySet[ApiToken]:
    """The signed-in user's API tokens (prefix, dates, revocation); never the secrets."""
    return selectors.api_token_list(user=_user(request))


@router.post(
    "",
    response={201: ApiTokenCreatedOut, 401: ErrorOut},
    auth=SessionWithCsrfAuth(),
    summary="Create an API token",
    openapi_extra=body_example(ApiTokenIn),
)
def create_token(request: HttpRequest, payload: ApiTokenIn) -> Status[dict[str, object]]:
    """Creates a token for the signed-in user and answers its secret once (only a hash is stored). Needs the
    browser session with its CSRF token: a bearer token cannot mint another.
    """
    row, secret = services.api_token_create(user=_user(request), name=payload.name)
    return Status(201, {**ApiTokenOut.from_orm(row).dict(), "secret": secret})


@router.post("/{token_id}/revoke", response={200: ApiTokenOut, 404: ErrorOut}, summary="Revoke an API token")
def revoke_token(request: HttpRequest, token_id: int) -> ApiToken:
    """Revokes one of your tokens, and every fleet runtime registered with it; another user's token answers
    404.
    """
    token = _token_or_404(request, token_id)
    services.api_token_revoke(token=token)
    return token
