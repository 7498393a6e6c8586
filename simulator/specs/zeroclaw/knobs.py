"""ZeroClaw's knob catalogue, in the canonical document's keys (``runtime_profiles.default``)."""

from __future__ import annotations

from simulator.knobs import Knob
from simulator.runtimes.zeroclaw.settings import VERSIONS

_ZC = "runtime_profiles.default"
VERSION_LABELS: dict[str, str] = {
    "documented": "proposed (PRs #9368, #9535)",
    "upstream": "released (v0.8.4)",
}

KNOBS: tuple[Knob, ...] = (
    Knob(
        "trimscope.version",
        "Version",
        "select",
        ", ".join(f"{v} = {VERSION_LABELS[v]}" for v in VERSIONS),
        choices=VERSIONS,
        choice_labels=tuple(VERSION_LABELS[v] for v in VERSIONS),
    ),
    Knob(f"{_ZC}.max_context_tokens", "max_context_tokens", "int", "an integer ≥ 0, or empty (unset)"),
    Knob(
        f"{_ZC}.context_compact_ratio",
        "context_compact_ratio",
        "float",
        "a number; only (0, 1] takes effect (documented version)",
        minimum=None,
        step="any",
    ),
    Knob(f"{_ZC}.max_history_messages", "max_history_messages", "int", "an integer ≥ 0, or empty"),
    Knob(f"{_ZC}.max_tool_iterations", "max_tool_iterations", "int", "an integer ≥ 0", placeholder="10"),
    Knob(f"{_ZC}.max_tool_result_chars", "max_tool_result_chars", "int", "an integer ≥ 0 (0 = off)"),
    Knob(f"{_ZC}.history_pruning.enabled", "history_pruning.enabled", "bool", "on or off"),
    Knob(f"{_ZC}.history_pruning.max_tokens", "history_pruning.max_tokens", "int", "an integer ≥ 0"),
    Knob("provider.model", "provider.model", "text", "the model the window is declared for"),
    Knob("provider.context_window", "provider.context_window", "int", "an integer ≥ 0, or empty"),
    Knob("trimscope.model", "selected model", "text", "empty = the provider's model"),
)
