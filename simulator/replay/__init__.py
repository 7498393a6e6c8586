"""Session replay: a transcript through a profile, one record per model call; and comparisons.

Each assistant message of the transcript is one model call whose request is the history before it, as
that runtime would hold it. One driver per runtime carries that runtime's state forward; the registry
(``simulator/registry.py``) picks it from the profile.

Who may import: the simulator's own modules, tests and benchmarks; the dashboard uses the facade.
"""

from __future__ import annotations

from pathlib import Path

from simulator.replay.compiled import activate

# First, before any module of the package is imported: a build of these sources replaces the hot modules.
COMPILED = activate(__path__, Path(__file__).parent)

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from simulator.assumed_times import gap_or_default, gap_statement, has_timestamps, with_assumed_times
from simulator.long_lived import collector_paused
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


@dataclass(frozen=True, slots=True, eq=False)
class PreparedReplay:
    """A transcript made ready once for one runtime's replays: whatever no knob changes, kept.

    It holds the runtime's native messages, where each came from, its model calls and each message's
    own estimates; every version and every profile of the runtime replays from it
    (:func:`replay_prepared`), so a page or an evaluation that replays one transcript under many knob
    values pays for the conversion and the sizing once. Immutable; share it freely.
    """

    transcript: Transcript
    """The transcript as replayed (stamped with assumed times when it had none and the runtime reads the
    clock: the gap given, else the default the cost model assumes too)."""
    runtime: str
    natives: object
    """The runtime's own prepared value (opaque outside the runtime's replay)."""
    note: str | None = None
    """What the replay warns about the preparation (assumed times)."""


def prepare(
    transcript: Transcript, runtime: str, *, assumed_gap_seconds: float | None = None
) -> PreparedReplay:
    """Convert and size ``transcript`` once for ``runtime``'s replays.

    Args:
        transcript: The imported session.
        runtime: A runtime key (``Profile.runtime``).
        assumed_gap_seconds: Seconds between calls for a transcript with no timestamps, as in
            :func:`simulate` (``None``: the default); the stamped transcript is what is prepared.

    Raises:
        ProfileError: for an unknown runtime key.
    """
    from simulator.registry import versions  # the registry imports every replay: import it late

    spec = versions(runtime)[0]
    note = None
    if spec.reads_clock and transcript.messages and not has_timestamps(transcript):
        transcript = with_assumed_times(transcript, gap_or_default(assumed_gap_seconds))
        note = gap_statement(assumed_gap_seconds)
    with collector_paused():
        natives = spec.prepare_transcript(transcript)
    return PreparedReplay(transcript, runtime, natives, note)


def replay_prepared(
    prepared: PreparedReplay, profile: Profile, *, reference: bool = False
) -> SimulationResult:
    """Replay a prepared transcript through ``profile`` (of the runtime it was prepared for).

    Gives exactly what :func:`simulate` gives on the transcript.

    Raises:
        ValueError: when ``profile`` is for another runtime than ``prepared``.
    """
    if profile.runtime != prepared.runtime:
        raise ValueError(
            f"the transcript was prepared for {prepared.runtime}, not for {profile.runtime} "
            f"(profile {profile.name!r}): prepare it for that runtime"
        )
    with collector_paused():
        result = profile.spec.simulate(
            prepared.transcript,
            profile.settings,
            profile_name=profile.name,
            provider_window=profile.provider_window,
            reference=reference,
            prepared=prepared.natives,
        )
    if prepared.note is not None:
        result = replace(result, warnings=(*result.warnings, prepared.note))
    return result


def simulate(
    transcript: Transcript,
    profile: Profile,
    *,
    reference: bool = False,
    assumed_gap_seconds: float | None = None,
) -> SimulationResult:
    """Replay ``transcript`` through ``profile``'s runtime.

    To replay one transcript under many profiles of a runtime, :func:`prepare` it once and call
    :func:`replay_prepared` instead: the same results, without converting and sizing it every time.

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
    prepared = prepare(transcript, profile.runtime, assumed_gap_seconds=assumed_gap_seconds)
    return replay_prepared(prepared, profile, reference=reference)


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
    "PreparedReplay",
    "RetryStep",
    "SimulationResult",
    "changed_contents",
    "prepare",
    "replay_prepared",
    "simulate",
]
