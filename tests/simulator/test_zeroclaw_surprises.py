"""The behaviours of ZeroClaw's history management that a naive re-implementation gets wrong (spec §13)."""

from __future__ import annotations

import pytest

from simulator.errors import ProfileError
from simulator.runtimes import zeroclaw as zc
from simulator.runtimes.zeroclaw import (
    AssistantToolCalls,
    Chat,
    ChatMessage,
    ToolCall,
    ToolResultMessage,
    ToolResults,
    ZeroClawSettings,
)

CRUMB = zc.breadcrumb()


def sys(text: str) -> ChatMessage:
    return ChatMessage("system", text)


def user(text: str) -> ChatMessage:
    return ChatMessage("user", text)


def asst(text: str) -> ChatMessage:
    return ChatMessage("assistant", text)


def test_tokens_count_utf8_bytes_rounded_up_plus_four_per_message():
    assert zc.estimate_history_tokens([user("日本語")]) == 3 + 4
    assert zc.estimate_history_tokens([user("abcde")]) == 2 + 4
    assert zc.estimate_history_tokens([]) == 0


def test_the_role_is_not_counted_and_image_markers_are_plain_text_on_master():
    marker = "[IMAGE:/tmp/a.png]"
    assert zc.estimate_history_tokens([sys(marker)]) == zc.estimate_history_tokens([user(marker)])
    assert zc.estimate_history_tokens([user(marker)]) == 5 + 4


def test_pr9379_charges_images_only_in_the_prepared_estimate():
    message = user("see [IMAGE:/tmp/a.png] now")
    assert zc.estimate_history_tokens_pr9379([message]) == zc.estimate_history_tokens([user("see  now")])
    with_file = zc.estimate_prepared_history_tokens([message], {"/tmp/a.png": 3000})
    missing = zc.estimate_prepared_history_tokens([message], {})
    assert with_file == zc.estimate_history_tokens_pr9379([message]) + 1000
    assert missing == zc.estimate_history_tokens_pr9379([message]) + 1000
    data_uri = user("[IMAGE:data:image/png;base64,AAAAAAAA]")
    assert zc.estimate_prepared_history_tokens([data_uri]) == 4 + 2


def test_budget_zero_disables_trimming_and_budget_one_keeps_only_the_newest_turn():
    history = [sys("s"), user("old " * 50), asst("a"), user("new"), asst("b")]
    assert not zc.trim_to_recent_turns(history, 0).trimmed
    tiny = zc.trim_to_recent_turns(history, 1)
    assert tiny.history == (sys("s"), user("new"), asst("b"))
    assert tiny.kept_indices == (0, 3, 4)


def test_the_newest_turn_is_kept_even_when_it_alone_exceeds_the_budget():
    history = [sys("s"), user("old"), asst("a"), user("x" * 4000), asst("b")]
    result = zc.trim_to_recent_turns(history, 10)
    assert result.trimmed
    assert result.history[1:] == (user("x" * 4000), asst("b"))
    assert result.tokens_after > 10


def test_a_single_turn_history_is_never_trimmed():
    result = zc.trim_to_recent_turns([sys("s"), user("x" * 4000), asst("b")], 1)
    assert not result.trimmed
    assert result.kept_turns == 1


def test_messages_before_the_first_user_go_with_the_first_turn_but_are_not_a_turn():
    history = [sys("s"), asst("preface"), user("old " * 30), asst("a"), user("new"), asst("b")]
    result = zc.trim_to_recent_turns(history, 1)
    assert result.dropped_messages == 3
    assert result.dropped_turns == 1
    assert result.kept_turns == 1


def test_late_system_messages_are_dropped_with_their_turn_in_token_trimming():
    history = [sys("s"), user("old " * 30), sys("late"), asst("a"), user("new"), asst("b")]
    result = zc.trim_to_recent_turns(history, 1)
    assert sys("late") not in result.history


def test_on_master_the_breadcrumb_is_an_ordinary_turn_but_pr9368_keeps_a_flagged_one():
    history = [sys("s"), CRUMB, user("old " * 30), asst("a"), user("new"), asst("b")]
    master = zc.trim_to_recent_turns(history, 1)
    assert master.dropped_turns == 2
    assert CRUMB not in master.history
    documented = zc.trim_to_recent_turns_pr9368(history, 1, has_leading_breadcrumb=True)
    assert documented.history == (sys("s"), CRUMB, user("new"), asst("b"))
    assert documented.dropped_messages == 2
    assert documented.dropped_turns == 1


def test_tool_results_users_are_not_boundaries_on_master_chat_but_are_in_structured_history():
    chat = [user("q " * 40), asst("call"), user("[Tool results]\nok"), asst("done")]
    assert zc.trim_to_recent_turns(chat, 1).kept_turns == 1
    assert not zc.trim_to_recent_turns(chat, 1).trimmed
    assert zc.trim_to_recent_turns(chat[:2] + [user(" [Tool results]")], 1).trimmed
    structured = [Chat(m) for m in chat]
    capped = zc.trim_conversation_to_recent_turns(structured, 0)
    assert capped.trimmed
    assert capped.history == (Chat(user("[Tool results]\nok")), Chat(asst("done")))


def test_structured_cap_moves_every_system_to_the_front_only_when_it_trims():
    history: list[zc.ConversationMessage] = [Chat(sys("primary")), Chat(user("old")), Chat(asst("a"))]
    history += [Chat(sys("late"))]
    history += [Chat(user("new")), Chat(asst("b"))]
    untouched = zc.trim_conversation_to_recent_turns(history, 4)
    assert untouched.history == tuple(history)
    trimmed = zc.trim_conversation_to_recent_turns(history, 2)
    assert trimmed.history == (Chat(sys("primary")), Chat(sys("late")), Chat(user("new")), Chat(asst("b")))
    assert trimmed.kept_indices == (0, 3, 4, 5)


def test_structured_cap_counts_tool_rows_and_excludes_a_flagged_breadcrumb():
    call = AssistantToolCalls("t", (ToolCall("c1", "shell", "{}"),))
    result = ToolResults((ToolResultMessage("c1", "ok", "shell"),))
    history: list[zc.ConversationMessage] = [
        Chat(sys("s")),
        Chat(CRUMB),
        Chat(user("old")),
        Chat(asst("a")),
        Chat(user("new")),
        call,
        result,
    ]
    capped = zc.trim_conversation_to_recent_turns(history, 3, has_leading_breadcrumb=True)
    assert capped.history == (Chat(sys("s")), Chat(user("new")), call, result)
    assert capped.dropped_messages == 2


def test_reactive_recovery_targets_two_thirds_of_the_estimate_and_only_succeeds_when_it_drops():
    history = [sys("s"), user("a" * 400), asst("b" * 400), user("c" * 40), asst("d")]
    estimate = zc.estimate_history_tokens(history)
    recovered = zc.recover_context_overflow(history, "Prompt is too long", 1_000_000)
    assert recovered.recovered
    assert recovered.recovery_budget == estimate * 2 // 3
    assert recovered.history[:2] == (sys("s"), CRUMB)
    assert recovered.event == zc.HistoryTrimmed(2, 1, "context token budget exceeded")
    single = zc.recover_context_overflow(history[:3], "maximum context length", 1_000_000)
    assert not single.recovered
    assert single.event is None


def test_the_overflow_matcher_needs_the_exact_phrases():
    assert zc.is_context_window_exceeded("This model's maximum context length is 8192")
    assert not zc.is_context_window_exceeded("context_length_exceeded")
    assert not zc.is_context_window_exceeded("rate limited")


def test_reported_budget_rescales_and_reports_in_the_provider_scale():
    history = [sys("system"), user("x" * 2000), asst("a1"), user("turn3 short"), asst("a3")]
    estimate = zc.estimate_history_tokens(history)
    result = zc.trim_to_reported_budget(history, estimate, estimate * 2)
    assert result.trimmed
    assert result.tokens_before == estimate * 2
    assert result.tokens_after == zc.estimate_history_tokens(result.history) * 2
    assert not zc.trim_to_reported_budget(history, 100, 80).trimmed


def test_the_documented_budget_ignores_bad_ratios_and_is_capped_by_the_window():
    for ratio in (0.0, -0.5, 1.5, float("nan")):
        resolution = zc.context_limits_for_model_window(200_000, "Configured", context_compact_ratio=ratio)
        assert resolution.budget == 32_000
        assert resolution.bound_by == "fallback"
    capped = zc.context_limits_for_model_window(8_000, "Configured", max_context_tokens=128_000)
    assert capped.budget == 8_000
    assert capped.bound_by == "window"
    assert capped.steps[-1] == "capped by the model window to 8,000"


def test_an_explicit_zero_budget_short_circuits_ratio_and_pruning():
    resolution = zc.context_limits_for_model_window(
        200_000,
        "Configured",
        max_context_tokens=0,
        context_compact_ratio=0.9,
        history_pruning_enabled=True,
        history_pruning_max_tokens=10,
    )
    assert resolution.budget == 0
    assert resolution.bound_by == "disabled"


def test_the_budget_explains_itself_step_by_step():
    resolution = zc.context_limits_for_model_window(
        128_000,
        "Configured",
        context_compact_ratio=0.5,
        history_pruning_enabled=True,
        history_pruning_max_tokens=40_000,
    )
    assert resolution.budget == 40_000
    assert resolution.bound_by == "history_pruning"
    assert "ratio 0.5 × window 128,000 = 64,000" in resolution.steps
    assert "lowered by history_pruning.max_tokens to 40,000" in resolution.steps


def test_a_window_declared_for_another_model_falls_back_to_32000():
    settings = ZeroClawSettings(
        max_context_tokens=128_000, context_window=200_000, provider_model="a", model="b"
    )
    resolution = zc.resolve_budget(settings)
    assert resolution.budget == 32_000
    assert resolution.window_source == "CompatibilityFallback"
    assert resolution.configured_window is None
    matching = zc.resolve_budget(ZeroClawSettings(context_window=200_000, provider_model=" a ", model="a"))
    assert matching.window == 200_000
    assert matching.window_source == "Configured"


def test_the_upstream_budget_is_the_smaller_of_max_context_tokens_and_pruning():
    assert zc.resolve_budget(ZeroClawSettings(version="upstream")).budget == 32_000
    pruned = zc.effective_context_budget(32_000, True, 8_000)
    assert pruned.budget == 8_000
    assert pruned.bound_by == "history_pruning"
    assert zc.effective_context_budget(0, True, 8_000).budget == 0


def test_settings_validation_names_the_bad_field_and_range():
    with pytest.raises(ProfileError) as error:
        ZeroClawSettings(max_context_tokens=-1).validate()
    assert error.value.field == "max_context_tokens"
    assert error.value.allowed is not None
    assert ZeroClawSettings(context_compact_ratio=1.5).validate().context_compact_ratio == 1.5


def test_the_history_cap_default_depends_on_the_version():
    assert ZeroClawSettings().effective_max_history_messages() == 50
    assert ZeroClawSettings(version="upstream", max_tool_iterations=40).effective_max_history_messages() == 82
    assert ZeroClawSettings(version="upstream", max_history_messages=0).effective_max_history_messages() == 0


def test_pr9368_turn_count_keeps_whole_turns_and_zero_keeps_the_newest():
    history = [sys("s"), user("1"), asst("a"), user("2"), asst("b"), user("3"), asst("c")]
    two = zc.trim_to_recent_turn_count(history, 2)
    assert two.history == (sys("s"), user("2"), asst("b"), user("3"), asst("c"))
    zero = zc.trim_to_recent_turn_count(history, 0)
    assert zero.history == (sys("s"), user("3"), asst("c"))


def test_the_deduped_breadcrumb_is_not_doubled():
    once = zc.insert_breadcrumb_deduped([sys("s"), user("q")]).history
    assert once == (sys("s"), CRUMB, user("q"))
    assert zc.insert_breadcrumb_deduped(once).history == once


def test_the_history_trimmed_event_has_four_wire_shapes():
    event = zc.HistoryTrimmed(3, 2, "context token budget exceeded")
    assert event.to_ws() == {
        "type": "history_trimmed",
        "dropped_messages": 3,
        "kept_turns": 2,
        "reason": "context token budget exceeded",
    }
    sse = event.to_sse("2026-08-22T10:00:00Z", channel="web")
    assert sse["source"] == "observability"
    assert sse["channel"] == "web"
    assert "turn_id" not in sse
    assert event.to_rpc("s1") == {
        "type": "history_trimmed",
        "session_id": "s1",
        "dropped_messages": 3,
        "kept_turns": 2,
        "reason": "context token budget exceeded",
    }
    assert event.to_acp("s1") == {
        "jsonrpc": "2.0",
        "method": "_zeroclaw/history_trimmed",
        "params": {
            "sessionId": "s1",
            "droppedMessages": 3,
            "keptTurns": 2,
            "reason": "context token budget exceeded",
        },
    }


def test_a_loop_iteration_warns_about_the_floor_trims_and_inserts_one_breadcrumb():
    history = [sys("s" * 400), user("old " * 100), asst("a"), user("new"), asst("b")]
    step = zc.preflight_iteration(history, 50, iteration=0, version="upstream")
    assert len(step.warnings) == 1
    assert "(104 tokens)" in step.warnings[0]
    assert step.history == (sys("s" * 400), CRUMB, user("new"), asst("b"))
    assert step.source_indices == (0, None, 3, 4)
    assert step.event == zc.HistoryTrimmed(2, 1, "context token budget exceeded")
    again = zc.preflight_iteration(step.history, 50, iteration=1, version="upstream")
    assert again.warnings == ()
    assert again.history.count(CRUMB) == 1


def test_the_documented_loop_keeps_the_flagged_breadcrumb_across_iterations():
    history = [sys("s"), user("old " * 100), asst("a"), user("mid " * 100), asst("b"), user("new"), asst("c")]
    first = zc.preflight_iteration(history, 200, iteration=0)
    assert first.history[1] == CRUMB and user("mid " * 100) in first.history
    assert first.has_leading_breadcrumb
    second = zc.preflight_iteration(first.history, 30, iteration=1, has_leading_breadcrumb=True)
    assert second.history == (sys("s"), CRUMB, user("new"), asst("c"))
    assert second.event is not None


def test_enforcing_the_reported_budget_is_a_no_op_when_the_report_fits():
    history = [sys("s"), user("q"), asst("a")]
    step = zc.enforce_reported_budget(history, 100, 80)
    assert step.event is None
    assert step.history == tuple(history)


def test_tool_result_truncation_counts_bytes_and_keeps_the_envelope():
    assert zc.truncate_tool_result("abc", 0) == "abc"
    out = zc.truncate_tool_result("a" * 30 + "b" * 30, 12)
    assert out == "a" * 8 + "\n\n[... 48 characters truncated ...]\n\n" + "b" * 4
    envelope = zc.truncate_tool_message('{"tool_call_id": "c", "content": "' + "q" * 100 + '"}', 30)
    assert envelope.startswith('{"content":"qqqqqqqqqqqqqqqqqqqq\\n\\n[... 70 characters')
    assert envelope.endswith('","tool_call_id":"c"}')


def test_the_orphan_sweep_removes_results_without_a_tool_calling_assistant():
    call = '{"content":"","tool_calls":[{"id":"a","name":"shell","arguments":"{}"}]}'
    history = [user("q"), asst("plain"), ChatMessage("tool", '{"tool_call_id":"a","content":"ok"}')]
    swept = zc.remove_orphaned_tool_messages(history)
    assert swept.orphan_tool_call_ids == ("a",)
    assert swept.kept_indices == (0, 1)
    paired = [user("q"), asst(call), ChatMessage("tool", '{"tool_call_id":"a","content":"ok"}')]
    assert zc.remove_orphaned_tool_messages(paired).removed == 0
    stripped = zc.strip_orphaned_tool_calls_from_assistants(paired[:2])
    assert stripped.history == (user("q"),)


def test_legacy_trim_history_keeps_the_first_user_as_an_anchor_and_merges_systems():
    history = [sys("a"), user("first"), asst("1"), user("2"), asst("3"), sys("late"), user("4"), asst("5")]
    result = zc.trim_history(history, 4)
    assert result.history == (sys("a\n\nlate"), user("first"), user("4"), asst("5"))


def test_conversation_messages_round_trip_through_their_serde_shape():
    call = AssistantToolCalls(None, (ToolCall("c", "shell", "{}"),), "why")
    for message in (Chat(user("hi")), call, ToolResults((ToolResultMessage("c", "ok", "shell"),))):
        assert zc.conversation_message_from_json(message.to_json()) == message
