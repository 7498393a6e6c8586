"""Session replay: a transcript through a profile, one record per model call; and comparisons.

Each assistant message of the transcript is one model call whose request is the history before it, as
that runtime would hold it. One driver per runtime carries that runtime's state forward; the registry
(``simulator/registry.py``) picks it from the profile.

Who may import: the simulator's own modules, tests and benchmarks; the dashboard uses the facade.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from simulator.assumed_times import gap_or_default, gap_statement, has_timestamps, with_assumed_times
from simulator.replay.model import (
    BudgetExplanation,
    CallRecord,
    Change,
    Fate,
    FateGroup,
    RetryStep,
    SimulationResult,
)
from simulator.transcript import Transcript

if TYPE_CHECKING:
    from simulator.profiles import Profile


def simulate(
    transcript: Transcript,
    profile: Profile,
    *,
    reference: bool = False,
    assumed_gap_seconds: float | None = None,
) -> SimulationResult:
    """Replay ``transcript`` through ``profile``'s runtime.

    Args:
        transcript: The imported session.
        profile: A validated profile.
        reference: Run the reference implementation (the runtime's own functions at every call,
            quadratic) instead of the fast one; both give the same result.
        assumed_gap_seconds: Seconds between calls for a transcript with no timestamps; ``None`` is
            ``simulator.assumed_times.DEFAULT_GAP_SECONDS``, the gap the cost model assumes too.

    Returns:
        The per-call result. A runtime whose replay reads the clock (OpenClaw's cache-TTL gate) replays a
        transcript without timestamps stamped with the assumed gap, and the result says so in a warning.
    """
    stamped = profile.spec.reads_clock and bool(transcript.messages) and not has_timestamps(transcript)
    result = profile.spec.simulate(
        with_assumed_times(transcript, gap_or_default(assumed_gap_seconds)) if stamped else transcript,
        profile.settings,
        profile_name=profile.name,
        provider_window=profile.provider_window,
        reference=reference,
    )
    if stamped:
        return replace(result, warnings=(*result.warnings, gap_statement(assumed_gap_seconds)))
    return result


def changed_contents(
    transcript: Transcript, profile: Profile, result: SimulationResult, number: int
) -> dict[int, tuple[int, str]]:
    """Per native message whose content a rule changed as sent at call ``number``: ``(tokens, text)``."""
    return profile.spec.contents(transcript, profile.settings, result, result.calls[number - 1])


__all__ = [
    "BudgetExplanation",
    "CallRecord",
    "Change",
    "Fate",
    "FateGroup",
    "RetryStep",
    "SimulationResult",
    "changed_contents",
    "simulate",
]
