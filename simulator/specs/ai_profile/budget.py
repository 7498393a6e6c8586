"""ai-profile's history budget and why (``history_budget``: window − max_tokens − 8,192 overhead)."""

from __future__ import annotations

from simulator.replay.common import fmt
from simulator.replay.model import BudgetExplanation
from simulator.runtimes.ai_profile import OVERHEAD_TOKENS, AiProfileSettings


def explain_budget(settings: AiProfileSettings) -> BudgetExplanation:
    limits = settings.limits()
    budget = settings.history_budget()
    max_tokens = settings.effective_max_tokens()
    if budget is None or limits.context_window is None:
        return BudgetExplanation(
            None,
            "unknown window",
            (
                "no layer (user, endpoint, preset) knows the context window: no proactive trimming, "
                "only the overflow retry",
            ),
            summary="no context window known: nothing trimmed up front, only the overflow retry",
        )
    window = limits.context_window
    source = limits.context_window_source.value if limits.context_window_source else "unknown"
    steps = [f"context window {fmt(window)} (from the {source} layer)"]
    if max_tokens != settings.max_tokens:
        steps.append(f"max_tokens {fmt(settings.max_tokens)} lowered to max_output {fmt(max_tokens)}")
    steps.append(f"{fmt(window)} − max_tokens {fmt(max_tokens)} − overhead 8,192 = {fmt(budget)}")
    lowered = (
        f" (max_tokens {settings.max_tokens:,} lowered to maxOutput)"
        if max_tokens < settings.max_tokens
        else ""
    )
    summary = (
        f"window {window:,} ({source}) − max_tokens {max_tokens:,}{lowered}"
        f" − overhead {OVERHEAD_TOKENS:,} = {budget:,}"
    )
    return BudgetExplanation(
        budget, f"{source} context window", tuple(steps), window, source, summary=summary
    )
