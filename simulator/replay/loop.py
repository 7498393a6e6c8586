"""The one replay loop every runtime shares: a runtime's step over each model call of a transcript.

Each assistant message of the transcript is one model call. A provider error turn (``Message.error``) is
a call too: its request was sent (the history before it) and it failed with no reply. A runtime that does
not carry the failed message into later requests leaves it out of its native messages; the call is then
found from the transcript, its request being everything built before it. A runtime's replay prepares what does
not change between calls (its native messages, sizes, settings), then hands this loop a step
``(state, call) -> (record, state)`` and the state before the first call; the loop feeds every call
through it in order and returns the records and the final state.

A step owns its state: it may grow the buffers the state holds (a long session stays linear in time)
and returns the state to carry forward; the state passed in is not used again. OpenClaw's replay folds its
calls the same way with the step inline (``openclaw._run``: what carries between calls held in locals,
no state object per call).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import TypeVar

import msgspec

from simulator.replay.common import call_starts
from simulator.replay.model import CallRecord
from simulator.transcript import Message, Role, Transcript

State = TypeVar("State")


class ModelCall(msgspec.Struct, frozen=True, gc=False):
    """One model call: its number, what the runtime held before it, and the reply it produced.

    A frozen struct rather than a dataclass: preparing a session builds one per call, and a struct is
    built in C (several times faster); it holds numbers and a string, so it is never part of a cycle."""

    number: int
    """1-based."""
    available: int
    """Native messages ``[0, available)`` existed before the call."""
    message_index: int
    """Transcript index of the assistant message this call produced."""
    error: str | None = None
    """The provider error the call failed with (the transcript's error turn), ``None`` when it got a reply."""


Step = Callable[[State, ModelCall], tuple[CallRecord, State]]


def model_calls(transcript: Transcript, origins: Sequence[Sequence[int]]) -> tuple[ModelCall, ...]:
    """Every model call of ``transcript`` in a runtime's native message space (``origins``).

    Error turns the runtime holds no native message for are calls as well, in transcript order.
    """
    one_to_one = _one_to_one_calls(transcript.messages, origins)
    return one_to_one if one_to_one is not None else sorted_model_calls(transcript, origins)


def sorted_model_calls(transcript: Transcript, origins: Sequence[Sequence[int]]) -> tuple[ModelCall, ...]:
    """:func:`model_calls` for any native space: the calls found from the natives and the error turns
    apart, then put in transcript order."""
    messages = transcript.messages
    starts = call_starts(transcript, origins)
    in_history = {index for origin in origins for index in origin}
    # Where each native starts in the transcript (a native without sources stands where the one before does).
    firsts: list[int] = []
    for origin in origins:
        firsts.append(origin[0] if origin else (firsts[-1] if firsts else -1))
    for index, message in enumerate(messages):
        if message.role is Role.ASSISTANT and message.error is not None and index not in in_history:
            starts.append((bisect_right(firsts, index), index))
    starts.sort(key=lambda start: start[1])
    return tuple(
        ModelCall(n, available, index, messages[index].error)
        for n, (available, index) in enumerate(starts, start=1)
    )


def _one_to_one_calls(
    messages: Sequence[Message], origins: Sequence[Sequence[int]]
) -> tuple[ModelCall, ...] | None:
    """:func:`model_calls` in one pass, when each native comes from one message and in transcript order
    (ZeroClaw's messages): ``None`` for any other native space.

    Then the natives held before a message are the ones matched so far, so every call -- a held reply, or
    an error turn the runtime does not hold -- is told as the pass reaches it, in transcript order.
    """
    calls: list[ModelCall] = []
    held, count, assistant, build = 0, len(origins), Role.ASSISTANT, ModelCall
    for index, message in enumerate(messages):
        native = held < count and len(origin := origins[held]) == 1 and origin[0] == index
        if message.role is assistant and (native or message.error is not None):
            calls.append(build(len(calls) + 1, held, index, message.error))
        if native:
            held += 1
        elif held < count and (len(origins[held]) != 1 or origins[held][0] < index):
            return None  # a native from several messages, none, or out of order
    return tuple(calls) if held == count else None


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
        # Every runtime's failed call is recorded as failed, whatever its step made of the error.
        records.append(record if call.error is None else msgspec.structs.replace(record, error=call.error))
    return tuple(records), state
