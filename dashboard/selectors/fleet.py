"""Fleet runtime reads (the ``Runtime`` model): the operators' list, one runtime, and who a runtime token
belongs to."""

from __future__ import annotations

from django.db.models import QuerySet

from dashboard.models import Runtime
from dashboard.tokens import token_hash


def runtime_list() -> QuerySet[Runtime]:
    return Runtime.objects.all()


def runtime_get(*, runtime_id: int) -> Runtime | None:
    return Runtime.objects.filter(pk=runtime_id).first()


def runtime_authenticate(*, token: str) -> Runtime | None:
    """The runtime this token opens, or ``None`` (unknown, blank or revoked)."""
    if not token:
        return None
    return Runtime.objects.filter(token_hash=token_hash(token), revoked_at__isnull=True).first()
