"""ZeroClaw's ready-made profiles, one per version (sources: master 15d28660 and PRs 9368/9535).

Deliberate choice: the proposed-version preset declares a 128,000-token ``gpt-4o`` route so the
model-relative budget has a window to work with (without one PR 9535 falls back to 32,000 anyway).
"""

from __future__ import annotations

from simulator.runtime_spec import PresetSource

DOCUMENTED_MODEL = "gpt-4o"
DOCUMENTED_WINDOW = 128_000

PROPOSED_PRESETS: tuple[PresetSource, ...] = (
    PresetSource(
        "zeroclaw-documented",
        "ZeroClaw proposed (PRs #9368, #9535) defaults",
        f"History-management docs (PRs 9368/9535/9379): a {DOCUMENTED_MODEL} route with a "
        f"{DOCUMENTED_WINDOW:,}-token window, no ratio and no max_context_tokens, so the budget is the "
        "32,000 fallback; 50 turns of history.",
        {
            "trimscope": {"runtime": "zeroclaw", "version": "documented"},
            "runtime_profiles": {"default": {}},
            "provider": {"model": DOCUMENTED_MODEL, "context_window": DOCUMENTED_WINDOW},
        },
    ),
)

RELEASED_PRESETS: tuple[PresetSource, ...] = (
    PresetSource(
        "zeroclaw-upstream",
        "ZeroClaw released (v0.8.4) defaults",
        "Master 15d28660: max_context_tokens defaults to 32,000 with no model window; history is capped "
        "at max(50, 2 × max_tool_iterations + 2) messages.",
        {"trimscope": {"runtime": "zeroclaw", "version": "upstream"}, "runtime_profiles": {"default": {}}},
    ),
)
