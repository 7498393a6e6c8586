"""ZeroClaw history management, reproduced exactly in pure Python.

Two selectable versions: ``"documented"`` (default; the behaviour ZeroClaw's history-management
documentation describes, which lives in open PRs 9368, 9535 and 9379: whole-turn count retention,
model-relative budget with the 32,000 fallback and capacity cap, images charged only where sent) and
``"upstream"`` (master 15d28660, 2026-08-22). Functions suffixed ``_pr9368`` or living in the budget
module's PR 9535 section are the documented versions; unsuffixed ones are master.

Spec-vs-vector notes (the vectors came from the real code and win):

- Spec §6 lists "(flagged breadcrumb)" in PR 9368's output for both turn-count variants; vector
  ``pr9368_conv_9`` shows the *structured* variant removes a flagged breadcrumb like master's structured
  path does (``dropped_messages`` excludes it). The ``ChatMessage`` variant keeps it.
- Where the spec is silent the vectors fixed the detail: a partially stripped assistant tool-call row is
  re-serialised with sorted keys (serde_json without ``preserve_order``), and the recovery result
  carries ``tokens_before``/``tokens_after_trim`` only when it trimmed and
  ``system_floor``/``floor_exceeds_budget`` only when an overflow could not be reduced.
"""

from __future__ import annotations

from simulator.runtimes.zeroclaw.breadcrumb import (
    breadcrumb,
    insert_breadcrumb,
    insert_breadcrumb_deduped,
    insert_breadcrumb_flagged,
    insert_conversation_breadcrumb,
)
from simulator.runtimes.zeroclaw.budget import (
    BudgetResolution,
    context_limits_for_model_window,
    effective_context_budget,
    legacy_fallback,
    resolve_budget,
    resolve_model_context_window,
)
from simulator.runtimes.zeroclaw.count_trim import (
    CountTrimResult,
    trim_conversation_to_recent_turns,
    trim_conversation_to_recent_turns_pr9368,
    trim_to_recent_turn_count,
)
from simulator.runtimes.zeroclaw.estimate import (
    estimate_history_tokens,
    estimate_history_tokens_pr9379,
    estimate_prepared_history_tokens,
    estimate_system_floor_tokens,
    parse_image_markers,
)
from simulator.runtimes.zeroclaw.events import HistoryTrimmed
from simulator.runtimes.zeroclaw.legacy import LegacyTrimResult, normalize_system_messages, trim_history
from simulator.runtimes.zeroclaw.loop import LoopStep, enforce_reported_budget, preflight_iteration
from simulator.runtimes.zeroclaw.messages import (
    AssistantToolCalls,
    Chat,
    ChatMessage,
    ConversationMessage,
    ToolCall,
    ToolResultMessage,
    ToolResults,
    conversation_message_from_json,
)
from simulator.runtimes.zeroclaw.orphans import (
    OrphanSweepResult,
    StripResult,
    remove_orphaned_tool_messages,
    strip_orphaned_tool_calls_from_assistants,
)
from simulator.runtimes.zeroclaw.recovery import (
    RecoveryResult,
    is_context_window_exceeded,
    recover_context_overflow,
)
from simulator.runtimes.zeroclaw.settings import Version, ZeroClawSettings
from simulator.runtimes.zeroclaw.texts import context_floor_remediation
from simulator.runtimes.zeroclaw.trim import (
    TrimResult,
    trim_to_recent_turns,
    trim_to_recent_turns_pr9368,
    trim_to_reported_budget,
    trim_to_reported_budget_pr9368,
)
from simulator.runtimes.zeroclaw.truncate import truncate_tool_message, truncate_tool_result

__all__ = [
    "AssistantToolCalls",
    "BudgetResolution",
    "Chat",
    "ChatMessage",
    "ConversationMessage",
    "CountTrimResult",
    "HistoryTrimmed",
    "LegacyTrimResult",
    "LoopStep",
    "OrphanSweepResult",
    "RecoveryResult",
    "StripResult",
    "ToolCall",
    "ToolResultMessage",
    "ToolResults",
    "TrimResult",
    "Version",
    "ZeroClawSettings",
    "breadcrumb",
    "context_floor_remediation",
    "context_limits_for_model_window",
    "conversation_message_from_json",
    "effective_context_budget",
    "enforce_reported_budget",
    "estimate_history_tokens",
    "estimate_history_tokens_pr9379",
    "estimate_prepared_history_tokens",
    "estimate_system_floor_tokens",
    "insert_breadcrumb",
    "insert_breadcrumb_deduped",
    "insert_breadcrumb_flagged",
    "insert_conversation_breadcrumb",
    "is_context_window_exceeded",
    "legacy_fallback",
    "normalize_system_messages",
    "parse_image_markers",
    "preflight_iteration",
    "recover_context_overflow",
    "remove_orphaned_tool_messages",
    "resolve_budget",
    "resolve_model_context_window",
    "strip_orphaned_tool_calls_from_assistants",
    "trim_conversation_to_recent_turns",
    "trim_conversation_to_recent_turns_pr9368",
    "trim_history",
    "trim_to_recent_turn_count",
    "trim_to_recent_turns",
    "trim_to_recent_turns_pr9368",
    "trim_to_reported_budget",
    "trim_to_reported_budget_pr9368",
    "truncate_tool_message",
    "truncate_tool_result",
]
