"""The one replay loop every runtime shares: a runtime's step over each model call of a transcript.

Each assistant message of the transcript is one model call. A runtime's replay prepares what does
not change between calls (its native messages, sizes, settings), then hands this loop a step
``(state, call) -> (record, state)`` and the state before the first call; the loop feeds every call
through it in order and returns the records and the final state.

A step owns its state: it may grow the buffers the state holds (a long session stays linear in time)
and returns the state to carry forward; the state passed in is not used again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from simulator.replay.common import call_starts
from simulator.replay.model import CallRecord
from simulator.transcript import Transcript

State = TypeVar("State")


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One model call: its number, what the runtime held before it, and the reply it produced."""

    number: int
    """1-based."""
    available: int
    """Native messages ``[0, available)`` existed before the call."""
    message_index: int
    """Transcript index of the assistant message this call produced."""


Step = Callable[[State, ModelCall], tuple[CallRecord, State]]


def model_calls(transcript: Transcript, origins: Sequence[Sequence[int]]) -> tuple[ModelCall, ...]:
    """Every model call of ``transcript`` in a runtime's native message space (``origins``)."""
    starts = call_starts(transcript, origins)
    return tuple(ModelCall(n, available, index) for n, (available, index) in enumerate(starts, start=1))


def run_calls(
    calls: Sequence[ModelCall], step: Step[State], state: State
) -> tuple[tuple[CallRecord, ...], State]:
    """Fold ``step`` over ``calls``.

    Returns:
        One record per call, in order, and the state after the last call.
    """
    records: list[CallRecord] = []
    for call in calls:
        record, state = step(state, call)
        records.append(record)
    return tuple(records), state
