"""ai-profile's ready-made profile: the crate's defaults (0.1.7: ``max_tokens`` 4096, 3 attempts).

Deliberate choice: the preset knows only its built-in preset window (200,000, a Claude-class model),
as an app does before any ``/models`` call.
"""

from __future__ import annotations

from simulator.runtime_spec import PresetSource

AI_PROFILE_PRESET_WINDOW = 200_000
AI_PROFILE_MAX_TOKENS = 4096

PRESETS: tuple[PresetSource, ...] = (
    PresetSource(
        "ai-profile",
        "ai-profile defaults",
        f"ai-profile 0.1.7 with only the built-in preset window ({AI_PROFILE_PRESET_WINDOW:,}) known: "
        f"history budget = window − max_tokens {AI_PROFILE_MAX_TOKENS:,} − 8,192 overhead; 3 attempts.",
        {
            "trimscope": {"runtime": "ai_profile"},
            "max_tokens": AI_PROFILE_MAX_TOKENS,
            "max_attempts": 3,
            "limits": {"preset": {"contextWindow": AI_PROFILE_PRESET_WINDOW}},
        },
    ),
)
