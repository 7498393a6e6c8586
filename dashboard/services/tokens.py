"""API token writes. The secret is generated here, returned once and stored only as a SHA-256 hash."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.utils import timezone

from dashboard.models import ApiToken
from dashboard.tokens import token_generate, token_hash


def api_token_create(*, user: User, name: str) -> tuple[ApiToken, str]:
    """Create a token; returns the row and the secret, which is never stored and shown only now."""
    secret = token_generate("ts")
    row = ApiToken.objects.create(
        user=user, name=name.strip()[:120] or "token", prefix=secret[:10], key_hash=token_hash(secret)
    )
    return row, secret


def api_token_revoke(*, token: ApiToken) -> None:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
