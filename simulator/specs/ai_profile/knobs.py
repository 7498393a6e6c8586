"""ai-profile's knob catalogue, in its ``TokenLimits`` wire keys."""

from __future__ import annotations

from simulator.knobs import Knob

KNOBS: tuple[Knob, ...] = (
    Knob("max_tokens", "max_tokens", "int", "an integer ≥ 0"),
    Knob("max_attempts", "max_attempts", "int", "an integer from 0 to 10", maximum=10),
    *(
        Knob(f"limits.{layer}.{key}", f"limits.{layer}.{key}", "int", "an integer ≥ 0, or empty")
        for layer in ("user", "endpoint", "preset")
        for key in ("contextWindow", "maxOutput")
    ),
    Knob("provider.context_window", "provider.context_window", "int", "an integer ≥ 1, or empty", minimum=1),
)
