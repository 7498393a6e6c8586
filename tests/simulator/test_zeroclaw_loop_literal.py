"""ZeroClaw's turn-loop floor warning at its boundaries (spec section 9: budget > 0 and floor >= budget)."""

from __future__ import annotations

from simulator.runtimes.zeroclaw import ChatMessage
from simulator.runtimes.zeroclaw.breadcrumb import breadcrumb
from simulator.runtimes.zeroclaw.events import HistoryTrimmed
from simulator.runtimes.zeroclaw.loop import enforce_reported_budget, floor_warning, preflight_iteration

# 40 bytes of system prompt: ceil(40 / 4) + 4 = 14 tokens of floor; the user turn does not count.
HISTORY = [ChatMessage("system", "s" * 40), ChatMessage("user", "hello " * 50)]


def warning(floor: int, budget: int) -> str:
    return (
        f"system prompt and tool definitions ({floor} tokens) alone meet or exceed the context budget "
        f"({budget} tokens); raise [runtime_profiles.<name>] max_context_tokens or reduce the tool surface "
        "by disabling unused integrations"
    )


def test_a_floor_equal_to_the_budget_warns_with_both_figures():
    assert floor_warning(HISTORY, 14) == warning(14, 14)


def test_a_floor_below_the_budget_does_not_warn():
    assert floor_warning(HISTORY, 15) is None


def test_a_budget_of_one_token_is_a_positive_budget_and_warns():
    assert floor_warning(HISTORY, 1) == warning(14, 1)


def test_a_budget_of_zero_is_trimming_off_and_never_warns():
    assert floor_warning(HISTORY, 0) is None


CRUMB = breadcrumb()
SYS = ChatMessage("system", "s")  # 5 tokens, as is every message below but the breadcrumb (17)


def user(text: str) -> ChatMessage:
    return ChatMessage("user", text)


def asst(text: str) -> ChatMessage:
    return ChatMessage("assistant", text)


def test_an_untrimmed_documented_step_keeps_the_owners_flag_whatever_the_text():
    history = [SYS, CRUMB, user("q"), asst("r")]
    for flag in (False, True):
        step = preflight_iteration(
            history, 1_000, iteration=1, version="documented", has_leading_breadcrumb=flag
        )
        assert (step.history, step.source_indices, step.has_leading_breadcrumb) == (
            tuple(history),
            (0, 1, 2, 3),
            flag,
        )
        assert (step.event, step.warnings, step.trim is not None) == (None, (), True)
        assert step.trim is not None and (step.trim.trimmed, step.trim.kept_indices) == (False, (0, 1, 2, 3))


def test_an_untrimmed_upstream_step_reads_the_flag_from_the_text_after_the_systems():
    with_crumb = preflight_iteration([SYS, CRUMB, user("q")], 1_000, iteration=1, version="upstream")
    without = preflight_iteration([SYS, user("q")], 1_000, iteration=1, version="upstream")
    assert (with_crumb.has_leading_breadcrumb, without.has_leading_breadcrumb) == (True, False)


def test_the_default_version_is_documented_and_trusts_the_flag():
    step = preflight_iteration([SYS, CRUMB, user("q")], 1_000, iteration=1)
    assert step.has_leading_breadcrumb is False


def test_a_documented_trim_always_inserts_while_upstream_dedupes_by_text():
    # The newest turn starts with a user message that reads like the breadcrumb.
    history = [SYS, user("old " * 40), asst("x"), CRUMB, asst("b")]
    documented = preflight_iteration(history, 20, iteration=1, version="documented")
    upstream = preflight_iteration(history, 20, iteration=1, version="upstream")
    assert (documented.history, documented.source_indices) == (
        (SYS, CRUMB, CRUMB, asst("b")),
        (0, None, 3, 4),
    )
    assert (upstream.history, upstream.source_indices) == ((SYS, CRUMB, asst("b")), (0, 3, 4))
    assert documented.event == upstream.event == HistoryTrimmed(2, 1, "context token budget exceeded")
    assert documented.has_leading_breadcrumb is upstream.has_leading_breadcrumb is True


HISTORY_5 = [SYS, user("one"), asst("r1"), user("two"), asst("r2")]  # 25 estimated tokens


def test_a_reported_overrun_trims_inserts_the_breadcrumb_and_rescales_to_the_report():
    for version in ("documented", "upstream"):
        step = enforce_reported_budget(HISTORY_5, 100, 400, version=version)
        assert step.history == (SYS, CRUMB, user("two"), asst("r2"))
        assert (step.source_indices, step.has_leading_breadcrumb, step.warnings) == (
            (0, None, 3, 4),
            True,
            (),
        )
        assert step.event == HistoryTrimmed(2, 1, "context token budget exceeded")
        assert step.trim is not None
        assert (step.trim.tokens_before, step.trim.tokens_after, step.trim.kept_indices) == (
            400,
            240,
            (0, 3, 4),
        )


def test_the_documented_report_trim_keeps_a_flagged_breadcrumb_and_does_not_count_it():
    history = [SYS, CRUMB, *HISTORY_5[1:]]  # 42 estimated tokens
    step = enforce_reported_budget(history, 100, 400, version="documented", has_leading_breadcrumb=True)
    assert (step.history, step.source_indices) == ((SYS, CRUMB, user("two"), asst("r2")), (0, 1, 4, 5))
    assert step.event == HistoryTrimmed(2, 1, "context token budget exceeded")
    assert step.trim is not None and (step.trim.tokens_after, step.trim.dropped_turns) == (305, 1)


def test_the_upstream_report_trim_drops_an_old_breadcrumb_as_a_turn_and_inserts_a_new_one():
    history = [SYS, CRUMB, *HISTORY_5[1:]]
    step = enforce_reported_budget(history, 100, 400, version="upstream", has_leading_breadcrumb=True)
    assert (step.history, step.source_indices) == ((SYS, CRUMB, user("two"), asst("r2")), (0, None, 4, 5))
    assert step.event == HistoryTrimmed(3, 1, "context token budget exceeded")
    assert step.trim is not None and (step.trim.tokens_after, step.trim.dropped_turns) == (143, 2)


def test_the_report_trim_defaults_to_the_documented_version_without_a_flag():
    history = [SYS, CRUMB, *HISTORY_5[1:]]
    assert enforce_reported_budget(history, 100, 400) == enforce_reported_budget(
        history, 100, 400, version="documented", has_leading_breadcrumb=False
    )
    assert enforce_reported_budget(history, 100, 400) != enforce_reported_budget(
        history, 100, 400, version="documented", has_leading_breadcrumb=True
    )
    untrimmed = [SYS, CRUMB, user("q")]
    assert enforce_reported_budget(untrimmed, 400, 400).has_leading_breadcrumb is False
    assert enforce_reported_budget(untrimmed, 400, 400, version="upstream").has_leading_breadcrumb is True


def test_a_report_within_the_budget_changes_nothing():
    step = enforce_reported_budget(HISTORY_5, 400, 400, version="upstream")
    assert (step.history, step.source_indices, step.event, step.has_leading_breadcrumb) == (
        tuple(HISTORY_5),
        (0, 1, 2, 3, 4),
        None,
        False,
    )
