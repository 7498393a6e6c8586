"""OpenClaw 2026.9.6's provider-side compaction plans and thresholds, case by case."""

from __future__ import annotations

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.messages import messages_from_json
from simulator.runtimes.openclaw.route import ModelRoute
from simulator.runtimes.openclaw.v2026_9_6.compaction import (
    CompactionPlan,
    anthropic_server_compaction,
    compacted_context,
    compaction_plan,
    host_of,
    openai_compact_threshold,
    openai_server_compaction,
    positive_integer,
    summary_message,
)

OPENAI = ModelRoute(
    "openai", "gpt-5.4", "openai-responses", context_window=400_000, base_url="https://api.openai.com/v1"
)
ANTHROPIC = ModelRoute("anthropic", "claude", "anthropic-messages", context_window=200_000)
ON: dict[str, JSON] = {"anthropicServerCompaction": True}


def test_positive_integers_are_floored_numbers_or_digit_strings():
    values: list[JSON] = [5, 5.9, 0, -1, True, float("inf"), "12", " 7 ", "0", "1.5", "abc", None]
    assert [positive_integer(v) for v in values] == [
        5,
        5,
        None,
        None,
        None,
        None,
        12,
        7,
        None,
        None,
        None,
        None,
    ]


def test_the_host_is_lower_cased_and_the_scheme_optional():
    urls = [None, "  ", "api.openai.com", "https://API.OpenAI.com/v1", "https://"]
    assert [host_of(u) for u in urls] == [None, None, "api.openai.com", "api.openai.com", None]


def test_the_openai_threshold_is_seventy_percent_of_the_smaller_budget_with_a_1000_floor():
    def threshold(tokens: int | None, window: int | None) -> int:
        return openai_compact_threshold(
            ModelRoute("openai", "m", context_tokens=tokens, context_window=window)
        )

    cases = [(5_000, 10_000), (20_000, 10_000), (None, 10_000), (10_000, None), (None, 1_000), (None, None)]
    assert [threshold(t, w) for t, w in cases] == [3_500, 7_000, 7_000, 7_000, 1_000, 80_000]


def test_openai_server_compaction_needs_a_storing_responses_route_at_a_native_endpoint():
    assert openai_server_compaction(OPENAI, {}) == CompactionPlan("openai-responses", 280_000)
    assert openai_server_compaction(OPENAI, {"responsesCompactThreshold": "5000"}) == CompactionPlan(
        "openai-responses", 5_000
    )
    off = [
        (OPENAI, {"responsesServerCompaction": False}),
        (ModelRoute("openai", "m", "openai-chatgpt-responses", base_url="https://chatgpt.com"), {}),
        (ModelRoute("openai", "m", "openai-responses", base_url="https://proxy.example"), {}),
        (ModelRoute("openai", "m", "openai-responses"), {}),
        (ModelRoute("openai", "m", "openai-completions", base_url="https://api.openai.com"), {}),
        (
            ModelRoute("azure-openai", "m", "azure-openai-responses", base_url="https://x.openai.azure.com"),
            {},
        ),
    ]
    assert [openai_server_compaction(route, params) for route, params in off] == [None] * 6
    azure = ModelRoute("azure-openai", "m", "azure-openai-responses", base_url="x.openai.azure.com")
    assert openai_server_compaction(azure, {"responsesServerCompaction": True}) == CompactionPlan(
        "openai-responses", 80_000
    )


def test_anthropic_compaction_is_opt_in_direct_and_never_below_50000():
    assert anthropic_server_compaction(ANTHROPIC, ON, oauth=False) == CompactionPlan(
        "anthropic-compact-2026-01-12", 140_000
    )
    small = ModelRoute("anthropic", "c", "anthropic-messages", context_window=50_000)
    unknown = ModelRoute("anthropic", "c", "anthropic-messages", base_url="https://api.anthropic.com")
    thresholds = [
        anthropic_server_compaction(small, ON, oauth=False),
        anthropic_server_compaction(unknown, ON, oauth=False),
        anthropic_server_compaction(ANTHROPIC, {**ON, "anthropicCompactThreshold": 60_000}, oauth=False),
        anthropic_server_compaction(ANTHROPIC, {**ON, "anthropicCompactThreshold": 10}, oauth=False),
    ]
    assert [plan.threshold if plan else None for plan in thresholds] == [50_000, 50_000, 60_000, 50_000]
    proxy = ModelRoute("anthropic", "c", "anthropic-messages", base_url="https://proxy.example")
    other_api = ModelRoute("anthropic", "c", "openai-responses")
    off = [
        anthropic_server_compaction(ANTHROPIC, ON, oauth=True),
        anthropic_server_compaction(ANTHROPIC, {}, oauth=False),
        anthropic_server_compaction(ANTHROPIC, {"anthropicServerCompaction": "true"}, oauth=False),
        anthropic_server_compaction(proxy, ON, oauth=False),
        anthropic_server_compaction(other_api, ON, oauth=False),
    ]
    assert off == [None] * 5


def test_a_route_gets_the_openai_plan_or_else_the_anthropic_one():
    assert compaction_plan(OPENAI, {}, oauth=False) == CompactionPlan("openai-responses", 280_000)
    assert compaction_plan(ANTHROPIC, ON, oauth=False) == CompactionPlan(
        "anthropic-compact-2026-01-12", 140_000
    )
    assert compaction_plan(ANTHROPIC, ON, oauth=True) is None


def test_after_a_compaction_the_context_is_the_summary_then_what_followed():
    summary = summary_message(3)
    assert summary.to_json() == {"role": "compactionSummary", "summary": "." * 12}
    history = messages_from_json([{"role": "user", "content": str(i)} for i in range(4)])
    assert compacted_context(history, 2, 3) == (summary, history[2], history[3])


def test_one_is_the_smallest_positive_integer():
    # A positive fraction passes the check and is floored afterwards, as parsePositiveInteger does.
    assert (positive_integer(1), positive_integer("1"), positive_integer(0.99)) == (1, 1, 0)


def test_the_chatgpt_backend_is_a_native_endpoint_but_its_own_api_does_not_store():
    codex = ModelRoute(
        "openai", "gpt-5", "openai-responses", base_url="https://chatgpt.com/backend-api/codex"
    )
    assert openai_server_compaction(codex, {}) == CompactionPlan("openai-responses", 80_000)
