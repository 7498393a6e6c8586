"""API token reads, always scoped to one user: nobody sees or reaches another user's tokens."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import Count, Q, QuerySet

from dashboard.models import ApiToken


def api_token_list(*, user: User) -> QuerySet[ApiToken]:
    """The user's tokens, each with ``live_runtimes``: runtimes registered with it and not revoked."""
    return ApiToken.objects.filter(user=user).annotate(
        live_runtimes=Count("runtimes", filter=Q(runtimes__revoked_at__isnull=True))
    )


def api_token_get(*, user: User, token_id: int) -> ApiToken | None:
    """The user's own token, or ``None`` (also for another user's token, so its existence is not told)."""
    return ApiToken.objects.filter(user=user, pk=token_id).first()
