"""Context-budget resolution that explains itself, for both ZeroClaw versions.

Upstream master 15d28660 (``ResolvedRuntime::effective_context_budget``): ``max_context_tokens``
(default 32,000); when ``history_pruning.enabled`` and ``history_pruning.max_tokens > 0`` the budget
is the smaller of the two. No model-capacity cap; 0 disables trimming.

Documented (PR 9535 head 25f28a89, ``context_limits_for_model_window``), applied in order:

1. an unknown window (<= 0) becomes 32,000 (the source label is kept as given);
2. ``max_context_tokens == 0`` disables trimming (ratio and pruning ignored);
3. ``context_compact_ratio`` counts only inside (0, 1] (0, negatives, > 1 and NaN are "unset");
4. with a ratio: ``max(1, floor(window * ratio))``, lowered by an absolute ``max_context_tokens``;
   without: ``max_context_tokens`` or the legacy 32,000;
5. ``history_pruning.max_tokens`` (when enabled and > 0) only lowers;
6. everything is capped by the model window.

The provider profile's ``context_window`` counts only when positive and the selected model is empty,
the profile declares no model, or both names match after trimming; otherwise the window is the 32,000
compatibility fallback (and wire clients get no ``model_context_window``).

Every resolution records which knob bound the budget and a readable step list; upstream has neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from simulator.jsonvalue import JSON
from simulator.runtimes.zeroclaw.settings import ZeroClawSettings

WindowSource: TypeAlias = Literal["Configured", "CompatibilityFallback"]
BudgetBinding: TypeAlias = Literal[
    "ratio", "max_context_tokens", "history_pruning", "window", "fallback", "disabled"
]

LEGACY_CONTEXT_TOKENS = 32_000
"""Master's default ``max_context_tokens`` and PR 9535's fallback window and budget."""


@dataclass(frozen=True, slots=True)
class BudgetResolution:
    """A resolved context budget and how it came about.

    ``window``/``window_source`` are ``None`` for the upstream version, which has no model window.
    ``bound_by`` names the knob that set the final value; ``steps`` reads like a derivation.
    """

    budget: int
    window: int | None
    window_source: WindowSource | None
    bound_by: BudgetBinding
    steps: tuple[str, ...]

    @property
    def configured_window(self) -> int | None:
        """The window wire clients see: only a ``Configured`` one."""
        return self.window if self.window_source == "Configured" else None

    @property
    def disabled(self) -> bool:
        """Budget 0 turns token trimming off."""
        return self.budget == 0

    def to_limits_json(self) -> JSON:
        """PR 9535 ``ResolvedContextLimits`` shape."""
        return {
            "effective_context_budget": self.budget,
            "model_context_window": self.window,
            "model_context_window_source": self.window_source,
            "configured_model_context_window": self.configured_window,
        }


def _n(value: int) -> str:
    return f"{value:,}"


class _Derivation:
    """Accumulates the running budget with its binding knob and readable steps."""

    def __init__(self) -> None:
        self.budget = 0
        self.bound_by: BudgetBinding = "fallback"
        self.steps: list[str] = []

    def set(self, value: int, bound_by: BudgetBinding, step: str) -> None:
        self.budget = value
        self.bound_by = bound_by
        self.steps.append(step)

    def lower(self, limit: int, bound_by: BudgetBinding, what: str) -> None:
        if limit < self.budget:
            self.set(limit, bound_by, f"lowered by {what} to {_n(limit)}")
        else:
            self.steps.append(f"{what} {_n(limit)} does not lower it")

    def result(self, window: int | None, source: WindowSource | None) -> BudgetResolution:
        return BudgetResolution(self.budget, window, source, self.bound_by, tuple(self.steps))


def effective_context_budget(
    max_context_tokens: int | None,
    history_pruning_enabled: bool = False,
    history_pruning_max_tokens: int = 0,
) -> BudgetResolution:
    """Upstream master ``ResolvedRuntime::effective_context_budget``.

    Args:
        max_context_tokens: The runtime profile's absolute budget; ``None`` means the 32,000 default.
        history_pruning_enabled: ``history_pruning.enabled``.
        history_pruning_max_tokens: ``history_pruning.max_tokens``.

    Returns:
        The budget with its explanation (no model window on master).
    """
    d = _Derivation()
    if max_context_tokens is None:
        d.set(
            LEGACY_CONTEXT_TOKENS,
            "fallback",
            f"max_context_tokens unset: default {_n(LEGACY_CONTEXT_TOKENS)}",
        )
    else:
        d.set(max_context_tokens, "max_context_tokens", f"max_context_tokens {_n(max_context_tokens)}")
    if d.budget == 0:
        d.set(0, "disabled", "max_context_tokens = 0 disables token trimming")
        return d.result(None, None)
    if history_pruning_enabled and history_pruning_max_tokens > 0:
        d.lower(history_pruning_max_tokens, "history_pruning", "history_pruning.max_tokens")
    return d.result(None, None)


def is_valid_compact_ratio(ratio: float | None) -> bool:
    """PR 9535: a ratio takes effect only inside (0, 1]; NaN fails both comparisons."""
    return ratio is not None and 0.0 < ratio <= 1.0


def context_limits_for_model_window(
    model_context_window: int,
    window_source: WindowSource,
    *,
    max_context_tokens: int | None = None,
    context_compact_ratio: float | None = None,
    history_pruning_enabled: bool = False,
    history_pruning_max_tokens: int = 0,
) -> BudgetResolution:
    """PR 9535 ``context_limits_for_model_window``: the model-relative budget.

    Args:
        model_context_window: The route's model window; <= 0 means unknown (32,000 is used).
        window_source: Where the window came from; kept as given.
        max_context_tokens: Absolute budget, ``None`` when unset; 0 disables trimming.
        context_compact_ratio: Fraction of the window; only (0, 1] takes effect.
        history_pruning_enabled: ``history_pruning.enabled``.
        history_pruning_max_tokens: ``history_pruning.max_tokens`` (only lowers the budget).

    Returns:
        The budget, the window and the explanation.
    """
    d = _Derivation()
    if model_context_window > 0:
        window = model_context_window
        d.steps.append(f"model window {_n(window)} ({window_source})")
    else:
        window = LEGACY_CONTEXT_TOKENS
        d.steps.append(f"model window unknown: {_n(window)} fallback ({window_source})")

    if max_context_tokens == 0:
        d.set(0, "disabled", "max_context_tokens = 0 disables token trimming")
        return d.result(window, window_source)

    if is_valid_compact_ratio(context_compact_ratio) and context_compact_ratio is not None:
        scaled = max(1, int(window * context_compact_ratio))
        d.set(scaled, "ratio", f"ratio {context_compact_ratio:g} × window {_n(window)} = {_n(scaled)}")
        if max_context_tokens is not None:
            d.lower(max_context_tokens, "max_context_tokens", "max_context_tokens")
    else:
        if context_compact_ratio is not None:
            d.steps.append(f"context_compact_ratio {context_compact_ratio:g} is outside (0, 1] and ignored")
        if max_context_tokens is not None:
            d.set(max_context_tokens, "max_context_tokens", f"max_context_tokens {_n(max_context_tokens)}")
        else:
            d.set(
                LEGACY_CONTEXT_TOKENS,
                "fallback",
                f"no ratio and no max_context_tokens: legacy {_n(LEGACY_CONTEXT_TOKENS)}",
            )

    if history_pruning_enabled and history_pruning_max_tokens > 0:
        d.lower(history_pruning_max_tokens, "history_pruning", "history_pruning.max_tokens")
    if window < d.budget:
        d.set(window, "window", f"capped by the model window to {_n(window)}")
    return d.result(window, window_source)


def legacy_fallback(budget: int) -> BudgetResolution:
    """PR 9535 ``ResolvedContextLimits::legacy_fallback``: 32,000 window, budget capped by it.

    Args:
        budget: A pre-resolved budget; 0 stays 0 (disabled).

    Returns:
        The resolution with a ``CompatibilityFallback`` window.
    """
    d = _Derivation()
    d.steps.append(f"model window unknown: {_n(LEGACY_CONTEXT_TOKENS)} fallback (CompatibilityFallback)")
    if budget == 0:
        d.set(0, "disabled", "budget 0 disables token trimming")
    else:
        d.set(budget, "max_context_tokens", f"budget {_n(budget)}")
        if budget > LEGACY_CONTEXT_TOKENS:
            d.set(
                LEGACY_CONTEXT_TOKENS, "window", f"capped by the model window to {_n(LEGACY_CONTEXT_TOKENS)}"
            )
    return d.result(LEGACY_CONTEXT_TOKENS, "CompatibilityFallback")


def resolve_model_context_window(
    context_window: int | None, provider_model: str | None, selected_model: str | None
) -> tuple[int, WindowSource]:
    """PR 9535 capacity resolution for a route.

    Args:
        context_window: The provider profile's declared ``context_window``.
        provider_model: The model the profile declares (``None``/blank = any model).
        selected_model: The model selected for the route (``None``/blank = unspecified).

    Returns:
        ``(window, "Configured")`` when the declared window applies, else
        ``(32000, "CompatibilityFallback")``.
    """
    selected = (selected_model or "").strip()
    declared = (provider_model or "").strip()
    if (
        context_window is not None
        and context_window > 0
        and (not selected or not declared or declared == selected)
    ):
        return context_window, "Configured"
    return LEGACY_CONTEXT_TOKENS, "CompatibilityFallback"


def resolve_budget(settings: ZeroClawSettings) -> BudgetResolution:
    """The effective context budget for a profile, in the profile's selected version.

    Args:
        settings: The runtime knobs.

    Returns:
        The resolution; for ``"upstream"`` the window fields are ``None``.
    """
    if settings.version == "upstream":
        return effective_context_budget(
            settings.max_context_tokens, settings.history_pruning_enabled, settings.history_pruning_max_tokens
        )
    window, source = resolve_model_context_window(
        settings.context_window, settings.provider_model, settings.model
    )
    return context_limits_for_model_window(
        window,
        source,
        max_context_tokens=settings.max_context_tokens,
        context_compact_ratio=settings.context_compact_ratio,
        history_pruning_enabled=settings.history_pruning_enabled,
        history_pruning_max_tokens=settings.history_pruning_max_tokens,
    )
