"""OpenClaw's knob catalogue, in ``agents.defaults.contextPruning`` and the window keys.

The loader names pruning fields from the block (``contextPruning.ttl``), hence ``error_field``.
"""

from __future__ import annotations

from simulator.knobs import Knob

_OC = "agents.defaults.contextPruning"
_ERR = "contextPruning"

KNOBS: tuple[Knob, ...] = (
    Knob(
        f"{_OC}.mode",
        "mode",
        "select",
        '"off" or "cache-ttl"; unset = off',
        choices=("off", "cache-ttl"),
        error_field=f"{_ERR}.mode",
    ),
    Knob(
        f"{_OC}.ttl",
        "ttl",
        "text",
        "a duration like 5m, 1h, 1h30m",
        placeholder="5m",
        error_field=f"{_ERR}.ttl",
    ),
    Knob(
        f"{_OC}.keepLastAssistants",
        "keepLastAssistants",
        "int",
        "an integer ≥ 0",
        placeholder="3",
        error_field=f"{_ERR}.keepLastAssistants",
    ),
    Knob(
        f"{_OC}.softTrimRatio",
        "softTrimRatio",
        "float",
        "a number in [0, 1]",
        maximum=1,
        step="any",
        placeholder="0.3",
        error_field=f"{_ERR}.softTrimRatio",
    ),
    Knob(
        f"{_OC}.hardClearRatio",
        "hardClearRatio",
        "float",
        "a number in [0, 1]",
        maximum=1,
        step="any",
        placeholder="0.5",
        error_field=f"{_ERR}.hardClearRatio",
    ),
    Knob(
        f"{_OC}.minPrunableToolChars",
        "minPrunableToolChars",
        "int",
        "an integer ≥ 0",
        placeholder="50000",
        error_field=f"{_ERR}.minPrunableToolChars",
    ),
    Knob(
        f"{_OC}.softTrim.maxChars",
        "softTrim.maxChars",
        "int",
        "an integer ≥ 0",
        placeholder="4000",
        error_field=f"{_ERR}.softTrim.maxChars",
    ),
    Knob(
        f"{_OC}.softTrim.headChars",
        "softTrim.headChars",
        "int",
        "an integer ≥ 0",
        placeholder="1500",
        error_field=f"{_ERR}.softTrim.headChars",
    ),
    Knob(
        f"{_OC}.softTrim.tailChars",
        "softTrim.tailChars",
        "int",
        "an integer ≥ 0",
        placeholder="1500",
        error_field=f"{_ERR}.softTrim.tailChars",
    ),
    Knob(
        f"{_OC}.hardClear.enabled",
        "hardClear.enabled",
        "tristate",
        "true, false or unset (true)",
        error_field=f"{_ERR}.hardClear.enabled",
    ),
    Knob(
        f"{_OC}.hardClear.placeholder",
        "hardClear.placeholder",
        "text",
        "any text",
        error_field=f"{_ERR}.hardClear.placeholder",
    ),
    Knob(
        "model.contextWindow", "model.contextWindow", "int", "an integer ≥ 1, or empty (200,000)", minimum=1
    ),
    Knob(
        "agents.defaults.contextTokens",
        "agents.defaults.contextTokens",
        "int",
        "an integer ≥ 1, or empty",
        minimum=1,
    ),
)
