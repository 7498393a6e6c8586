"""Reads, one module per area: querysets and the view models pages, the API and consumers show.

What lives here: transcripts, profiles, simulations, tokens, fleet (fleet runtimes), fleet_watch (the
fleet page, feed and alerts), evaluations (corpus evaluation). Selectors only read: they never write,
and never import services, forms or the edges (an import-linter contract). How a screen is drawn
(geometry, wording) comes from ``dashboard.presenters``; derived values are kept in ``dashboard.memo``.

Who may import: views, forms, the API, consumers, commands and services. Selectors reach the simulator
through its facade (``import simulator``) only.
"""

from __future__ import annotations

from dashboard.selectors.fleet import runtime_authenticate, runtime_get, runtime_list
from dashboard.selectors.fleet_alerts import Alert, alert_rules, fleet_alert_strip, fleet_alerts
from dashboard.selectors.fleet_filters import FleetFilters, fleet_filters
from dashboard.selectors.fleet_metrics import FleetCollector
from dashboard.selectors.fleet_watch import (
    feed_row_matches,
    fleet_screen,
    fleet_session,
    trim_event_list,
)
from dashboard.selectors.pricing import (
    BreakCosts,
    PricingRow,
    fleet_session_break_costs,
    price_edits,
    price_overrides,
    price_table_for,
    pricing_rows,
)
from dashboard.selectors.profiles import (
    ConfigPreviewRow,
    profile_budget,
    profile_config_preview,
    profile_config_read,
    profile_copy_name,
    profile_domain,
    profile_export,
    profile_get,
    profile_get_or_404,
    profile_list,
    profile_preset_get,
    profile_presets,
    profile_rows,
)
from dashboard.selectors.simulations import (
    SessionTooLongToPrice,
    comparison,
    comparison_costs,
    comparison_message_diff,
    cost_max_messages,
    prepared_runtimes,
    simulation_compare,
    simulation_compare_profiles,
    simulation_cost,
    simulation_pick,
    simulation_result,
    simulation_result_kept,
    simulation_run_cost,
    simulation_run_get,
    simulation_run_list,
    simulation_run_result,
    simulation_screen,
    simulation_tokenizer_count,
)
from dashboard.selectors.tokens import api_token_get, api_token_list
from dashboard.selectors.trace import (
    TraceScreen,
    simulation_estimates,
    simulation_rereads,
    simulation_trace,
    simulation_trace_json,
)
from dashboard.selectors.transcript_pages import (
    ReplayEstimate,
    TranscriptPage,
    message_o200k,
    replay_estimates,
    transcript_page,
)
from dashboard.selectors.transcripts import (
    transcript_get,
    transcript_get_or_404,
    transcript_list,
    transcript_overview,
    transcript_parsed,
    transcript_read,
    transcript_text,
    upload_limit,
)

__all__ = [
    "SessionTooLongToPrice",
    "ReplayEstimate",
    "TranscriptPage",
    "message_o200k",
    "prepared_runtimes",
    "replay_estimates",
    "transcript_page",
    "simulation_estimates",
    "TraceScreen",
    "simulation_rereads",
    "simulation_trace",
    "simulation_trace_json",
    "Alert",
    "FleetCollector",
    "FleetFilters",
    "fleet_alert_strip",
    "alert_rules",
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
    "cost_max_messages",
    "simulation_compare",
    "simulation_cost",
    "simulation_compare_profiles",
    "comparison_costs",
    "simulation_run_cost",
    "PricingRow",
    "BreakCosts",
    "fleet_session_break_costs",
    "price_edits",
    "price_overrides",
    "price_table_for",
    "pricing_rows",
    "simulation_result",
    "simulation_result_kept",
    "simulation_run_get",
    "simulation_run_list",
    "simulation_run_result",
    "simulation_pick",
    "simulation_screen",
    "simulation_tokenizer_count",
    "profile_budget",
    "profile_copy_name",
    "ConfigPreviewRow",
    "profile_config_preview",
    "profile_config_read",
    "profile_domain",
    "profile_export",
    "profile_get",
    "profile_get_or_404",
    "profile_list",
    "profile_preset_get",
    "profile_presets",
    "profile_rows",
    "runtime_authenticate",
    "runtime_get",
    "runtime_list",
    "transcript_get",
    "transcript_get_or_404",
    "transcript_text",
    "transcript_list",
    "transcript_overview",
    "transcript_parsed",
    "transcript_read",
    "upload_limit",
]
