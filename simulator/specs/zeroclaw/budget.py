"""ZeroClaw's budget and why (``resolve_budget``: PR 9535's model-relative budget, or master's fixed one)."""

from __future__ import annotations

from simulator.replay.model import BudgetExplanation
from simulator.runtimes.zeroclaw import resolve_budget
from simulator.runtimes.zeroclaw.settings import ZeroClawSettings


def explain_budget(settings: ZeroClawSettings) -> BudgetExplanation:
    r = resolve_budget(settings)
    return BudgetExplanation(
        r.budget,
        r.bound_by,
        r.steps,
        r.window,
        r.window_source,
        summary=f"bound by {r.bound_by}: " + " → ".join(r.steps),
    )
