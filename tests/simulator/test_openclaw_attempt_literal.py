"""What an OpenClaw attempt installs when it starts, which marker sets its clock, and when it writes one."""

from __future__ import annotations

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.attempt import (
    AttemptConfig,
    AttemptState,
    CacheTtlMarker,
    attempt_step,
    end_attempt,
    read_last_cache_ttl_timestamp,
    start_attempt,
)
from simulator.runtimes.openclaw.messages import messages_from_json
from simulator.runtimes.openclaw.route import ModelRoute

ANTHROPIC = ModelRoute("anthropic", "claude-3-7-sonnet", "anthropic-messages", context_window=200_000)
OPENAI = ModelRoute("openai", "gpt-5.4", "openai-responses", context_window=400_000)
CACHE_TTL = AttemptConfig(context_pruning={"mode": "cache-ttl"})


def test_the_newest_marker_of_the_same_provider_and_model_sets_the_clock():
    markers = (
        CacheTtlMarker(1_000, "anthropic", "claude-3-7-sonnet"),
        CacheTtlMarker(2_000, " Anthropic ", "CLAUDE-3-7-SONNET "),
        CacheTtlMarker(3_000, "openai", "claude-3-7-sonnet"),
        CacheTtlMarker(4_000, "anthropic", "other"),
        CacheTtlMarker(5_000, None, "claude-3-7-sonnet"),
        CacheTtlMarker(6_000, "anthropic", None),
    )
    touched = read_last_cache_ttl_timestamp(markers, ANTHROPIC)
    assert (touched, type(touched)) == (2_000.0, float)


def test_markers_without_a_finite_non_zero_number_are_skipped():
    route = ModelRoute("anthropic", "m")
    for bad in (0, True, "5", None):
        assert (
            read_last_cache_ttl_timestamp(
                (CacheTtlMarker(7, "anthropic", "m"), CacheTtlMarker(bad, "anthropic", "m")), route
            )
            == 7.0
        )
    assert read_last_cache_ttl_timestamp((), route) is None


def test_a_route_without_provider_or_model_accepts_any_marker():
    route = ModelRoute(" ", "")
    assert read_last_cache_ttl_timestamp((CacheTtlMarker(9, None, 5),), route) == 9.0


def test_an_active_2026_7_1_attempt_installs_pruning_and_reads_the_clock():
    markers = (CacheTtlMarker(1_500, "anthropic", "claude-3-7-sonnet"),)
    setup, state = start_attempt(CACHE_TTL, ANTHROPIC, markers, AttemptState(), "2026.7.1")
    assert setup.pruning is not None and setup.cache_ttl is None
    assert (setup.inactive_reason, setup.appends_marker, setup.server_tool_clearing) == (None, True, False)
    assert (setup.guard_window_tokens, setup.drop_thinking_blocks, setup.compaction) == (200_000, True, None)
    assert setup.pruning.context_window_tokens == 200_000
    assert state.clock.last_cache_touch_at == 1_500.0


def test_mode_off_installs_nothing_and_ignores_the_markers():
    markers = (CacheTtlMarker(1_500, "anthropic", "claude-3-7-sonnet"),)
    setup, state = start_attempt(AttemptConfig(), ANTHROPIC, markers, AttemptState(), "2026.7.1")
    assert (setup.pruning, setup.cache_ttl, setup.inactive_reason, setup.appends_marker) == (
        None,
        None,
        "mode_off",
        False,
    )
    assert state.clock.last_cache_touch_at is None


def test_a_route_that_is_not_eligible_is_named_as_the_reason():
    setup, _ = start_attempt(CACHE_TTL, OPENAI, (), AttemptState(), "2026.7.1")
    assert (setup.pruning_active, setup.inactive_reason, setup.appends_marker) == (
        False,
        "provider_not_eligible",
        False,
    )


def test_the_guard_window_falls_back_from_budget_to_window_to_max_tokens_to_200000():
    def window(config: AttemptConfig, route: ModelRoute) -> int:
        return start_attempt(config, route, (), AttemptState(), "2026.7.1")[0].guard_window_tokens

    assert window(AttemptConfig(context_token_budget=5_000), ANTHROPIC) == 5_000
    assert window(AttemptConfig(), ANTHROPIC) == 200_000
    assert window(AttemptConfig(), ModelRoute("x", "m", context_window=0, max_tokens=8_000)) == 8_000
    assert window(AttemptConfig(), ModelRoute("x", "m")) == 200_000


def test_2026_9_6_installs_cache_ttl_and_server_tool_clearing_for_direct_anthropic_with_an_api_key():
    setup, _ = start_attempt(CACHE_TTL, ANTHROPIC, (), AttemptState(), "2026.9.6")
    assert setup.pruning is None and setup.cache_ttl is not None
    assert (setup.inactive_reason, setup.server_tool_clearing) == (None, True)
    official = ModelRoute("anthropic", "m", "anthropic-messages", base_url="https://api.anthropic.com/v1")
    assert start_attempt(CACHE_TTL, official, (), AttemptState(), "2026.9.6")[0].server_tool_clearing is True


def test_server_tool_clearing_needs_every_condition():
    oauth = AttemptConfig(context_pruning={"mode": "cache-ttl"}, auth="oauth")
    proxy = ModelRoute("anthropic", "m", "anthropic-messages", base_url="https://proxy.example")
    vertex = ModelRoute("anthropic-vertex", "m", "anthropic-messages")
    other_api = ModelRoute("anthropic", "m", "openai-responses")
    cases = [(oauth, ANTHROPIC), (CACHE_TTL, proxy), (CACHE_TTL, vertex), (CACHE_TTL, other_api)]
    assert [
        start_attempt(c, r, (), AttemptState(), "2026.9.6")[0].server_tool_clearing for c, r in cases
    ] == [
        False,
        False,
        False,
        False,
    ]
    assert (
        start_attempt(AttemptConfig(), ANTHROPIC, (), AttemptState(), "2026.9.6")[0].server_tool_clearing
        is False
    )


def test_the_marker_is_written_at_the_reply_end_unless_the_attempt_compacted_or_pruning_is_off():
    setup, _ = start_attempt(CACHE_TTL, ANTHROPIC, (), AttemptState(), "2026.7.1")
    earlier = (CacheTtlMarker(1, "anthropic", "claude-3-7-sonnet"),)
    assert end_attempt(setup, earlier, 9_000.5) == (
        *earlier,
        CacheTtlMarker(9_000.5, "anthropic", "claude-3-7-sonnet"),
    )
    assert end_attempt(setup, earlier, 9_000.5, compacted=True) == earlier
    off, _ = start_attempt(AttemptConfig(), ANTHROPIC, (), AttemptState(), "2026.7.1")
    assert end_attempt(off, earlier, 9_000.5) == earlier


def test_an_attempt_reproduces_2026_7_1_unless_told_otherwise():
    setup, _ = start_attempt(CACHE_TTL, ANTHROPIC, ())
    assert (setup.version, setup.pruning is not None, setup.cache_ttl) == ("2026.7.1", True, None)


def test_eligibility_is_judged_for_the_attempts_version():
    keyed = ModelRoute("openai", "gpt-5.4", "openai-responses", supports_prompt_cache_key=True)
    old, _ = start_attempt(CACHE_TTL, keyed, (), AttemptState(), "2026.7.1")
    new, _ = start_attempt(CACHE_TTL, keyed, (), AttemptState(), "2026.9.6")
    assert (old.inactive_reason, new.inactive_reason, new.cache_ttl is not None) == (
        "provider_not_eligible",
        None,
        True,
    )


def test_a_fractional_budget_below_one_token_still_gives_the_guard_one_token():
    config = AttemptConfig(context_token_budget=0.5)  # type: ignore[arg-type]
    assert start_attempt(config, ANTHROPIC, (), AttemptState(), "2026.7.1")[0].guard_window_tokens == 1


def test_the_pruners_window_reads_the_models_context_tokens_capped_by_the_agents_context_tokens():
    route = ModelRoute(
        "anthropic", "claude-3-7-sonnet", "anthropic-messages", context_window=200_000, context_tokens=150_000
    )
    setup, _ = start_attempt(CACHE_TTL, route, (), AttemptState(), "2026.7.1")
    assert setup.pruning is not None and setup.pruning.context_window_tokens == 150_000
    capped = AttemptConfig(context_pruning={"mode": "cache-ttl"}, context_tokens=100_000)
    setup, _ = start_attempt(capped, route, (), AttemptState(), "2026.7.1")
    assert setup.pruning is not None and setup.pruning.context_window_tokens == 100_000


def test_the_pruning_runtime_carries_the_tool_lists_and_the_thinking_policy():
    config = AttemptConfig(context_pruning={"mode": "cache-ttl", "tools": {"deny": ["exec"]}})
    setup, _ = start_attempt(config, ANTHROPIC, (), AttemptState(), "2026.7.1")
    assert setup.pruning is not None
    assert (setup.pruning.is_tool_prunable("exec"), setup.pruning.is_tool_prunable("read")) == (False, True)
    assert setup.pruning.drop_thinking_blocks is True


def turn(i: int, size: int) -> list[JSON]:
    return [
        {"role": "user", "content": f"question {i}", "timestamp": i},
        {
            "role": "assistant",
            "content": [{"type": "toolCall", "id": f"c{i}", "name": "read"}],
            "timestamp": i,
        },
        {
            "role": "toolResult",
            "toolCallId": f"c{i}",
            "toolName": "read",
            "content": [{"type": "text", "text": "x" * size}],
        },
    ]


def test_a_pruning_call_reports_the_clock_it_read_and_moves_it_to_the_call():
    route = ModelRoute("anthropic", "claude-sonnet-4-6", "anthropic-messages", context_window=4_000)
    config = AttemptConfig(context_pruning={"mode": "cache-ttl", "minPrunableToolChars": 0})
    history = messages_from_json([m for i in range(4) for m in turn(i, 9_000)])
    markers = (CacheTtlMarker(1_000_000, "anthropic", "claude-sonnet-4-6"),)
    setup, state = start_attempt(config, route, markers, AttemptState(), "2026.7.1")
    call, state = attempt_step(setup, state, 1_300_000, history)
    assert call.pruning is not None and call.pruning.decision == "pruned"
    assert (call.last_cache_touch_at_before, state.clock.last_cache_touch_at) == (1_000_000.0, 1_300_000)


def test_a_call_the_guard_stops_has_no_context_and_says_overflow():
    config = AttemptConfig(context_token_budget=1_000)  # the guard's threshold: 3,600 chars
    setup, state = start_attempt(config, ANTHROPIC, (), AttemptState(), "2026.7.1")
    call, _ = attempt_step(
        setup, state, 1_000, messages_from_json([{"role": "user", "content": "q" * 3_601}])
    )
    assert (call.context, call.overflow, call.guard_truncated_indexes, call.image_cleanup_indexes) == (
        None,
        True,
        (),
        (),
    )


def test_the_image_cleanup_of_a_call_names_the_messages_it_changed():
    image: JSON = {"role": "user", "content": [{"type": "image", "data": "abc", "mimeType": "image/png"}]}
    answer: JSON = {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}
    history = messages_from_json([image, answer] + [{"role": "user", "content": "q"}, answer] * 4)
    setup, state = start_attempt(
        AttemptConfig(), ModelRoute("openai", "gpt-5"), (), AttemptState(), "2026.7.1"
    )
    call, _ = attempt_step(setup, state, 1_000, history)
    assert (call.image_cleanup_indexes, call.transcript_policy_indexes, call.overflow) == ((0,), (), False)


OPENAI_PLATFORM = ModelRoute(
    "openai", "gpt-5.4", "openai-responses", context_window=400_000, base_url="https://api.openai.com/v1"
)
ANSWER: JSON = {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}
IMAGE: JSON = {"role": "user", "content": [{"type": "image", "data": "abc", "mimeType": "image/png"}]}


def test_provider_side_compaction_is_planned_only_from_2026_9_6_and_only_with_an_api_key():
    old, _ = start_attempt(AttemptConfig(), OPENAI_PLATFORM, (), AttemptState(), "2026.7.1")
    new, _ = start_attempt(AttemptConfig(), OPENAI_PLATFORM, (), AttemptState(), "2026.9.6")
    assert (old.compaction, new.compaction is not None) == (None, True)
    params: dict[str, JSON] = {"anthropicServerCompaction": True}
    keyed, _ = start_attempt(AttemptConfig(params=params), ANTHROPIC, (), AttemptState(), "2026.9.6")
    oauth, _ = start_attempt(
        AttemptConfig(params=params, auth="oauth"), ANTHROPIC, (), AttemptState(), "2026.9.6"
    )
    assert (keyed.compaction is not None, oauth.compaction) == (True, None)


def test_a_stopped_call_still_reports_the_clock_it_read():
    config = AttemptConfig(context_pruning={"mode": "cache-ttl"}, context_token_budget=1_000)
    markers = (CacheTtlMarker(500, "anthropic", "claude-3-7-sonnet"),)
    setup, state = start_attempt(config, ANTHROPIC, markers, AttemptState(), "2026.7.1")
    call, _ = attempt_step(
        setup, state, 1_000, messages_from_json([{"role": "user", "content": "q" * 3_601}])
    )
    assert (call.overflow, call.last_cache_touch_at_before) == (True, 500.0)


def test_the_transcript_policy_drops_old_thinking_at_the_stream_and_names_the_message():
    thinking: JSON = {
        "role": "assistant",
        "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "a"}],
    }
    history = messages_from_json(
        [{"role": "user", "content": "q"}, thinking, {"role": "user", "content": "r"}, ANSWER]
    )
    setup, state = start_attempt(AttemptConfig(), ANTHROPIC, (), AttemptState(), "2026.7.1")
    call, _ = attempt_step(setup, state, 1_000, history)
    assert call.transcript_policy_indexes == (1,)
    assert call.transformed == history
    assert call.context is not None and call.context[1].to_json() == {
        "role": "assistant",
        "content": [{"type": "text", "text": "a"}],
    }


def test_2026_9_6_counts_only_closed_turns_before_cleaning_images():
    history = messages_from_json([IMAGE, ANSWER] + [{"role": "user", "content": "q"}, ANSWER] * 3)
    for version, expected in (("2026.7.1", (0,)), ("2026.9.6", ())):
        setup, state = start_attempt(AttemptConfig(), ModelRoute("x", "m"), (), AttemptState(), version)  # type: ignore[arg-type]
        call, _ = attempt_step(setup, state, 1_000, history)
        assert (version, call.image_cleanup_indexes, call.cache_ttl) == (version, expected, None)


def test_a_2026_9_6_call_reports_the_clock_it_read_and_moves_it_to_the_call():
    config = AttemptConfig(context_pruning={"mode": "cache-ttl"})
    markers = (CacheTtlMarker(500, "anthropic", "claude-3-7-sonnet"),)
    setup, state = start_attempt(config, ANTHROPIC, markers, AttemptState(), "2026.9.6")
    call, state = attempt_step(setup, state, 1_000, messages_from_json([{"role": "user", "content": "q"}]))
    assert (call.last_cache_touch_at_before, state.clock.last_cache_touch_at, call.cache_ttl is not None) == (
        500.0,
        1_000,
        True,
    )


def test_a_2026_9_6_call_drops_old_thinking_only_on_routes_whose_policy_says_so():
    thinking: JSON = {
        "role": "assistant",
        "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "a"}],
    }
    history = messages_from_json(
        [{"role": "user", "content": "q"}, thinking, {"role": "user", "content": "r"}, ANSWER]
    )
    reports = []
    for route in (ANTHROPIC, OPENAI_PLATFORM):
        setup, state = start_attempt(AttemptConfig(), route, (), AttemptState(), "2026.9.6")
        call, _ = attempt_step(setup, state, 1_000, history)
        reports.append((call.transcript_policy_indexes, call.overflow, call.transformed == history))
    assert reports == [((1,), False, True), ((), False, True)]


def test_compaction_is_marked_when_the_estimated_prompt_reaches_the_threshold_exactly():
    route = ModelRoute(
        "openai", "gpt-5.4", "openai-responses", context_window=1_000, base_url="https://api.openai.com"
    )
    setup, state = start_attempt(AttemptConfig(), route, (), AttemptState(), "2026.9.6")
    assert setup.compaction is not None and setup.compaction.threshold == 1_000
    below, _ = attempt_step(
        setup, state, 1_000, messages_from_json([{"role": "user", "content": "q" * 3_996}])
    )
    at, _ = attempt_step(setup, state, 1_000, messages_from_json([{"role": "user", "content": "q" * 3_997}]))
    assert below.compaction is None
    assert at.compaction is not None and at.compaction.estimated_tokens == 1_000
