"""Reads, one module per sub-domain."""

from __future__ import annotations

from dashboard.selectors.profiles import (
    ProfileFormInput,
    profile_budget,
    profile_copy_name,
    profile_document_parse,
    profile_domain,
    profile_error_knob,
    profile_export,
    profile_form,
    profile_form_check,
    profile_get,
    profile_knobs,
    profile_list,
    profile_preset_get,
    profile_presets,
    profile_rows,
)
from dashboard.selectors.simulations import (
    comparison,
    default_call,
    simulation_document,
    simulation_profile,
    simulation_result,
    simulation_screen,
    simulation_tokenizer_count,
)
from dashboard.selectors.transcripts import (
    transcript_get,
    transcript_list,
    transcript_overview,
    transcript_parsed,
    upload_limit,
)

__all__ = [
    "comparison",
    "default_call",
    "simulation_document",
    "simulation_profile",
    "simulation_result",
    "simulation_screen",
    "simulation_tokenizer_count",
    "ProfileFormInput",
    "profile_budget",
    "profile_copy_name",
    "profile_document_parse",
    "profile_domain",
    "profile_error_knob",
    "profile_export",
    "profile_form",
    "profile_form_check",
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
