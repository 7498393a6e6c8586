"""A profile's replay priced: :func:`simulator.cost.priced.result_cost` with the profile's own
``changed_contents``, so a soft-trimmed or cleared message is priced at its size as sent."""

from __future__ import annotations

from collections.abc import Mapping

from simulator.cost.from_replay import ChangedContents, TranscriptTokens
from simulator.cost.priced import Baseline, ResultCost, result_cost
from simulator.cost.pricing import CacheTtl, PriceTable
from simulator.profiles import Profile
from simulator.replay.model import CallRecord, SimulationResult
from simulator.transcript import Transcript


def changed_for(transcript: Transcript, profile: Profile, result: SimulationResult) -> ChangedContents:
    """The profile's changed contents for ``result``, per call, in the shape its runtime prices fastest
    (OpenClaw tells its hard-cleared run as a run, so a long session's calls are priced from slices)."""
    spec, settings = profile.spec, profile.settings

    def changed(call: CallRecord) -> Mapping[int, tuple[int, str]]:
        return spec.priced(transcript, settings, result, call)

    return changed


def profile_cost(
    transcript: Transcript,
    profile: Profile,
    result: SimulationResult,
    *,
    pricing: str | None = None,
    assumed_gap_seconds: float | None = None,
    ttl: CacheTtl = "5m",
    table: PriceTable | None = None,
    tokens: TranscriptTokens | None = None,
    baseline: Baseline | None = None,
) -> ResultCost:
    """What ``result`` (``simulate(transcript, profile)``) costs; see ``result_cost`` for the arguments.

    Raises:
        PriceTableError: ``pricing`` names no entry of the table.
    """

    return result_cost(
        transcript,
        result,
        changed=changed_for(transcript, profile, result),
        pricing=pricing,
        assumed_gap_seconds=assumed_gap_seconds,
        ttl=ttl,
        table=table,
        tokens=tokens,
        baseline=baseline,
    )


__all__ = ["changed_for", "profile_cost"]
