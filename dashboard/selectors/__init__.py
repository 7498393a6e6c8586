"""Reads, one module per sub-domain."""

from __future__ import annotations

from dashboard.selectors.profiles import (
    profile_budget,
    profile_check,
    profile_copy_name,
    profile_document_from_form,
    profile_document_parse,
    profile_document_toml,
    profile_domain,
    profile_error_knob,
    profile_export,
    profile_get,
    profile_knobs,
    profile_list,
    profile_preset_get,
    profile_presets,
    profile_rows,
)
from dashboard.selectors.transcripts import (
    transcript_get,
    transcript_list,
    transcript_overview,
    transcript_parsed,
    upload_limit,
)

__all__ = [
    "profile_budget",
    "profile_check",
    "profile_copy_name",
    "profile_document_from_form",
    "profile_document_parse",
    "profile_document_toml",
    "profile_domain",
    "profile_error_knob",
    "profile_export",
    "profile_get",
    "profile_knobs",
    "profile_list",
    "profile_preset_get",
    "profile_presets",
    "profile_rows",
    "transcript_get",
    "transcript_list",
    "transcript_overview",
    "transcript_parsed",
    "upload_limit",
]
