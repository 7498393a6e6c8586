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


def explain_budget(settings: OpenClawSettings) -> BudgetExplanation:
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
