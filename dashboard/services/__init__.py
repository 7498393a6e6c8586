"""Writes and their side effects, one module per sub-domain. Views, the API and consumers call these."""

from __future__ import annotations

from dashboard.services.transcripts import api_token_create, api_token_revoke, transcript_delete, transcript_import

__all__ = ["api_token_create", "api_token_revoke", "transcript_delete", "transcript_import"]
