"""ZeroClaw's budget explanations, breadcrumb inserts and tool-call repairs with literal results."""

from __future__ import annotations

from simulator.runtimes import zeroclaw as zc
from simulator.runtimes.zeroclaw import Chat, ChatMessage
from simulator.runtimes.zeroclaw.breadcrumb import insert_conversation_breadcrumb

CRUMB = zc.breadcrumb()
FALLBACK_STEP = "model window unknown: 32,000 fallback (CompatibilityFallback)"


def sys(text: str) -> ChatMessage:
    return ChatMessage("system", text)


def user(text: str) -> ChatMessage:
    return ChatMessage("user", text)


def asst(text: str) -> ChatMessage:
    return ChatMessage("assistant", text)


def explained(resolution: zc.BudgetResolution) -> tuple[object, ...]:
    return (
        resolution.budget,
        resolution.window,
        resolution.window_source,
        resolution.bound_by,
        resolution.steps,
    )


def test_a_limit_equal_to_the_budget_does_not_lower_it():
    resolution = zc.context_limits_for_model_window(
        100_000,
        "Configured",
        max_context_tokens=50_000,
        history_pruning_enabled=True,
        history_pruning_max_tokens=50_000,
    )
    assert explained(resolution) == (
        50_000,
        100_000,
        "Configured",
        "max_context_tokens",
        (
            "model window 100,000 (Configured)",
            "max_context_tokens 50,000",
            "history_pruning.max_tokens 50,000 does not lower it",
        ),
    )


def test_the_legacy_fallback_with_budget_zero_is_disabled():
    assert explained(zc.legacy_fallback(0)) == (
        0,
        32_000,
        "CompatibilityFallback",
        "disabled",
        (FALLBACK_STEP, "budget 0 disables token trimming"),
    )


def test_the_legacy_fallback_keeps_a_budget_of_one():
    assert explained(zc.legacy_fallback(1)) == (
        1,
        32_000,
        "CompatibilityFallback",
        "max_context_tokens",
        (FALLBACK_STEP, "budget 1"),
    )


def test_the_legacy_fallback_keeps_a_budget_equal_to_its_window():
    assert explained(zc.legacy_fallback(32_000)) == (
        32_000,
        32_000,
        "CompatibilityFallback",
        "max_context_tokens",
        (FALLBACK_STEP, "budget 32,000"),
    )


def test_the_legacy_fallback_caps_a_larger_budget_at_its_window():
    resolution = zc.legacy_fallback(32_001)
    assert explained(resolution) == (
        32_000,
        32_000,
        "CompatibilityFallback",
        "window",
        (FALLBACK_STEP, "budget 32,001", "capped by the model window to 32,000"),
    )
    assert resolution.configured_window is None


def test_the_deduped_breadcrumb_after_an_all_system_history_is_appended():
    result = zc.insert_breadcrumb_deduped([sys("s")])
    assert (result.history, result.index, result.inserted) == ((sys("s"), CRUMB), 1, True)


def test_the_deduped_breadcrumb_already_in_place_is_reported_where_it_sits():
    history = [sys("s"), CRUMB, user("u")]
    result = zc.insert_breadcrumb_deduped(history)
    assert (result.history, result.index, result.inserted) == (tuple(history), 1, False)


def test_the_structured_breadcrumb_goes_after_the_leading_systems():
    history = [Chat(sys("a")), Chat(sys("b")), Chat(sys("c")), Chat(user("u")), Chat(asst("x"))]
    assert insert_conversation_breadcrumb(history) == (*history[:3], Chat(CRUMB), *history[3:])


def test_the_structured_breadcrumb_after_an_all_system_or_empty_history_is_appended():
    assert insert_conversation_breadcrumb([Chat(sys("a"))]) == (Chat(sys("a")), Chat(CRUMB))
    assert insert_conversation_breadcrumb([]) == (Chat(CRUMB),)


def test_stripping_counts_every_changed_assistant_and_maps_the_kept_rows():
    unanswered = asst('{"content": "", "tool_calls": [{"id": "x"}]}')
    history = [user("u"), unanswered, asst("ok"), unanswered, user("v")]
    result = zc.strip_orphaned_tool_calls_from_assistants(history)
    assert (result.history, result.stripped, result.kept_indices) == (
        (user("u"), asst("ok"), user("v")),
        2,
        (0, 2, 4),
    )


def test_stripping_leaves_non_assistant_rows_and_non_object_json_alone():
    user_json = user('{"tool_calls": [{"id": "x"}]}')
    listed = asst('["tool_calls"]')
    result = zc.strip_orphaned_tool_calls_from_assistants([user_json, listed])
    assert (result.history, result.stripped, result.kept_indices) == ((user_json, listed), 0, (0, 1))


def test_the_recovery_shape_shows_a_figure_pair_only_when_both_are_set():
    half_tokens = zc.RecoveryResult(False, (), None, 5, tokens_before=10)
    half_floor = zc.RecoveryResult(False, (), None, 5, system_floor=3)
    expected = {"recovered": False, "recovery_budget": 5, "history": [], "event": None}
    assert half_tokens.to_json() == expected
    assert half_floor.to_json() == expected


def test_the_structured_breadcrumb_leads_a_history_without_systems():
    history = [Chat(user("u")), Chat(asst("x"))]
    assert insert_conversation_breadcrumb(history) == (Chat(CRUMB), *history)


def calls(*ids: str) -> ChatMessage:
    listed = ", ".join(f'{{"id": "{i}"}}' for i in ids)
    return asst(f'{{"content": "", "tool_calls": [{listed}]}}')


def tool(call_id: str) -> ChatMessage:
    return ChatMessage("tool", f'{{"tool_call_id": "{call_id}", "content": "ok"}}')


def swept(history: list[ChatMessage]) -> tuple[object, ...]:
    result = zc.remove_orphaned_tool_messages(history)
    return (result.history, result.removed, result.orphan_tool_call_ids, result.kept_indices)


def test_a_tool_calling_assistant_right_after_an_assistant_goes_with_its_results():
    history = [asst("a"), calls("x", "y"), tool("x"), tool("y")]
    assert swept(history) == ((asst("a"),), 3, ("x", "y"), (0,))


def test_a_tool_calling_assistant_first_in_the_history_is_not_doubled():
    history = [calls("x"), tool("x"), asst("done")]
    assert swept(history) == (tuple(history), 0, (), (0, 1, 2))


def test_a_foreign_tool_row_after_a_doubled_assistant_is_left_to_the_second_pass():
    history = [asst("a"), calls("x"), tool("x"), tool("z")]
    assert swept(history) == ((asst("a"),), 3, ("x", "z"), (0,))


def test_only_assistants_can_be_doubled_tool_callers():
    user_json = user('{"tool_calls": [{"id": "x"}]}')
    history = [asst("hi"), user_json]
    assert swept(history) == (tuple(history), 0, (), (0, 1))


def test_every_doubled_tool_calling_assistant_is_counted():
    history = [asst("a"), calls("x"), asst("b"), calls("y")]
    assert swept(history) == ((asst("a"), asst("b")), 2, ("x", "y"), (0, 2))


def test_a_tool_row_first_in_the_history_has_no_owner_even_if_the_last_row_calls_it():
    history = [tool("x"), calls("x")]
    assert swept(history) == ((calls("x"),), 1, ("x",), (1,))


def test_a_tool_row_whose_id_its_assistant_did_not_call_is_removed():
    history = [user("u"), calls("x"), tool("y")]
    assert swept(history) == ((user("u"), calls("x")), 1, ("y",), (0, 1))


def test_the_upstream_budget_without_max_context_tokens_is_the_default_bound_by_the_fallback():
    assert explained(zc.effective_context_budget(None)) == (
        32_000,
        None,
        None,
        "fallback",
        ("max_context_tokens unset: default 32,000",),
    )


def test_the_upstream_budget_is_bound_by_max_context_tokens_when_given():
    assert explained(zc.effective_context_budget(40_000)) == (
        40_000,
        None,
        None,
        "max_context_tokens",
        ("max_context_tokens 40,000",),
    )


def test_the_upstream_pruning_limit_counts_only_when_pruning_is_enabled():
    # history_pruning.enabled defaults to false: a max_tokens on its own lowers nothing.
    assert zc.effective_context_budget(40_000, history_pruning_max_tokens=1_000).budget == 40_000


def test_the_upstream_pruning_switch_alone_has_no_limit_to_apply():
    # history_pruning.max_tokens defaults to 0, which never lowers the budget.
    assert explained(zc.effective_context_budget(40_000, True)) == (
        40_000,
        None,
        None,
        "max_context_tokens",
        ("max_context_tokens 40,000",),
    )


def test_an_upstream_budget_of_zero_is_disabled_and_says_so():
    assert explained(zc.effective_context_budget(0, True, 1_000)) == (
        0,
        None,
        None,
        "disabled",
        ("max_context_tokens 0", "max_context_tokens = 0 disables token trimming"),
    )


def test_an_upstream_budget_of_one_is_a_budget_not_a_switch():
    assert explained(zc.effective_context_budget(1)) == (
        1,
        None,
        None,
        "max_context_tokens",
        ("max_context_tokens 1",),
    )


def test_an_upstream_pruning_limit_of_one_token_lowers_the_budget():
    assert explained(zc.effective_context_budget(40_000, True, 1)) == (
        1,
        None,
        None,
        "history_pruning",
        ("max_context_tokens 40,000", "lowered by history_pruning.max_tokens to 1"),
    )


def test_an_upstream_pruning_limit_above_the_budget_is_named_and_ignored():
    assert zc.effective_context_budget(40_000, True, 50_000).steps == (
        "max_context_tokens 40,000",
        "history_pruning.max_tokens 50,000 does not lower it",
    )


def test_a_one_token_window_is_configured_and_caps_the_legacy_budget():
    assert explained(zc.context_limits_for_model_window(1, "Configured")) == (
        1,
        1,
        "Configured",
        "window",
        (
            "model window 1 (Configured)",
            "no ratio and no max_context_tokens: legacy 32,000",
            "capped by the model window to 1",
        ),
    )


def test_an_unknown_window_falls_back_to_32000_and_keeps_its_source_label():
    assert explained(zc.context_limits_for_model_window(0, "Configured", max_context_tokens=10_000)) == (
        10_000,
        32_000,
        "Configured",
        "max_context_tokens",
        ("model window unknown: 32,000 fallback (Configured)", "max_context_tokens 10,000"),
    )


def test_max_context_tokens_zero_disables_a_model_relative_budget():
    resolution = zc.context_limits_for_model_window(
        100_000, "Configured", max_context_tokens=0, context_compact_ratio=0.5
    )
    assert explained(resolution) == (
        0,
        100_000,
        "Configured",
        "disabled",
        ("model window 100,000 (Configured)", "max_context_tokens = 0 disables token trimming"),
    )


def test_a_ratio_that_rounds_down_to_zero_tokens_still_leaves_one():
    assert explained(zc.context_limits_for_model_window(100, "Configured", context_compact_ratio=0.001)) == (
        1,
        100,
        "Configured",
        "ratio",
        ("model window 100 (Configured)", "ratio 0.001 × window 100 = 1"),
    )


def test_max_context_tokens_lowers_a_ratio_budget_and_binds_it():
    resolution = zc.context_limits_for_model_window(
        100_000, "Configured", max_context_tokens=40_000, context_compact_ratio=0.5
    )
    assert explained(resolution) == (
        40_000,
        100_000,
        "Configured",
        "max_context_tokens",
        (
            "model window 100,000 (Configured)",
            "ratio 0.5 × window 100,000 = 50,000",
            "lowered by max_context_tokens to 40,000",
        ),
    )


def test_a_larger_max_context_tokens_leaves_the_ratio_binding():
    resolution = zc.context_limits_for_model_window(
        100_000, "Configured", max_context_tokens=60_000, context_compact_ratio=0.5
    )
    assert explained(resolution) == (
        50_000,
        100_000,
        "Configured",
        "ratio",
        (
            "model window 100,000 (Configured)",
            "ratio 0.5 × window 100,000 = 50,000",
            "max_context_tokens 60,000 does not lower it",
        ),
    )


def test_a_ratio_above_one_is_named_as_ignored():
    resolution = zc.context_limits_for_model_window(100_000, "Configured", context_compact_ratio=1.5)
    assert resolution.steps == (
        "model window 100,000 (Configured)",
        "context_compact_ratio 1.5 is outside (0, 1] and ignored",
        "no ratio and no max_context_tokens: legacy 32,000",
    )


def test_model_relative_pruning_needs_both_the_switch_and_a_positive_limit():
    base = {"max_context_tokens": 40_000}
    assert (
        zc.context_limits_for_model_window(
            100_000, "Configured", **base, history_pruning_max_tokens=10
        ).budget
        == 40_000
    )
    assert (
        zc.context_limits_for_model_window(100_000, "Configured", **base, history_pruning_enabled=True).budget
        == 40_000
    )
    zero = zc.context_limits_for_model_window(
        100_000, "Configured", **base, history_pruning_enabled=True, history_pruning_max_tokens=0
    )
    assert (zero.budget, zero.bound_by) == (40_000, "max_context_tokens")
    one = zc.context_limits_for_model_window(
        100_000, "Configured", **base, history_pruning_enabled=True, history_pruning_max_tokens=1
    )
    assert (one.budget, one.bound_by) == (1, "history_pruning")


def test_a_budget_equal_to_the_window_is_not_capped_by_it():
    resolution = zc.context_limits_for_model_window(40_000, "Configured", max_context_tokens=40_000)
    assert explained(resolution) == (
        40_000,
        40_000,
        "Configured",
        "max_context_tokens",
        ("model window 40,000 (Configured)", "max_context_tokens 40,000"),
    )


def test_a_declared_window_applies_when_either_model_name_is_missing():
    assert zc.resolve_model_context_window(100_000, "gpt-x", None) == (100_000, "Configured")
    assert zc.resolve_model_context_window(100_000, None, "gpt-x") == (100_000, "Configured")
    assert zc.resolve_model_context_window(100_000, "  ", "gpt-x") == (100_000, "Configured")


def test_a_declared_window_applies_when_the_names_match_after_trimming():
    assert zc.resolve_model_context_window(100_000, " gpt-x ", "gpt-x") == (100_000, "Configured")
    assert zc.resolve_model_context_window(100_000, "gpt-x", "gpt-y") == (32_000, "CompatibilityFallback")


def test_a_declared_window_of_one_token_counts_and_zero_does_not():
    assert zc.resolve_model_context_window(1, None, None) == (1, "Configured")
    assert zc.resolve_model_context_window(0, None, None) == (32_000, "CompatibilityFallback")


def test_the_upstream_profile_budget_reads_max_context_tokens_and_both_pruning_knobs():
    settings = zc.ZeroClawSettings(
        max_context_tokens=40_000,
        history_pruning_enabled=True,
        history_pruning_max_tokens=30_000,
        version="upstream",
    )
    assert explained(zc.resolve_budget(settings)) == (
        30_000,
        None,
        None,
        "history_pruning",
        ("max_context_tokens 40,000", "lowered by history_pruning.max_tokens to 30,000"),
    )


def test_a_flagged_breadcrumb_is_reported_where_it_sits_and_not_inserted():
    history = [sys("s"), sys("t"), user("q")]
    crumb = zc.insert_breadcrumb_flagged(history, True)
    assert (crumb.history, crumb.index, crumb.inserted) == (tuple(history), 2, False)


def test_a_foreign_tool_row_right_after_a_kept_one_is_still_swept():
    history = [calls("x"), tool("x"), tool("z")]
    assert swept(history) == ((calls("x"), tool("x")), 1, ("z",), (0, 1))
