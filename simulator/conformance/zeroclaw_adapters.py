"""Conformance adapters for ZeroClaw: vector ``input`` JSON in, plain JSON out.

Keys are the function names used in ``conformance/zeroclaw/*.json``: unprefixed names are master
15d28660, ``pr9368.`` / ``pr9535.`` the PR heads the history-management docs describe. Each adapter
parses the case into typed values, calls :mod:`simulator.runtimes.zeroclaw` and serialises the result.
"""

from __future__ import annotations

from collections.abc import Mapping

from simulator.conformance.registry import Adapter
from simulator.jsonvalue import JSON, as_bool, as_int, as_number, as_str
from simulator.runtimes import zeroclaw as zc
from simulator.runtimes.zeroclaw.messages import chat_history_from_json, conversation_history_from_json


def _int(case: Mapping[str, JSON], key: str) -> int:
    return as_int(case.get(key), key)


def _opt_int(case: Mapping[str, JSON], key: str) -> int | None:
    value = case.get(key)
    return None if value is None else as_int(value, key)


def _bool(case: Mapping[str, JSON], key: str) -> bool:
    return as_bool(case.get(key), key)


def _chat(case: Mapping[str, JSON]) -> tuple[zc.ChatMessage, ...]:
    return chat_history_from_json(case.get("history"))


def _conversation(case: Mapping[str, JSON]) -> tuple[zc.ConversationMessage, ...]:
    return conversation_history_from_json(case.get("history"))


def _history_json(history: tuple[zc.ChatMessage, ...]) -> JSON:
    return {"history": [m.to_json() for m in history]}


def _estimate(case: Mapping[str, JSON]) -> JSON:
    return zc.estimate_history_tokens(_chat(case))


def _floor(case: Mapping[str, JSON]) -> JSON:
    return zc.estimate_system_floor_tokens(_chat(case))


def _trim(case: Mapping[str, JSON]) -> JSON:
    return zc.trim_to_recent_turns(_chat(case), _int(case, "budget_tokens")).to_json()


def _trim_pr9368(case: Mapping[str, JSON]) -> JSON:
    result = zc.trim_to_recent_turns_pr9368(
        _chat(case), _int(case, "budget_tokens"), _bool(case, "has_leading_breadcrumb")
    )
    return result.to_json()


def _reported(case: Mapping[str, JSON]) -> JSON:
    result = zc.trim_to_reported_budget(
        _chat(case), _int(case, "budget_tokens"), _int(case, "reported_input_tokens")
    )
    return result.to_json()


def _conversation_cap(case: Mapping[str, JSON]) -> JSON:
    result = zc.trim_conversation_to_recent_turns(
        _conversation(case), _int(case, "max_messages"), _bool(case, "has_leading_breadcrumb")
    )
    return result.to_json()


def _turn_count_pr9368(case: Mapping[str, JSON]) -> JSON:
    result = zc.trim_to_recent_turn_count(
        _chat(case), _int(case, "max_turns"), _bool(case, "has_leading_breadcrumb")
    )
    return result.to_json()


def _conversation_turns_pr9368(case: Mapping[str, JSON]) -> JSON:
    result = zc.trim_conversation_to_recent_turns_pr9368(
        _conversation(case), _int(case, "max_turns"), _bool(case, "has_leading_breadcrumb")
    )
    return result.to_json()


def _legacy_trim(case: Mapping[str, JSON]) -> JSON:
    return zc.trim_history(_chat(case), _int(case, "max_history")).to_json()


def _breadcrumb(case: Mapping[str, JSON]) -> JSON:
    del case
    return zc.breadcrumb().to_json()


def _insert_breadcrumb(case: Mapping[str, JSON]) -> JSON:
    return _history_json(zc.insert_breadcrumb_deduped(_chat(case)).history)


def _recover(case: Mapping[str, JSON]) -> JSON:
    result = zc.recover_context_overflow(
        _chat(case), as_str(case.get("error"), "error"), _int(case, "context_token_budget")
    )
    return result.to_json()


def _overflow(case: Mapping[str, JSON]) -> JSON:
    return zc.is_context_window_exceeded(as_str(case.get("error"), "error"))


def _orphans(case: Mapping[str, JSON]) -> JSON:
    return zc.remove_orphaned_tool_messages(_chat(case)).to_json()


def _strip(case: Mapping[str, JSON]) -> JSON:
    return zc.strip_orphaned_tool_calls_from_assistants(_chat(case)).to_json()


def _master_budget(case: Mapping[str, JSON]) -> JSON:
    resolution = zc.effective_context_budget(
        _opt_int(case, "max_context_tokens"),
        _bool(case, "history_pruning_enabled"),
        _int(case, "history_pruning_max_tokens"),
    )
    return resolution.budget


def _limits_pr9535(case: Mapping[str, JSON]) -> JSON:
    ratio_value = case.get("context_compact_ratio")
    ratio = None if ratio_value is None else as_number(ratio_value, "context_compact_ratio")
    resolution = zc.context_limits_for_model_window(
        _int(case, "model_context_window"),
        "Configured" if _bool(case, "window_configured") else "CompatibilityFallback",
        max_context_tokens=_opt_int(case, "max_context_tokens"),
        context_compact_ratio=ratio,
        history_pruning_enabled=_bool(case, "history_pruning_enabled"),
        history_pruning_max_tokens=_int(case, "history_pruning_max_tokens"),
    )
    return resolution.to_limits_json()


def _legacy_fallback(case: Mapping[str, JSON]) -> JSON:
    resolution = zc.legacy_fallback(_int(case, "budget"))
    return {"context_token_budget": resolution.budget, "model_context_window": resolution.window}


def _truncate_result(case: Mapping[str, JSON]) -> JSON:
    return zc.truncate_tool_result(as_str(case.get("output"), "output"), _int(case, "max_chars"))


def _truncate_message(case: Mapping[str, JSON]) -> JSON:
    return zc.truncate_tool_message(as_str(case.get("content"), "content"), _int(case, "max_chars"))


def _floor_remediation(case: Mapping[str, JSON]) -> JSON:
    return zc.context_floor_remediation(_int(case, "system_floor"), _int(case, "budget"))


ADAPTERS: dict[str, Adapter] = {
    "estimate_history_tokens": _estimate,
    "estimate_system_floor_tokens": _floor,
    "trim_to_recent_turns": _trim,
    "pr9368.trim_to_recent_turns": _trim_pr9368,
    "trim_to_reported_budget": _reported,
    "trim_conversation_to_recent_turns": _conversation_cap,
    "pr9368.trim_to_recent_turn_count": _turn_count_pr9368,
    "pr9368.trim_conversation_to_recent_turns": _conversation_turns_pr9368,
    "trim_history": _legacy_trim,
    "breadcrumb": _breadcrumb,
    "insert_breadcrumb_deduped": _insert_breadcrumb,
    "recover_context_overflow": _recover,
    "is_context_window_exceeded": _overflow,
    "remove_orphaned_tool_messages": _orphans,
    "strip_orphaned_tool_calls_from_assistants": _strip,
    "effective_context_budget": _master_budget,
    "pr9535.context_limits_for_model_window": _limits_pr9535,
    "pr9535.legacy_fallback": _legacy_fallback,
    "truncate_tool_result": _truncate_result,
    "truncate_tool_message": _truncate_message,
    "context_floor_remediation": _floor_remediation,
}
