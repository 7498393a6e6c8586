"""A profile's replay priced: :func:`simulator.cost.priced.result_cost` with the profile's own
``changed_contents``, so a soft-trimmed or cleared message is priced at its size as sent."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

from simulator.cost.from_replay import ChangedContents, TranscriptTokens
from simulator.cost.priced import ResultCost, result_cost
from simulator.cost.pricing import CacheTtl, PriceTable
from simulator.profiles import Profile
from simulator.replay.model import CallRecord, SimulationResult
from simulator.replay.openclaw_runs import pruned_runs
from simulator.runtimes.openclaw.settings import OpenClawSettings
from simulator.transcript import Transcript


def changed_for(transcript: Transcript, profile: Profile, result: SimulationResult) -> ChangedContents:
    """The profile's ``changed_contents`` for ``result``, per call: OpenClaw's hard-cleared run told as a
    run (the same mapping, without a message at a time), so a long session's calls are priced from slices."""
    settings = profile.settings
    if isinstance(settings, OpenClawSettings) and result.runtime == "openclaw":
        return partial(pruned_runs, transcript, settings, result)

    def changed(call: CallRecord) -> Mapping[int, tuple[int, str]]:
        return profile.spec.contents(transcript, settings, result, call)

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
    )


__all__ = ["changed_for", "profile_cost"]
