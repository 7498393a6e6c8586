"""trim_history, budgets and the retry loop: the rules a naive re-implementation gets wrong (spec §4-5)."""

from __future__ import annotations

from simulator.runtimes.ai_profile import (
    Block,
    Message,
    TokenLimits,
    caller_retry_loop,
    estimate_tokens,
    first_user_index,
    history_budget,
    message_tokens,
    retry_budget,
    trim_history,
)


def user(text: str) -> Message:
    return Message("user", text)


def assistant(text: str) -> Message:
    return Message("assistant", text)


def call(tool_id: str = "t1") -> Message:
    return Message("assistant", (Block.tool_use(tool_id, "run", {}),))


def answer(text: str, tool_id: str = "t1") -> Message:
    return Message("user", (Block.tool_result(tool_id, text),))


def test_no_budget_never_trims_however_large():
    result = trim_history([user("x" * 100_000)], None)
    assert result.dropped == 0
    assert result.kept_indices == (0,)


def test_an_estimate_equal_to_the_budget_is_untouched_even_with_a_trailing_tool_use():
    history = [user("go"), call()]
    result = trim_history(history, estimate_tokens(history))
    assert result.messages == tuple(history)
    assert result.dropped == 0


def test_first_user_is_reserved_only_up_to_the_floored_half_budget():
    first = user("q" * 100)
    assert message_tokens(first) == 61
    history = [first, assistant("a" * 400), user("b" * 40), assistant("c" * 60)]
    not_reserved = trim_history(history, 121)
    assert not_reserved.reinserted_first_user is None
    assert 0 not in not_reserved.kept_indices
    reserved = trim_history(history, 122)
    assert reserved.reinserted_first_user == 0
    assert reserved.kept_indices[0] == 0


def test_the_greedy_walk_stops_at_the_first_message_that_does_not_fit():
    history = [assistant("small"), assistant("y" * 2000), assistant("tail")]
    budget = message_tokens(history[2]) + message_tokens(history[0])
    result = trim_history(history, budget)
    assert result.kept_indices == (2,)


def test_a_message_that_brings_the_total_exactly_to_the_budget_is_kept():
    history = [assistant("a" * 50), assistant("b" * 10), assistant("c" * 10)]
    budget = message_tokens(history[1]) + message_tokens(history[2])
    assert trim_history(history, budget).kept_indices == (1, 2)


def test_the_fallback_ignores_the_budget_and_never_reinserts_the_first_user():
    history = [user("hi"), assistant("hello")]
    result = trim_history(history, 27)
    assert result.used_fallback
    assert result.kept_indices == (1,)
    assert result.reinserted_first_user is None
    assert result.dropped == 1
    big = trim_history([user("a"), assistant("b"), assistant("z" * 5000)], 100)
    assert big.kept_indices == (2,)
    assert big.estimate_after > 100


def test_the_fallback_skips_tool_messages_and_can_return_nothing():
    assert trim_history([user("a" * 10000), call()], 1).kept_indices == (0,)
    assert trim_history([call(), answer("r")], 1).messages == ()
    assert trim_history([call(), answer("r")], 1).dropped == 2


def test_leading_tool_results_are_all_skipped_and_only_the_last_tool_use_is_cut():
    history = [user("a" * 8000), answer("r1", "t0"), answer("r2", "t0"), assistant("mid"), call("t9")]
    budget = estimate_tokens(history[1:])
    result = trim_history(history, budget)
    assert result.kept_indices == (3,)


def test_pairing_is_positional_and_the_middle_is_not_repaired():
    orphan = answer("lost", "nobody")
    history = [user("a" * 4000), assistant("x"), orphan, assistant("y")]
    result = trim_history(history, estimate_tokens(history[1:]))
    assert result.kept_indices == (1, 2, 3)


def test_dropped_counts_messages_left_out_not_the_reinserted_first_user():
    history = [user("把这个仓库的测试全部跑一遍"), assistant("x" * 20000), user("继续")]
    result = trim_history(history, 600)
    assert result.kept_indices == (0, 2)
    assert result.reinserted_first_user == 0
    assert result.dropped == 1


def test_first_user_needs_the_exact_role_and_no_tool_result():
    assert first_user_index([Message("User", "a"), Message("human", "b"), answer("r"), user("c")]) == 3
    assert first_user_index([Message("user", (Block.text("t"), Block.text("u")))]) == 0
    assert first_user_index([assistant("a")]) is None


def test_history_budget_ignores_max_output_and_needs_a_window():
    assert history_budget(TokenLimits.from_endpoint(128000, 8192), 4096) == 115712
    assert history_budget(TokenLimits.from_preset(12288, None), 4096) == 0
    assert history_budget(TokenLimits.from_preset(12289, None), 4096) == 1
    assert history_budget(TokenLimits.from_preset(1000, None), 4096) == 0
    assert history_budget(TokenLimits.from_preset(None, 8192), 4096) is None
    assert history_budget(None, 4096) is None


def test_retry_budget_is_half_the_estimate_floored():
    assert retry_budget([user("hi")]) == 6
    assert retry_budget([]) == 0


def test_the_upstream_retry_loop_budgets_fall_and_keep_the_task():
    history = [user("任务")]
    for _ in range(8):
        history += [assistant("x" * 2000), user("y" * 2000)]
    result = caller_retry_loop(history)
    assert [a.budget for a in result.attempts] == [8103, 3548, 1524]
    assert all(a.kept_indices[0] == 0 for a in result.attempts)
    assert result.messages[0].content == "任务"
    assert estimate_tokens(result.messages) <= result.estimate_before // 2


def test_a_single_plain_message_ends_the_retry_loop_at_once():
    result = caller_retry_loop([user("just one")])
    assert len(result.attempts) == 1
    assert result.attempts[0].dropped == 0
    assert result.gave_up
    assert result.kept_indices == (0,)


def test_retry_rounds_report_indices_into_the_original_history():
    history = [user("task"), *(assistant(str(i) * 300) for i in range(6))]
    result = caller_retry_loop(history, 3)
    for attempt in result.attempts:
        assert set(attempt.kept_indices) <= set(range(len(history)))
    assert tuple(history[i] for i in result.kept_indices) == result.messages
