"""API token reads, always scoped to one user: nobody sees or reaches another user's tokens."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet

from dashboard.models import ApiToken


def api_token_list(*, user: User) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user)


def api_token_get(*, user: User, token_id: int) -> ApiToken | None:
    """The user's own token, or ``None`` (also for another user's token, so its existence is not told)."""
    return ApiToken.objects.filter(user=user, pk=token_id).first()
