"""What a runtime does with a profile's out-of-range or version-specific knobs, said in words.

The config readers (``simulator.config_files``) store the notes only they can make (a migration, an
unresolved provider, a key not consulted); the notes here follow from the knob values themselves, so
they are worked out again whenever a profile is shown and never go stale after an edit.

ZeroClaw (``simulator.runtimes.zeroclaw.budget``): ``context_compact_ratio`` counts only inside
(0, 1] in the proposed behaviour (PRs #9368, #9535); released v0.8.4 has no such key and ignores it.
"""

from __future__ import annotations

import math

from simulator.profiles import Profile
from simulator.runtimes.zeroclaw.budget import LEGACY_CONTEXT_TOKENS, is_valid_compact_ratio
from simulator.runtimes.zeroclaw.settings import ZeroClawSettings

PROPOSED = "proposed (PRs #9368, #9535)"
RELEASED = "released (v0.8.4)"


def _zeroclaw(s: ZeroClawSettings) -> list[str]:
    ratio = s.context_compact_ratio
    if ratio is None:
        return []
    if s.version == "upstream":
        return [f"context_compact_ratio = {ratio:g} is a {PROPOSED} key: ZeroClaw {RELEASED} ignores it"]
    notes = [f"context_compact_ratio is read as ZeroClaw {PROPOSED} reads it; {RELEASED} ignores it"]
    if not is_valid_compact_ratio(ratio):
        shown = "NaN" if math.isnan(ratio) else f"{ratio:g}"
        source = (
            f"max_context_tokens ({s.max_context_tokens:,})"
            if s.max_context_tokens is not None
            else f"the {LEGACY_CONTEXT_TOKENS:,} fallback"
        )
        notes.insert(
            0,
            f"context_compact_ratio = {shown} is outside (0, 1]: ZeroClaw ignores it, the budget is {source}",
        )
    return notes


def knob_warnings(profile: Profile) -> tuple[tuple[str, str], ...]:
    """``(knob, note)`` pairs: what the runtime does with this profile's knob values, by knob key."""
    if isinstance(profile.settings, ZeroClawSettings):
        return tuple(("context_compact_ratio", note) for note in _zeroclaw(profile.settings))
    return ()


def profile_warnings(profile: Profile) -> tuple[str, ...]:
    """The reader's stored notes, then what the runtime does with this profile's knob values."""
    return (*profile.warnings, *(note for _, note in knob_warnings(profile)))
