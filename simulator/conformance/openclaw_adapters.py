"""Conformance adapters for the OpenClaw 2026.7.1 vectors (``conformance/openclaw/*.json``).

Each adapter parses a case ``input`` into the native types of :mod:`simulator.runtimes.openclaw`,
calls the implementation and returns plain JSON in the vector's ``expected`` shape. Names are the
upstream function names used in the vectors.
"""

from __future__ import annotations

from collections.abc import Mapping

from simulator.conformance.registry import Adapter
from simulator.jsonvalue import JSON, as_list, as_object, as_str
from simulator.runtimes.openclaw import (
    ContextCall,
    DurationError,
    EffectivePruningSettings,
    PruningRuntime,
    TtlGateState,
    apply_anthropic_config_defaults,
    compute_effective_settings,
    estimate_string_chars,
    make_tool_prunable_predicate,
    messages_from_json,
    messages_to_json,
    on_context,
    parse_duration_ms,
    prune_context_messages,
    prune_processed_history_images,
)
from simulator.runtimes.openclaw.duration import DurationUnit
from simulator.runtimes.openclaw.jsstr import js_number_out
from simulator.runtimes.openclaw.pruner import ToolPrunable, prune_result_json


def _number_or_none(value: JSON) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def _always(_name: str | None) -> bool:
    return True


def _never(_name: str | None) -> bool:
    return False


def _predicate(value: JSON) -> ToolPrunable | None:
    """``"all"`` / ``"none"`` select a fixed predicate; null derives it from the settings."""
    if value == "all":
        return _always
    if value == "none":
        return _never
    if value is None:
        return None
    raise ValueError(f"unknown isToolPrunable {value!r}")


def _json_number(value: float | None) -> JSON:
    return None if value is None else js_number_out(value)


def prune_context_messages_adapter(case: Mapping[str, JSON]) -> JSON:
    result = prune_context_messages(
        messages_from_json(case.get("messages")),
        EffectivePruningSettings.from_json(case.get("settings")),
        context_window=_number_or_none(case.get("contextWindow")),
        context_window_tokens_override=_number_or_none(case.get("contextWindowTokensOverride")),
        is_tool_prunable=_predicate(case.get("isToolPrunable")),
        drop_thinking_blocks_for_estimate=case.get("dropThinkingBlocksForEstimate") is True,
    )
    return prune_result_json(result)


def on_context_adapter(case: Mapping[str, JSON]) -> JSON:
    runtime = PruningRuntime(
        settings=EffectivePruningSettings.from_json(case.get("settings")),
        context_window_tokens=_number_or_none(case.get("contextWindowTokens")),
        is_tool_prunable=_predicate(case.get("isToolPrunable")),
        drop_thinking_blocks=case.get("dropThinkingBlocks") is True
        or case.get("dropThinkingBlocksForEstimate") is True,
    )
    model_window = _number_or_none(case.get("modelContextWindow"))
    calls = []
    for raw in as_list(case.get("calls"), "calls"):
        call_obj = as_object(raw, "call")
        now = _number_or_none(call_obj.get("now"))
        if now is None:
            raise TypeError("call.now must be a number")
        calls.append(ContextCall(now, messages_from_json(call_obj.get("messages")), model_window))
    state = TtlGateState(_number_or_none(case.get("lastCacheTouchAt")))
    out: list[JSON] = []
    for call in calls:
        outcome, state = on_context(runtime, state, call)
        returned: JSON = None if outcome.messages is None else messages_to_json(outcome.messages)
        out.append({"returned": returned, "lastCacheTouchAtAfter": _json_number(state.last_cache_touch_at)})
    return out


def _scalar_input(case: Mapping[str, JSON]) -> JSON:
    """The raw ``input`` of a case whose input is not an object.

    The shared runner only passes objects; a non-object input is expected wrapped as
    ``{"value": <input>}``. Anything else is the input object itself.
    """
    if set(case) == {"value"}:
        return case["value"]
    return dict(case)


def estimate_string_chars_adapter(case: Mapping[str, JSON]) -> JSON:
    return estimate_string_chars(as_str(_scalar_input(case), "input"))


def compute_effective_settings_adapter(case: Mapping[str, JSON]) -> JSON:
    settings = compute_effective_settings(_scalar_input(case))
    return None if settings is None else settings.to_json()


def make_tool_prunable_predicate_adapter(case: Mapping[str, JSON]) -> JSON:
    predicate = make_tool_prunable_predicate(case.get("tools"))
    return [predicate(name if isinstance(name, str) else None) for name in as_list(case.get("toolNames"))]


def parse_duration_ms_adapter(case: Mapping[str, JSON]) -> JSON:
    unit_raw = case.get("defaultUnit", "ms")
    unit: DurationUnit = "ms"
    for candidate in ("ms", "s", "m", "h", "d"):
        if unit_raw == candidate:
            unit = candidate
    try:
        return parse_duration_ms(as_str(case.get("raw"), "raw"), unit)
    except DurationError as exc:
        return {"error": str(exc)}


def prune_processed_history_images_adapter(case: Mapping[str, JSON]) -> JSON:
    result = prune_processed_history_images(messages_from_json(case.get("messages")))
    return None if result is None else messages_to_json(result)


def apply_anthropic_config_defaults_adapter(case: Mapping[str, JSON]) -> JSON:
    env = case.get("env")
    return apply_anthropic_config_defaults(case.get("config"), env if isinstance(env, dict) else {})


ADAPTERS: dict[str, Adapter] = {
    "pruneContextMessages": prune_context_messages_adapter,
    "contextPruningExtension.onContext": on_context_adapter,
    "computeEffectiveSettings": compute_effective_settings_adapter,
    "makeToolPrunablePredicate": make_tool_prunable_predicate_adapter,
    "estimateStringChars": estimate_string_chars_adapter,
    "parseDurationMs": parse_duration_ms_adapter,
    "pruneProcessedHistoryImages": prune_processed_history_images_adapter,
    "applyAnthropicConfigDefaults": apply_anthropic_config_defaults_adapter,
}
