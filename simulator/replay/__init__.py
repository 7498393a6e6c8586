"""Session replay: a transcript through a profile, one record per model call; and comparisons.

Each assistant message of the transcript is one model call whose request is the history before it, as
that runtime would hold it. One driver per runtime carries that runtime's state forward; the registry
(``simulator/registry.py``) picks it from the profile.

Who may import: the simulator's own modules, tests and benchmarks; the dashboard uses the facade.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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


def simulate(transcript: Transcript, profile: Profile, *, reference: bool = False) -> SimulationResult:
    """Replay ``transcript`` through ``profile``'s runtime.

    Args:
        transcript: The imported session.
        profile: A validated profile.
        reference: Run the reference implementation (the runtime's own functions at every call,
            quadratic) instead of the fast one; both give the same result.

    Returns:
        The per-call result.
    """
    return profile.spec.simulate(
        transcript,
        profile.settings,
        profile_name=profile.name,
        provider_window=profile.provider_window,
        reference=reference,
    )


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
