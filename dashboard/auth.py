"""API authentication: the browser's session (with CSRF) or a per-user bearer token for scripts."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest
from django.utils import timezone
from ninja.security import HttpBearer, SessionAuth

from dashboard.models import ApiToken
from dashboard.tokens import token_hash


class ApiTokenAuth(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> AbstractBaseUser | None:
        row = (
            ApiToken.objects.select_related("user")
            .filter(key_hash=token_hash(token), revoked_at__isnull=True, user__is_active=True)
            .first()
        )
        if row is None:
            return None
        ApiToken.objects.filter(pk=row.pk).update(last_used_at=timezone.now())
        request.user = row.user
        return row.user


API_AUTH = [SessionAuth(), ApiTokenAuth()]
