"""OpenClaw's changed contents per call with the hard-cleared run kept as a run (:mod:`sent_runs`).

:func:`pruned_runs` is :func:`~simulator.replay.openclaw.pruned_contents` (the same mapping), without
visiting the run: a call of a long session clears thousands of tool results, the same ones as the call before
and a few more, and each is sent as the same cleared result at every call that clears it.
"""

from __future__ import annotations

from collections.abc import Mapping

from simulator.replay.model import CallRecord, IndexSlice, SimulationResult
from simulator.replay.openclaw import CallInput, pruned_contents
from simulator.replay.openclaw_transforms import sent_parts
from simulator.replay.sent_runs import Content, SentRun, SentRuns
from simulator.runtimes.openclaw.settings import OpenClawSettings
from simulator.transcript import Transcript

HARD_CLEARED = "openclaw:hard-cleared"
"""The key of a hard-cleared run, beside its placeholder: a cleared result is a function of both alone."""


def pruned_runs(
    transcript: Transcript, settings: OpenClawSettings, result: SimulationResult, call: CallRecord
) -> Mapping[int, Content]:
    """``(tokens, text)`` as sent at ``call`` of each native message a transform changed, as
    :func:`pruned_contents` gives them, with a hard-cleared run as a :class:`SentRun`."""
    item = result.resume[call.number - 1] if call.number - 1 < len(result.resume) else None
    if not isinstance(item, CallInput) or item.on_demand is None:
        return pruned_contents(transcript, settings, result, call)
    on_demand = item.on_demand
    as_sent = on_demand.as_sent
    # 2026.9.6 kept the view its fast transforms answered for the call (what ``sent_messages`` reads too):
    # recomputing the call would run the reference over its whole history, the square of the session.
    changed = item.changed if item.changed is not None else on_demand.outcome(item).changed
    parts = sent_parts(changed)
    if parts is None:
        return {i: as_sent(m) for i, m in changed.items()}
    small, cleared, message, placeholder = parts
    singles = {i: as_sent(m) for i, m in small.items()}
    if not cleared:
        return singles
    if not isinstance(cleared, IndexSlice):
        # Not a window of a growing list: no promise to keep per index, so every message is told.
        return {**{i: as_sent(message(i)) for i in cleared}, **singles}

    def content(index: int) -> Content:
        return as_sent(message(index))

    return SentRuns(singles, (SentRun((HARD_CLEARED, placeholder), cleared, content),))


__all__ = ["HARD_CLEARED", "pruned_runs"]
