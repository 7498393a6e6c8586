"""OpenClaw's changed contents per call with the hard-cleared run kept as a run (:mod:`sent_runs`).

:func:`pruned_runs` is :func:`~simulator.replay.openclaw.pruned_contents` (the same mapping), without
visiting the run: a call of a long session clears thousands of tool results, the same ones as the call before
and a few more, and each is sent as the same cleared result at every call that clears it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from simulator.replay.model import CallRecord, Fate, IndexSlice, SimulationResult
from simulator.replay.openclaw import CallInput, pruned_contents
from simulator.replay.openclaw_transforms import sent_parts
from simulator.replay.openclaw_views import ChangedView, SliceView
from simulator.replay.sent_runs import Content, SentLayer, SentRun, SentRuns
from simulator.runtimes.openclaw.messages import AgentMessage
from simulator.runtimes.openclaw.settings import OpenClawSettings
from simulator.transcript import Transcript

HARD_CLEARED = "openclaw:hard-cleared"
"""The key of a hard-cleared run, beside its placeholder: a cleared result is a function of both alone."""
LAYER = "openclaw:layer"
"""The key of a layer, beside its name: a cleaned message or a stripped assistant is a function of its
native index alone."""


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
        if isinstance(changed, ChangedView):
            return _layered_view(changed, call, as_sent)
        return {i: as_sent(m) for i, m in changed.items()}
    small, cleared, message, placeholder, told = parts
    singles = {i: as_sent(m) for i, m in small.items()}
    layers = tuple(SentLayer((LAYER, name), window, _as_sent_of(of, as_sent)) for name, window, of in told)
    if not cleared:
        return SentRuns(singles, (), layers) if layers else singles
    if not isinstance(cleared, IndexSlice):
        # Not a window of a growing list: no promise to keep per index, so every message is told.
        singles = {**{i: as_sent(message(i)) for i in cleared}, **singles}
        return SentRuns(singles, (), layers) if layers else singles
    run = SentRun((HARD_CLEARED, placeholder), cleared, _as_sent_of(message, as_sent))
    return SentRuns(singles, (run,), layers)


def _as_sent_of(
    message: Callable[[int], AgentMessage], as_sent: Callable[[AgentMessage], Content]
) -> Callable[[int], Content]:
    def content(index: int) -> Content:
        return as_sent(message(index))

    return content


def _layered_view(
    changed: ChangedView, call: CallRecord, as_sent: Callable[[AgentMessage], Content]
) -> Mapping[int, Content]:
    """2026.9.6's view with its cleaned messages and stripped assistants as layers (the record's windows of
    the cleaned and the thinking lists, from their first: every later call cleans and strips at least
    those), the other changes one by one; every change one by one when the view cannot be told so exactly
    (each of its changes told once, the count checked)."""
    stripped, cleaned = _window(call, Fate.THINKING_DROPPED), _window(call, Fate.IMAGE_REPLACED)
    apart = changed.apart_from_cleaned(cleaned) if cleaned is not None else None
    if apart is None:
        cleaned = None  # the cleaned messages told one by one, with the other changes of the store
        apart = dict(changed.stored_changes())
    if stripped is None and cleaned is None:
        return {i: as_sent(m) for i, m in changed.items()}
    outside = sum(1 for i in apart if cleaned is None or i not in cleaned)
    told = len(stripped or ()) + len(cleaned or ()) + outside
    if told != len(changed) or (stripped is not None and any(i in stripped for i in apart)):
        return {i: as_sent(m) for i, m in changed.items()}
    layers = []
    if cleaned is not None:
        layers.append(SentLayer((LAYER, "cleaned"), cleaned, _as_sent_of(changed.cleaned_message, as_sent)))
    if stripped is not None:
        layers.append(SentLayer((LAYER, "stripped"), stripped, _as_sent_of(changed.__getitem__, as_sent)))
    return SentRuns({i: as_sent(m) for i, m in apart.items()}, (), tuple(layers))


def _window(call: CallRecord, fate: Fate) -> IndexSlice | None:
    """The record's one window of ``fate`` when it is a prefix of a list (``None`` otherwise)."""
    windows = [
        group.indices
        for group in call.fated
        if group.fate is fate and isinstance(group.indices, SliceView | IndexSlice) and len(group.indices)
    ]
    if len(windows) != 1 or windows[0].start != 0:
        return None
    return IndexSlice(windows[0].source, 0, windows[0].stop)


__all__ = ["HARD_CLEARED", "pruned_runs"]
