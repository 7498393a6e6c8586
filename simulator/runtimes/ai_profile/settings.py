"""Every knob the ai-profile history policy reads, in one frozen settings object.

Upstream: ``bkywksj/ai-profile`` 0.1.7. The three limit layers mirror how an app using the crate
builds ``TokenLimits``: what the user configured, what the endpoint's ``/models`` reported, and the
built-in preset for the model (here "model" window/output). ``max_tokens`` is the output cap the
app requests; following ``examples/trim_history.rs`` it is capped by the merged ``max_output`` when that
is known before the history budget is computed. ``max_attempts`` is the documented retry count (3).

Deliberate divergences: upstream has no settings type; the bounds in :meth:`AiProfileSettings.validate`
are the ``u32`` ranges of the crate plus a simulator-chosen ceiling of 10 retry attempts.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulator.errors import ProfileError
from simulator.runtimes.ai_profile.budget import history_budget
from simulator.runtimes.ai_profile.estimate import U32_MAX
from simulator.runtimes.ai_profile.limits import TokenLimits, merge_limits
from simulator.runtimes.ai_profile.retry import DEFAULT_MAX_ATTEMPTS

MAX_ATTEMPTS_CEILING = 10
_U32_RANGE = f"an integer from 0 to {U32_MAX}"


@dataclass(frozen=True, slots=True)
class AiProfileSettings:
    """Knobs of the ai-profile policy; ``None`` limit values mean "not known at this layer"."""

    max_tokens: int = 4096
    user_context_window: int | None = None
    user_max_output: int | None = None
    endpoint_context_window: int | None = None
    endpoint_max_output: int | None = None
    model_context_window: int | None = None
    model_max_output: int | None = None
    max_attempts: int = DEFAULT_MAX_ATTEMPTS

    def validate(self) -> None:
        """Check every knob's type and range.

        Raises:
            ProfileError: Naming the first bad field and its allowed range.
        """
        _require_int("max_tokens", self.max_tokens, 0, U32_MAX, _U32_RANGE)
        optional = (
            ("user_context_window", self.user_context_window),
            ("user_max_output", self.user_max_output),
            ("endpoint_context_window", self.endpoint_context_window),
            ("endpoint_max_output", self.endpoint_max_output),
            ("model_context_window", self.model_context_window),
            ("model_max_output", self.model_max_output),
        )
        for name, value in optional:
            if value is not None:
                _require_int(name, value, 0, U32_MAX, f"null or {_U32_RANGE}")
        _require_int(
            "max_attempts",
            self.max_attempts,
            0,
            MAX_ATTEMPTS_CEILING,
            f"an integer from 0 to {MAX_ATTEMPTS_CEILING} (upstream documents 3)",
        )

    def layers(self) -> tuple[TokenLimits, TokenLimits, TokenLimits]:
        """The user, endpoint and preset layers, highest priority first."""
        return (
            TokenLimits.from_user(self.user_context_window, self.user_max_output),
            TokenLimits.from_endpoint(self.endpoint_context_window, self.endpoint_max_output),
            TokenLimits.from_preset(self.model_context_window, self.model_max_output),
        )

    def limits(self) -> TokenLimits:
        """The merged limits (user > endpoint > preset)."""
        merged = merge_limits(self.layers())
        if merged is None:
            raise AssertionError("three layers always merge to a value")
        return merged

    def effective_max_tokens(self) -> int:
        """The output cap actually sent: ``max_tokens``, lowered to the known ``max_output``."""
        known = self.limits().max_output
        return self.max_tokens if known is None else min(self.max_tokens, known)

    def history_budget(self) -> int | None:
        """``history_budget(limits, effective_max_tokens)``; ``None`` when no window is known."""
        return history_budget(self.limits(), self.effective_max_tokens())


def _require_int(name: str, value: object, low: int, high: int, allowed: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProfileError(name, f"must be an integer, got {type(value).__name__}", allowed=allowed)
    if not low <= value <= high:
        raise ProfileError(name, f"{value} is out of range", allowed=allowed)
