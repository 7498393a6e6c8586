"""What ZeroClaw does with a profile's out-of-range or version-specific knob values, said in words.

The notes follow from the values themselves, so they are worked out whenever a profile is shown and
never go stale after an edit. ``context_compact_ratio`` counts only inside (0, 1] in the proposed
behaviour (PRs #9368, #9535, ``simulator.runtimes.zeroclaw.budget``); the released v0.8.4 has no such
key and ignores it. Versions are named by their registry labels (``knobs.VERSION_LABELS``).
"""

from __future__ import annotations

import math

from simulator.knobs import KnobNote
from simulator.runtimes.zeroclaw.budget import LEGACY_CONTEXT_TOKENS, is_valid_compact_ratio
from simulator.runtimes.zeroclaw.settings import ZeroClawSettings
from simulator.specs.zeroclaw.knobs import VERSION_LABELS

_PROPOSED = VERSION_LABELS["documented"]
_RELEASED = VERSION_LABELS["upstream"]
_RATIO = "context_compact_ratio"
_PATH = f"runtime_profiles.default.{_RATIO}"


def knob_notes(settings: ZeroClawSettings) -> tuple[KnobNote, ...]:
    ratio = settings.context_compact_ratio
    if ratio is None:
        return ()
    if settings.version == "upstream":
        return (
            KnobNote(_PATH, f"{_RATIO} = {ratio:g} is a {_PROPOSED} key: ZeroClaw {_RELEASED} ignores it"),
        )
    notes = [KnobNote(_PATH, f"{_RATIO} is read as ZeroClaw {_PROPOSED} reads it; {_RELEASED} ignores it")]
    if not is_valid_compact_ratio(ratio):
        shown = "NaN" if math.isnan(ratio) else f"{ratio:g}"
        source = (
            f"max_context_tokens ({settings.max_context_tokens:,})"
            if settings.max_context_tokens is not None
            else f"the {LEGACY_CONTEXT_TOKENS:,} fallback"
        )
        notes.insert(
            0,
            KnobNote(
                _PATH, f"{_RATIO} = {shown} is outside (0, 1]: ZeroClaw ignores it, the budget is {source}"
            ),
        )
    return tuple(notes)
