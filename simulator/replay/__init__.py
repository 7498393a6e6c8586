"""Session replay: a transcript through a profile, one record per model call; and comparisons.

Each assistant message of the transcript is one model call whose request is the history before it, as
that runtime would hold it. One driver per runtime carries that runtime's state forward.
"""

from __future__ import annotations

from simulator.profiles import Profile
from simulator.replay.ai_profile import replay_ai_profile
from simulator.replay.model import (
    BudgetExplanation,
    CallRecord,
    Change,
    Fate,
    FateGroup,
    RetryStep,
    SimulationResult,
)
from simulator.replay.openclaw import replay_openclaw
from simulator.replay.zeroclaw import replay_zeroclaw
from simulator.runtimes.ai_profile import AiProfileSettings
from simulator.runtimes.openclaw.settings import OpenClawSettings
from simulator.runtimes.zeroclaw.settings import ZeroClawSettings
from simulator.transcript import Transcript


def simulate(transcript: Transcript, profile: Profile) -> SimulationResult:
    """Replay ``transcript`` through ``profile``'s runtime.

    Args:
        transcript: The imported session.
        profile: A validated profile.

    Returns:
        The per-call result.
    """
    settings = profile.settings
    if isinstance(settings, ZeroClawSettings):
        return replay_zeroclaw(transcript, settings, profile_name=profile.name)
    if isinstance(settings, AiProfileSettings):
        return replay_ai_profile(
            transcript, settings, profile_name=profile.name, provider_window=profile.provider_window
        )
    if isinstance(settings, OpenClawSettings):
        return replay_openclaw(transcript, settings, profile_name=profile.name)
    raise TypeError(f"no replay for {type(settings).__name__}")


__all__ = [
    "BudgetExplanation",
    "CallRecord",
    "Change",
    "Fate",
    "FateGroup",
    "RetryStep",
    "SimulationResult",
    "simulate",
]
