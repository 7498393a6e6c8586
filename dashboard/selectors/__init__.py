"""Reads, one module per sub-domain."""

from __future__ import annotations

from dashboard.selectors.transcripts import (
    transcript_get,
    transcript_list,
    transcript_overview,
    transcript_parsed,
    upload_limit,
)

__all__ = ["transcript_get", "transcript_list", "transcript_overview", "transcript_parsed", "upload_limit"]
