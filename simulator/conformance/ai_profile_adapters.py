"""Conformance adapters for the ai-profile crate (``conformance/ai_profile/*.json``).

Each adapter reads a case's ``input`` into typed values, calls :mod:`simulator.runtimes.ai_profile`
and returns plain JSON in the vector's ``expected`` shape.

``caller_retry_loop`` always reports ``estimate_before``; the vector catalog marks it optional (the
upstream case expects it, the generated ones do not), and the runner checks it only where expected.
"""

from __future__ import annotations

from collections.abc import Mapping

from simulator.conformance.registry import Adapter
from simulator.jsonvalue import JSON, as_int, as_list, as_str
from simulator.runtimes.ai_profile import (
    TokenLimits,
    caller_retry_loop,
    estimate_tokens,
    history_budget,
    is_context_overflow,
    limit_source_parse,
    merge_limits,
    messages_from_json,
    parse_model_limits,
    retry_budget,
    serialize_limits,
    trim_history,
)
from simulator.runtimes.ai_profile.messages import messages_to_json


def _opt_int(value: JSON, what: str) -> int | None:
    return None if value is None else as_int(value, what)


def _limits_or_none(value: JSON) -> TokenLimits | None:
    return None if value is None else TokenLimits.from_json(value)


def _limits_json(limits: TokenLimits | None) -> JSON:
    return None if limits is None else limits.to_json()


def _estimate_tokens(case: Mapping[str, JSON]) -> JSON:
    return estimate_tokens(messages_from_json(case["messages"]))


def _retry_budget(case: Mapping[str, JSON]) -> JSON:
    return retry_budget(messages_from_json(case["messages"]))


def _trim_history(case: Mapping[str, JSON]) -> JSON:
    result = trim_history(messages_from_json(case["messages"]), _opt_int(case.get("budget"), "budget"))
    return {"messages": messages_to_json(result.messages), "dropped": result.dropped}


def _caller_retry_loop(case: Mapping[str, JSON]) -> JSON:
    result = caller_retry_loop(
        messages_from_json(case["messages"]), as_int(case["max_attempts"], "max_attempts")
    )
    steps: list[JSON] = [
        {
            "budget": attempt.budget,
            "dropped": attempt.dropped,
            "kept_indices": list(attempt.kept_indices),
            "estimate_after": attempt.estimate_after,
        }
        for attempt in result.attempts
    ]
    return {
        "steps": steps,
        "final_messages": messages_to_json(result.messages),
        "estimate_before": result.estimate_before,
    }


def _history_budget(case: Mapping[str, JSON]) -> JSON:
    if "limits_layers" in case:
        limits = merge_limits(TokenLimits.from_json(layer) for layer in as_list(case["limits_layers"]))
    else:
        limits = _limits_or_none(case.get("limits"))
    return history_budget(limits, as_int(case["max_tokens"], "max_tokens"))


def _is_context_overflow(case: Mapping[str, JSON]) -> JSON:
    return is_context_overflow(as_int(case["status"], "status"), as_str(case["body"], "body"))


def _merge_limits(case: Mapping[str, JSON]) -> JSON:
    return _limits_json(merge_limits(TokenLimits.from_json(layer) for layer in as_list(case["layers"])))


def _input_budget(case: Mapping[str, JSON]) -> JSON:
    return TokenLimits.from_json(case["limits"]).input_budget(
        as_int(case["reserve_output"], "reserve_output")
    )


def _limit_source_parse(case: Mapping[str, JSON]) -> JSON:
    source = limit_source_parse(as_str(case["s"], "s"))
    return None if source is None else source.value


def _serialize_limits(case: Mapping[str, JSON]) -> JSON:
    return serialize_limits(TokenLimits.from_json(case["limits"]))


def _parse_model_limits(case: Mapping[str, JSON]) -> JSON:
    return _limits_json(parse_model_limits(case["item"]))


ADAPTERS: dict[str, Adapter] = {
    "estimate_tokens": _estimate_tokens,
    "retry_budget": _retry_budget,
    "trim_history": _trim_history,
    "caller_retry_loop": _caller_retry_loop,
    "history_budget": _history_budget,
    "is_context_overflow": _is_context_overflow,
    "merge_limits": _merge_limits,
    "input_budget": _input_budget,
    "limit_source_parse": _limit_source_parse,
    "serialize_limits": _serialize_limits,
    "parse_model_limits": _parse_model_limits,
}
