"""Reads, one module per sub-domain: the view models pages, the API and consumers show.

Who may import: views, the API, consumers and commands. Selectors reach the simulator through its
facade (``import simulator``) only.
"""

from __future__ import annotations

from dashboard.selectors.fleet import runtime_authenticate, runtime_get, runtime_list
from dashboard.selectors.fleet_alerts import Alert, alert_rules, fleet_alert_strip, fleet_alerts
from dashboard.selectors.fleet_filters import FleetFilters, fleet_filters
from dashboard.selectors.fleet_metrics import FleetCollector
from dashboard.selectors.fleet_watch import (
    FeedRow,
    feed_row,
    feed_row_from_message,
    feed_row_matches,
    fleet_screen,
    fleet_session,
    trim_event_list,
)
from dashboard.selectors.knob_edits import KnobEdits, simulation_knob_edits
from dashboard.selectors.profiles import (
    ConfigPreviewRow,
    ProfileFormInput,
    profile_budget,
    profile_config_preview,
    profile_config_read,
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
    comparison_message_diff,
    default_call,
    simulation_compare,
    simulation_document,
    simulation_profile,
    simulation_result,
    simulation_run_get,
    simulation_run_list,
    simulation_run_result,
    simulation_screen,
    simulation_tokenizer_count,
)
from dashboard.selectors.tokens import api_token_get, api_token_list
from dashboard.selectors.trace import TraceScreen, simulation_estimates, simulation_rereads, simulation_trace
from dashboard.selectors.transcripts import (
    transcript_get,
    transcript_list,
    transcript_overview,
    transcript_parsed,
    upload_limit,
)

__all__ = [
    "KnobEdits",
    "simulation_knob_edits",
    "simulation_estimates",
    "TraceScreen",
    "simulation_rereads",
    "simulation_trace",
    "Alert",
    "FeedRow",
    "FleetCollector",
    "FleetFilters",
    "fleet_alert_strip",
    "alert_rules",
    "feed_row",
    "feed_row_from_message",
    "feed_row_matches",
    "fleet_alerts",
    "fleet_filters",
    "fleet_screen",
    "fleet_session",
    "trim_event_list",
    "api_token_get",
    "api_token_list",
    "comparison",
    "comparison_message_diff",
    "default_call",
    "simulation_document",
    "simulation_compare",
    "simulation_profile",
    "simulation_result",
    "simulation_run_get",
    "simulation_run_list",
    "simulation_run_result",
    "simulation_screen",
    "simulation_tokenizer_count",
    "ProfileFormInput",
    "profile_budget",
    "profile_copy_name",
    "ConfigPreviewRow",
    "profile_config_preview",
    "profile_config_read",
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
    "runtime_authenticate",
    "runtime_get",
    "runtime_list",
    "transcript_get",
    "transcript_list",
    "transcript_overview",
    "transcript_parsed",
    "upload_limit",
]
