"""ZeroClaw's reactive overflow recovery with literal figures, in both versions.

Sizes: ``ceil(bytes / 4) + 4`` tokens a message; the breadcrumb costs 17.
"""

from __future__ import annotations

from simulator.runtimes import zeroclaw as zc
from simulator.runtimes.zeroclaw import ChatMessage

CRUMB = zc.breadcrumb()
OVERFLOW = "prompt is too long"
SYS = ChatMessage("system", "s" * 16)  # 8 tokens
# 8 + 17 + 14 + 14 + 5 + 5 = 63 tokens; the recovery budget is 63 * 2 // 3 = 42.
CRUMBED = [
    SYS,
    CRUMB,
    ChatMessage("user", "a" * 40),
    ChatMessage("assistant", "b" * 40),
    ChatMessage("user", "c" * 4),
    ChatMessage("assistant", "d" * 4),
]


def test_an_error_that_is_not_an_overflow_changes_nothing_and_keeps_the_flag():
    history = [ChatMessage("user", "u")]
    plain = zc.recover_context_overflow(history, "boom", 100)
    assert (plain.recovered, plain.history, plain.event, plain.recovery_budget) == (
        False,
        tuple(history),
        None,
        None,
    )
    assert (plain.kept_indices, plain.has_leading_breadcrumb) == ((0,), False)
    flagged = zc.recover_context_overflow(history, "boom", 100, has_leading_breadcrumb=True)
    assert (flagged.kept_indices, flagged.has_leading_breadcrumb) == ((0,), True)


def test_a_system_floor_equal_to_the_budget_gets_the_floor_remediation():
    result = zc.recover_context_overflow([SYS, ChatMessage("user", "uuuu")], OVERFLOW, 8)
    assert (result.recovered, result.recovery_budget, result.system_floor, result.floor_exceeds_budget) == (
        False,
        8,
        8,
        True,
    )
    assert result.log == (
        "system prompt and tool definitions (8 tokens) alone meet or exceed the context budget (8 tokens); "
        "raise [runtime_profiles.<name>] max_context_tokens or reduce the tool surface by disabling unused "
        "integrations"
    )
    assert result.kept_indices == (0, 1)


def test_a_floor_below_the_budget_says_only_the_newest_turn_is_left():
    result = zc.recover_context_overflow([SYS, ChatMessage("user", "uuuu")], OVERFLOW, 9)
    assert (result.recovered, result.floor_exceeds_budget) == (False, False)
    assert (
        result.log == "context window exceeded but only the newest turn is left; nothing more can be trimmed"
    )


def test_the_documented_version_keeps_a_flagged_breadcrumb_and_does_not_insert_another():
    result = zc.recover_context_overflow(
        CRUMBED, OVERFLOW, 1000, version="documented", has_leading_breadcrumb=True
    )
    assert result.history == (SYS, CRUMB, CRUMBED[4], CRUMBED[5])
    assert (result.recovery_budget, result.tokens_before, result.tokens_after_trim) == (42, 63, 35)
    assert (result.kept_indices, result.has_leading_breadcrumb) == ((0, 1, 4, 5), True)
    assert result.event == zc.HistoryTrimmed.budget(2, 1)


def test_the_upstream_version_counts_the_breadcrumb_as_a_turn_and_inserts_a_new_one():
    result = zc.recover_context_overflow(CRUMBED, OVERFLOW, 1000, has_leading_breadcrumb=True)
    assert result.history == (SYS, CRUMB, CRUMBED[4], CRUMBED[5])
    assert (result.recovery_budget, result.tokens_before, result.tokens_after_trim) == (42, 63, 18)
    assert (result.kept_indices, result.has_leading_breadcrumb) == ((0, 4, 5), True)
    assert result.event == zc.HistoryTrimmed.budget(3, 1)


def test_an_overflow_that_cannot_be_reduced_keeps_the_breadcrumb_flag():
    result = zc.recover_context_overflow(
        [SYS, ChatMessage("user", "uuuu")], OVERFLOW, 8, has_leading_breadcrumb=True
    )
    assert (result.recovered, result.has_leading_breadcrumb) == (False, True)


def test_legacy_trim_at_the_cap_leaves_even_a_late_system_message_in_place():
    history = [ChatMessage("user", "u"), ChatMessage("system", "x"), ChatMessage("assistant", "a")]
    result = zc.trim_history(history, 3)
    assert (result.history, result.dropped, result.kept_indices) == (tuple(history), 0, (0, 1, 2))


def test_legacy_trim_without_a_user_drops_the_oldest_excess():
    history = [ChatMessage("assistant", "a"), ChatMessage("assistant", "b"), ChatMessage("assistant", "c")]
    result = zc.trim_history(history, 1)
    assert (result.history, result.dropped, result.kept_indices) == ((history[2],), 2, (2,))


def test_legacy_trim_with_nothing_between_anchor_and_tail_drops_the_oldest_excess():
    history = [
        ChatMessage("system", "s"),
        ChatMessage("assistant", "p"),
        ChatMessage("user", "u"),
        ChatMessage("assistant", "a"),
        ChatMessage("user", "v"),
    ]
    result = zc.trim_history(history, 3)
    assert (result.history, result.dropped, result.kept_indices) == ((history[0], *history[2:]), 1, (2, 3, 4))
