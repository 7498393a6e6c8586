"""OpenClaw version facts not covered by the session vectors: config schema, compaction plans, clock rule."""

from __future__ import annotations

import dataclasses

from simulator.runtimes.openclaw.attempt import (
    AttemptConfig,
    AttemptState,
    CacheTtlMarker,
    attempt_step,
    end_attempt,
    start_attempt,
)
from simulator.runtimes.openclaw.messages import messages_from_json
from simulator.runtimes.openclaw.route import ModelRoute, is_cache_ttl_eligible
from simulator.runtimes.openclaw.v2026_9_6.compaction import compaction_plan
from simulator.runtimes.openclaw.versions import detect_config_version

OPENAI = ModelRoute(
    "openai", "gpt-5.4", "openai-responses", context_window=400_000, base_url="https://api.openai.com/v1"
)
ANTHROPIC = ModelRoute(
    "anthropic",
    "claude-sonnet-4-6",
    "anthropic-messages",
    context_window=200_000,
    base_url="https://api.anthropic.com",
)


def test_agents_entries_means_2026_9_6_and_agents_list_means_2026_7_1():
    assert detect_config_version({"agents": {"entries": {"main": {}}}}) == "2026.9.6"
    assert detect_config_version({"agents": {"list": [{"id": "main"}]}}) == "2026.7.1"


def test_retired_tuning_keys_mean_2026_7_1_and_a_plain_config_fits_both():
    assert (
        detect_config_version({"agents": {"defaults": {"contextPruning": {"keepLastAssistants": 2}}}})
        == "2026.7.1"
    )
    assert (
        detect_config_version({"agents": {"defaults": {"compaction": {"reserveTokensFloor": 1}}}})
        == "2026.7.1"
    )
    assert detect_config_version({"agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}}}) is None


def test_direct_openai_is_eligible_for_cache_ttl_pruning_only_in_2026_9_6():
    assert not is_cache_ttl_eligible(OPENAI, "2026.7.1")
    assert is_cache_ttl_eligible(OPENAI, "2026.9.6")
    assert not is_cache_ttl_eligible(
        dataclasses.replace(OPENAI, base_url="https://proxy.example/v1"), "2026.9.6"
    )
    assert not is_cache_ttl_eligible(dataclasses.replace(OPENAI, provider="openai-codex"), "2026.9.6")


def test_openai_server_compaction_is_on_by_default_at_seventy_percent_of_the_smaller_budget():
    plan = compaction_plan(dataclasses.replace(OPENAI, context_tokens=100_000), {}, oauth=False)
    assert plan is not None and plan.kind == "openai-responses" and plan.threshold == 70_000
    unknown = compaction_plan(dataclasses.replace(OPENAI, context_window=None), {}, oauth=False)
    assert unknown is not None and unknown.threshold == 80_000
    assert compaction_plan(OPENAI, {"responsesServerCompaction": False}, oauth=False) is None


def test_anthropic_compaction_is_opt_in_needs_an_api_key_and_never_goes_below_fifty_thousand():
    assert compaction_plan(ANTHROPIC, {}, oauth=False) is None
    plan = compaction_plan(ANTHROPIC, {"anthropicServerCompaction": True}, oauth=False)
    assert plan is not None and plan.kind == "anthropic-compact-2026-01-12" and plan.threshold == 140_000
    small = compaction_plan(
        dataclasses.replace(ANTHROPIC, context_window=32_000),
        {"anthropicServerCompaction": True},
        oauth=False,
    )
    assert small is not None and small.threshold == 50_000
    assert compaction_plan(ANTHROPIC, {"anthropicServerCompaction": True}, oauth=True) is None


def _turn(i: int, size: int) -> list[dict[str, object]]:
    return [
        {"role": "user", "content": f"question {i}", "timestamp": i},
        {
            "role": "assistant",
            "content": [{"type": "toolCall", "id": f"c{i}", "name": "read", "arguments": {}}],
            "timestamp": i,
        },
        {
            "role": "toolResult",
            "toolCallId": f"c{i}",
            "toolName": "read",
            "content": [{"type": "text", "text": "x" * size}],
            "timestamp": i,
        },
        {"role": "assistant", "content": [{"type": "text", "text": "done"}], "timestamp": i},
    ]


def test_compaction_is_marked_once_and_later_calls_send_the_configured_summary_instead():
    route = dataclasses.replace(OPENAI, context_window=10_000)  # threshold 7,000 tokens
    config = AttemptConfig(context_pruning={"mode": "off"}, compaction_summary_tokens=500)
    history = messages_from_json([m for i in range(8) for m in _turn(i, 4_000)])
    setup, state = start_attempt(config, route, (), AttemptState(), "2026.9.6")
    first, state = attempt_step(setup, state, 1_000, history[:28])
    later, state = attempt_step(setup, state, 2_000, history)
    assert first.compaction is not None and first.compaction.estimated_tokens >= 7_000
    assert later.compaction is None
    assert later.context is not None and len(later.context) == 1 + len(history) - 28
    assert later.context[0].to_json() == {"role": "compactionSummary", "summary": "." * 2_000}


def test_the_ttl_clock_starts_when_the_reply_finished_not_when_the_request_started():
    route = ModelRoute("anthropic", "claude-sonnet-4-6", "anthropic-messages", context_window=4_000)
    config = AttemptConfig(context_pruning={"mode": "cache-ttl", "minPrunableToolChars": 0})
    history = messages_from_json([m for i in range(4) for m in _turn(i, 9_000)])
    setup, state = start_attempt(config, route, (), AttemptState(), "2026.7.1")
    request_start, reply_end = 1_000_000, 1_010_000  # a reply that streams for 10 s
    _, state = attempt_step(setup, state, request_start, history[:9])
    markers = end_attempt(setup, (), reply_end)
    assert markers == (CacheTtlMarker(reply_end, "anthropic", "claude-sonnet-4-6"),)
    next_setup, next_state = start_attempt(config, route, markers, state, "2026.7.1")
    within, _ = attempt_step(next_setup, next_state, request_start + 305_000, history)
    assert within.pruning is not None and within.pruning.decision == "ttl_not_expired"
    at_edge, _ = attempt_step(next_setup, next_state, reply_end + 300_000, history)
    assert at_edge.pruning is not None and at_edge.pruning.decision == "pruned"


def test_a_config_that_is_not_an_object_has_no_version():
    assert detect_config_version([]) is None
    assert detect_config_version({"agents": []}) is None


def test_a_compaction_block_without_retired_keys_fits_both_versions():
    assert detect_config_version({"agents": {"defaults": {"compaction": {"mode": "safeguard"}}}}) is None
    assert detect_config_version({"agents": {"defaults": {"compaction": {"reserveTokens": 1}}}}) == "2026.7.1"
