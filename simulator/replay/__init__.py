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
from simulator.replay.openclaw import pruned_contents, replay_openclaw
from simulator.replay.zeroclaw import replay_zeroclaw, truncated_contents
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


def changed_contents(
    transcript: Transcript, profile: Profile, result: SimulationResult, number: int
) -> dict[int, tuple[int, str]]:
    """Per native message whose content a rule changed as sent at call ``number``: ``(tokens, text)``."""
    if isinstance(profile.settings, OpenClawSettings):
        return pruned_contents(transcript, profile.settings, result.calls[number - 1], result.origins)
    if isinstance(profile.settings, ZeroClawSettings):
        return truncated_contents(transcript, profile.settings, result, result.calls[number - 1])
    return {}


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
