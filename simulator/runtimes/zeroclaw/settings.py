"""Every ZeroClaw knob the history-management code reads, named as in ZeroClaw's config.

``runtime_profiles.<name>.max_context_tokens`` (``None`` = unset: master defaults it to 32,000, PR 9535
derives it from the model window), ``context_compact_ratio`` (PR 9535), ``history_pruning.enabled`` /
``history_pruning.max_tokens``, ``max_history_messages`` (master: structured message cap, default
``max(50, 2 * max_tool_iterations + 2)``; PR 9368: turns, default 50), ``max_tool_iterations`` (default
10), ``max_tool_result_chars`` (0 = no truncation), and the provider profile's ``context_window`` and
``model`` (PR 9535 uses the window only when that model matches the selected one).

``version`` picks the behaviour: ``"documented"`` (default; PR 9368 + PR 9535 + PR 9379, what the
history-management docs describe) or ``"upstream"`` (master 15d28660).

Divergence: ``max_tool_result_chars`` has no verified upstream default here, so 0 (off) is used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from simulator.errors import ProfileError

Version: TypeAlias = Literal["documented", "upstream"]
VERSIONS: tuple[Version, ...] = ("documented", "upstream")

DEFAULT_MAX_TOOL_ITERATIONS = 10
DEFAULT_HISTORY_TURNS = 50
"""PR 9368 ``max_history_messages`` default, in turns."""
LEGACY_MAX_HISTORY_MESSAGES = 50
"""Master floor of the structured message cap (and the raw legacy path's default)."""

_MAX_TOKENS = 2**63 - 1


@dataclass(frozen=True, slots=True)
class ZeroClawSettings:
    """The knobs of one ZeroClaw runtime profile plus the selected provider route."""

    max_context_tokens: int | None = None
    context_compact_ratio: float | None = None
    history_pruning_enabled: bool = False
    history_pruning_max_tokens: int = 0
    max_history_messages: int | None = None
    max_tool_iterations: int = DEFAULT_MAX_TOOL_ITERATIONS
    max_tool_result_chars: int = 0
    context_window: int | None = None
    """Provider profile ``context_window`` (tokens); ``None`` or 0 = not declared."""
    provider_model: str | None = None
    """The model the provider profile declares its ``context_window`` for."""
    model: str | None = None
    """The model selected for this route."""
    version: Version = "documented"

    def validate(self) -> ZeroClawSettings:
        """Check every knob's type and range.

        Returns:
            ``self``, so calls can be chained.

        Raises:
            ProfileError: Naming the first bad field and its allowed range.
        """
        _check_count("max_context_tokens", self.max_context_tokens, optional=True)
        ratio = self.context_compact_ratio
        # Out-of-range ratios are legal config: ZeroClaw ignores them, and simulating that matters.
        if ratio is not None and (isinstance(ratio, bool) or not isinstance(ratio, int | float)):
            raise ProfileError(
                "context_compact_ratio",
                f"must be a number, got {ratio!r}",
                allowed="a number; only (0, 1] takes effect",
            )
        if not isinstance(self.history_pruning_enabled, bool):
            raise ProfileError("history_pruning_enabled", "must be true or false", allowed="true, false")
        _check_count("history_pruning_max_tokens", self.history_pruning_max_tokens)
        _check_count("max_history_messages", self.max_history_messages, optional=True)
        _check_count("max_tool_iterations", self.max_tool_iterations)
        _check_count("max_tool_result_chars", self.max_tool_result_chars)
        _check_count("context_window", self.context_window, optional=True)
        for name, text in (("provider_model", self.provider_model), ("model", self.model)):
            if text is not None and not isinstance(text, str):
                raise ProfileError(name, f"must be a string, got {text!r}", allowed="a model name")
        if self.version not in VERSIONS:
            raise ProfileError("version", f"unknown version {self.version!r}", allowed=", ".join(VERSIONS))
        return self

    def effective_max_history_messages(self) -> int:
        """The history cap the structured path uses.

        Returns:
            Documented: turns, the explicit value or 50. Upstream
            (``Config::effective_max_history_messages``): messages, the explicit value (0 included)
            or ``max(50, 2 * max_tool_iterations + 2)``.
        """
        if self.max_history_messages is not None:
            return self.max_history_messages
        if self.version == "documented":
            return DEFAULT_HISTORY_TURNS
        return max(LEGACY_MAX_HISTORY_MESSAGES, 2 * self.max_tool_iterations + 2)


def _check_count(field: str, value: int | None, *, optional: bool = False) -> None:
    allowed = f"an integer from 0 to {_MAX_TOKENS}" + (", or unset" if optional else "")
    if value is None:
        if optional:
            return
        raise ProfileError(field, "is required", allowed=allowed)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProfileError(field, f"must be an integer, got {value!r}", allowed=allowed)
    if not 0 <= value <= _MAX_TOKENS:
        raise ProfileError(field, f"{value} is out of range", allowed=allowed)
