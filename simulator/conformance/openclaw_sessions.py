"""Checks OpenClaw whole-session vectors (``tests/vectors/openclaw/<version>/``) against ``attempt.py``.

Each vector is one generated session replayed call by call through a real OpenClaw dist by
``tools/openclaw-harness`` (format in ``tests/vectors/openclaw/README.md``). For every attempt this runner
starts an attempt (:func:`start_attempt`), runs every call (:func:`attempt_step`) and ends it
(:func:`end_attempt` at the reply's end), and compares, per call: whether pruning was installed, the
transcript policy, the TTL decision and the clock before/after, the guard's overflow, which messages each
stage changed and the exact content of every message that differs from the input.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from simulator.conformance.runner import compare
from simulator.jsonvalue import JSON, as_int, as_list, as_object, as_str
from simulator.runtimes.openclaw.attempt import (
    AttemptCall,
    AttemptConfig,
    AttemptSetup,
    AttemptState,
    CacheTtlMarker,
    attempt_step,
    end_attempt,
    start_attempt,
)
from simulator.runtimes.openclaw.messages import AgentMessage, messages_from_json
from simulator.runtimes.openclaw.route import ModelRoute, OpenClawVersion


@dataclass(frozen=True, slots=True)
class SessionResult:
    """One session vector: passed, or the first difference with its place."""

    name: str
    calls: int
    passed: bool
    detail: str = ""


def _opt_int(obj: dict[str, JSON], key: str) -> int | None:
    value = obj.get(key)
    return None if value is None else as_int(value, key)


def route_from_json(raw: JSON) -> ModelRoute:
    """The harness's ``model`` object as a :class:`ModelRoute`."""
    model = as_object(raw, "model")
    api = model.get("api")
    base_url = model.get("baseUrl")
    compat = model.get("compat")
    cache_key = compat.get("supportsPromptCacheKey") if isinstance(compat, dict) else None
    return ModelRoute(
        provider=as_str(model.get("provider"), "model.provider"),
        model_id=as_str(model.get("id"), "model.id"),
        api=api if isinstance(api, str) else None,
        context_window=_opt_int(model, "contextWindow"),
        context_tokens=_opt_int(model, "contextTokens"),
        max_tokens=_opt_int(model, "maxTokens"),
        base_url=base_url if isinstance(base_url, str) else None,
        supports_prompt_cache_key=cache_key if isinstance(cache_key, bool) else None,
    )


def config_from_json(session: dict[str, JSON]) -> AttemptConfig:
    """A session's ``config.agents.defaults``, budget, auth and model params as an :class:`AttemptConfig`.

    Provider-side compaction is only marked here: the vectors hold what OpenClaw sends, not what a
    provider would do with it.
    """
    raw = session.get("config")
    context_token_budget = session.get("contextTokenBudget")
    params = session.get("extraParams")
    agents = as_object(raw, "config").get("agents")
    defaults = agents.get("defaults") if isinstance(agents, dict) else None
    defaults = defaults if isinstance(defaults, dict) else {}
    tokens = defaults.get("contextTokens")
    return AttemptConfig(
        context_pruning=defaults.get("contextPruning"),
        context_tokens=as_int(tokens, "contextTokens") if tokens is not None else None,
        context_token_budget=as_int(context_token_budget, "contextTokenBudget")
        if context_token_budget is not None
        else None,
        auth="oauth" if session.get("auth") == "oauth" else "api_key",
        params=params if isinstance(params, dict) else {},
        apply_provider_compaction=False,
    )


def markers_from_json(raw: JSON) -> tuple[CacheTtlMarker, ...]:
    """Recorded ``openclaw.cache-ttl`` marker data objects."""
    out: list[CacheTtlMarker] = []
    for item in as_list(raw, "markers"):
        data = as_object(item, "marker")
        out.append(CacheTtlMarker(data.get("timestamp"), data.get("provider"), data.get("modelId")))
    return tuple(out)


_TTL_LABELS = {
    "no_marker": "no-marker",
    "ttl_disabled": "ttl-off",
    "ttl_not_expired": "within-ttl",
    "unchanged": "expired",
    "pruned": "expired",
}


def _ttl_label(call: AttemptCall, setup: AttemptSetup, now: float) -> JSON:
    if setup.version == "2026.7.1":
        return None if call.pruning is None else _TTL_LABELS[call.pruning.decision]
    if setup.cache_ttl is None:
        return None
    # 2026.9.6 keeps the clock in a closure; the harness labels it from the same clock rule.
    touched = call.last_cache_touch_at_before
    if not touched:
        return "no-marker"
    if setup.cache_ttl.ttl_ms <= 0:
        return "ttl-off"
    return "within-ttl" if now - touched < setup.cache_ttl.ttl_ms else "expired"


def _json_changed(before: Sequence[JSON], after: Sequence[JSON]) -> list[JSON]:
    return [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]


def _as_json(messages: Sequence[AgentMessage]) -> list[JSON]:
    return [m.to_json() for m in messages]


def _num(value: float | None) -> JSON:
    if value is None:
        return None
    return int(value) if float(value).is_integer() else value


def call_record(
    call: AttemptCall, input_json: list[JSON], setup: AttemptSetup, now: float
) -> dict[str, JSON]:
    """The harness's per-call record, computed from an :class:`AttemptCall`."""
    version = setup.version
    record: dict[str, JSON] = {
        "ttl": _ttl_label(call, setup, now),
        "lastCacheTouchAtBefore": _num(call.last_cache_touch_at_before),
    }
    if call.context is None:
        record["overflow"] = True
        return record
    final = _as_json(call.context)
    record["overflow"] = False
    if version == "2026.7.1":
        gate = call.pruning
        pruned = _as_json(gate.messages) if gate is not None and gate.messages is not None else input_json
        record["stages"] = {
            "pruning": _json_changed(input_json, pruned),
            "guard": list(call.guard_truncated_indexes),
            "images": list(call.image_cleanup_indexes),
            "transcriptPolicy": list(call.transcript_policy_indexes),
        }
    else:
        transformed = _as_json(call.transformed or ())
        record["stages"] = {
            "context": _json_changed(input_json, transformed),
            "providerTruncation": list(call.provider_budget_indexes),
            "transcriptPolicy": list(call.transcript_policy_indexes),
        }
    record["changed"] = {str(i): final[i] for i in range(len(final)) if final[i] != input_json[i]}
    return record


def _attempt_facts(setup: AttemptSetup) -> dict[str, JSON]:
    facts: dict[str, JSON] = {
        "pruningActive": setup.pruning_active,
        "policy": {"dropThinkingBlocks": setup.drop_thinking_blocks},
    }
    if setup.version != "2026.7.1":
        plan = setup.compaction
        facts["serverToolClearing"] = setup.server_tool_clearing
        facts["compaction"] = {
            "openaiResponses": {"threshold": plan.threshold}
            if plan and plan.kind == "openai-responses"
            else None,
            "anthropic": {"threshold": plan.threshold} if plan and plan.kind != "openai-responses" else None,
        }
    return facts


def run_session(vector: JSON, version: OpenClawVersion) -> SessionResult:
    """Replay one session vector through ``attempt.py`` and compare with what the dist did."""
    case = as_object(vector, "vector")
    name = as_str(case.get("name"), "name")
    session = as_object(case.get("input"), "input")
    expected = as_object(case.get("expected"), "expected")
    route = route_from_json(session.get("model"))
    config = config_from_json(session)
    markers = markers_from_json(session.get("markers", []))
    all_messages = messages_from_json(session.get("messages"))
    all_json = as_list(session.get("messages"), "messages")
    calls = 0
    state = AttemptState()
    for a, (attempt_raw, expected_raw) in enumerate(
        zip(
            as_list(session.get("attempts"), "attempts"),
            as_list(expected.get("attempts"), "attempts"),
            strict=True,
        )
    ):
        attempt = as_object(attempt_raw, "attempt")
        want = as_object(expected_raw, "expected attempt")
        first = as_object(as_list(attempt.get("calls"), "calls")[0], "call") if attempt.get("calls") else {}
        history = all_messages[: as_int(first.get("messageCount", 0), "messageCount")]
        setup, state = start_attempt(config, route, markers, state, version, history)
        got_calls: list[JSON] = []
        for call_raw in as_list(attempt.get("calls"), "calls"):
            call_obj = as_object(call_raw, "call")
            count = as_int(call_obj.get("messageCount"), "messageCount")
            now = as_int(call_obj.get("now"), "now")
            call, state = attempt_step(setup, state, now, all_messages[:count])
            record = call_record(call, all_json[:count], setup, now)
            record["lastCacheTouchAtAfter"] = _num(state.clock.last_cache_touch_at)
            got_calls.append(record)
            calls += 1
        ended = end_attempt(setup, markers, as_int(attempt.get("endedAt"), "endedAt"))
        got: dict[str, JSON] = {
            **_attempt_facts(setup),
            "calls": got_calls,
            "markerAppended": len(ended) > len(markers),
        }
        markers = ended
        wanted = dict(want)
        wanted["calls"] = [
            {k: v for k, v in as_object(c, "call").items() if k != "error"}
            for c in as_list(want.get("calls"), "calls")
        ]
        difference = compare(got, wanted, f"attempts[{a}]")
        if difference is not None:
            return SessionResult(name, calls, False, difference)
    return SessionResult(name, calls, True)


def run_sessions(vectors: JSON, version: OpenClawVersion) -> tuple[SessionResult, ...]:
    """Every session vector of one version file."""
    return tuple(run_session(v, version) for v in as_list(vectors, "vectors"))
