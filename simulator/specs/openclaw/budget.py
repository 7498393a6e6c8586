"""OpenClaw's pruning thresholds and why: soft trim and hard clear as ratios of the window, after the TTL.

OpenClaw has no history budget: the pruner compares the context's size (chars) to ratios of the
context window, so the one-line summary leads with the window.
"""

from __future__ import annotations

import math

from simulator.replay.common import fmt
from simulator.replay.model import BudgetExplanation
from simulator.runtimes.openclaw.settings import EffectivePruningSettings, OpenClawSettings

CHARS_PER_TOKEN = 4
DEFAULT_WINDOW = 200_000


def duration(ms: float) -> str:
    """A duration as the notes show it: ``42s``, ``5m 00s``, ``1h 05m``."""
    seconds = int(ms // 1000)
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m {seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def _ttl(ms: float) -> str:
    for unit, size in (("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if ms >= size and ms % size == 0:
            return f"{ms / size:g}{unit}"
    return f"{ms:g}ms"


def _summary(window: int, effective: EffectivePruningSettings) -> str:
    chars = window * CHARS_PER_TOKEN
    hard = (
        f"hard-clear at {effective.hard_clear_ratio:g} "
        f"({math.floor(chars * effective.hard_clear_ratio):,} chars) "
        f"once ≥ {effective.min_prunable_tool_chars:,.0f} prunable tool chars"
        if effective.hard_clear.enabled
        else "hard-clear disabled"
    )
    return (
        f"ttl {_ttl(effective.ttl_ms)} · soft-trim at {effective.soft_trim_ratio:g} "
        f"({math.floor(chars * effective.soft_trim_ratio):,} chars) · {hard} · "
        f"keep last {effective.keep_last_assistants:g} assistants"
    )


def _explain_2026_9_6(settings: OpenClawSettings) -> BudgetExplanation:
    """2026.9.6: fixed ratios of the attempt's budget; sticky projections; provider-side compaction."""
    r = settings.route
    window = r.context_token_budget or settings.model_context_window or DEFAULT_WINDOW
    source = (
        "trimscope.contextTokenBudget"
        if r.context_token_budget
        else "model.contextWindow"
        if settings.model_context_window
        else "default 200,000"
    )
    summary_tokens = r.compaction_summary_tokens if r.compaction_summary_tokens is not None else 2_000
    compaction = (
        "provider-side compaction (OpenAI Responses, on by default for direct OpenAI; threshold "
        "0.7 × min(contextTokens, contextWindow), else 80,000; Anthropic compact-2026-01-12 opt-in) is "
        f"marked where it fires; later calls send a ~{fmt(summary_tokens)}-token summary"
    )
    if settings.mode != "cache-ttl":
        return BudgetExplanation(
            None,
            "pruning off",
            ("contextPruning.mode is off: nothing is pruned", compaction),
            window,
            source,
            summary=f"2026.9.6 · pruning off (mode {settings.mode or 'unset'})",
            headline="window",
        )
    soft = math.floor(window * 0.3)
    hard = math.floor(window * 0.5)
    hard_on = settings.hardClear.enabled is not False
    effective = settings.effective()
    ttl_ms = effective.ttl_ms if effective is not None else 300_000
    steps = (
        f"window {fmt(window)} tokens ({source}), the attempt's context budget",
        f"soft trim of old tool results from ratio 0.3 (≈ {fmt(soft)} tokens; fixed in 2026.9.6)",
        f"hard clear from ratio 0.5 (≈ {fmt(hard)} tokens; fixed)" + ("" if hard_on else " — disabled"),
        f"only after the cache TTL ({duration(ttl_ms)}) has expired; the last 3 assistant turns are "
        "protected; a trimmed or cleared result is sent the same way on every later call",
        compaction,
    )
    return BudgetExplanation(
        soft,
        "0.3 × window (fixed)",
        steps,
        window,
        source,
        summary=f"2026.9.6 · ttl {_ttl(ttl_ms)} · soft-trim at 0.3 · "
        + ("hard-clear at 0.5" if hard_on else "hard-clear disabled")
        + " · keep last 3 assistants (fixed)",
        headline="window",
    )


def explain_budget(settings: OpenClawSettings) -> BudgetExplanation:
    if settings.version == "2026.9.6":
        return _explain_2026_9_6(settings)
    effective = settings.effective()
    window = settings.context_window_tokens()
    source = "model.contextWindow" if settings.model_context_window else "default 200,000"
    if settings.context_tokens and settings.context_tokens < (
        settings.model_context_window or DEFAULT_WINDOW
    ):
        source = "agents.defaults.contextTokens"
    if effective is None:
        return BudgetExplanation(
            None,
            "pruning off",
            ("contextPruning.mode is off: nothing is pruned",),
            window,
            source,
            summary=f"pruning off (mode {settings.mode or 'unset'}): nothing is pruned",
            headline="window",
        )
    soft = math.floor(window * effective.soft_trim_ratio)
    hard = math.floor(window * effective.hard_clear_ratio)
    steps = (
        f"window {fmt(window)} tokens ({source}) × 4 chars = {fmt(window * CHARS_PER_TOKEN)} chars",
        f"soft trim of old tool results from ratio {effective.soft_trim_ratio:g} (≈ {fmt(soft)} tokens)",
        f"hard clear from ratio {effective.hard_clear_ratio:g} (≈ {fmt(hard)} tokens)"
        + ("" if effective.hard_clear.enabled else " — disabled"),
        f"only after the cache TTL ({duration(effective.ttl_ms)}) has expired; "
        f"the last {effective.keep_last_assistants:g} assistant turns are protected",
    )
    return BudgetExplanation(
        soft,
        "softTrimRatio × window",
        steps,
        window,
        source,
        summary=_summary(window, effective),
        headline="window",
    )
