"""API token writes. The secret is generated here, returned once and stored only as a SHA-256 hash.

What a token may do: everything its user may do through the API except create API tokens (that needs
the browser session). Runtimes registered with a token are tied to it: revoking the token revokes them
in the same transaction, so nothing minted with a leaked token outlives its revocation.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from dashboard.models import ApiToken, Runtime
from dashboard.services.fleet import runtime_create, runtime_revoke
from dashboard.tokens import token_generate, token_hash


class ApiTokenRevoked(Exception):
    """The token was revoked while the request that used it was running."""


def api_token_create(*, user: User, name: str) -> tuple[ApiToken, str]:
    """Create a token; returns the row and the secret, which is never stored and shown only now."""
    secret = token_generate("ts")
    row = ApiToken.objects.create(
        user=user, name=name.strip()[:120] or "token", prefix=secret[:10], key_hash=token_hash(secret)
    )
    return row, secret


def api_token_revoke(*, token: ApiToken) -> list[Runtime]:
    """Revoke the token and every runtime registered with it; returns the runtimes revoked now."""
    with transaction.atomic():
        # Locked, so a runtime being registered with this token either commits first (and is revoked
        # here) or sees the revocation (runtime_create_with_api_token).
        locked = ApiToken.objects.select_for_update().get(pk=token.pk)
        if locked.revoked_at is None:
            locked.revoked_at = timezone.now()
            locked.save(update_fields=["revoked_at"])
        token.revoked_at = locked.revoked_at
        runtimes = list(Runtime.objects.filter(created_by_token=locked, revoked_at__isnull=True))
        for runtime in runtimes:
            runtime_revoke(runtime=runtime)
    return runtimes


def runtime_create_with_api_token(*, name: str, kind: str, token: ApiToken) -> tuple[Runtime, str]:
    """Register a runtime on behalf of an API token; it is revoked whenever the token is.

    Raises:
        ApiTokenRevoked: the token was revoked meanwhile (nothing is stored).
        RuntimeInvalid, RuntimeNameTaken: as ``runtime_create``.
    """
    with transaction.atomic():
        locked = ApiToken.objects.select_for_update().get(pk=token.pk)
        if locked.revoked_at is not None:
            raise ApiTokenRevoked
        runtime, secret = runtime_create(name=name, kind=kind)
        runtime.created_by_token = locked
        runtime.save(update_fields=["created_by_token"])
    return runtime, secret
