"""Turn segmentation and tool call/result pair lint over the runtime-neutral transcript model.

A turn starts at a real user message and runs until the next one, the unit ZeroClaw trims by (zeroclaw.md §2)
and the unit people think in. Tool results are their own TOOL messages in the model, so they never start a
turn; neither do ZeroClaw prompt-mode ``[Tool results]`` messages or OpenClaw compaction/branch summaries,
which are user-role text that no person typed. The maximal prefix of system messages is its own group, and
anything else before the first turn is a preamble.

The pair lint matches each tool result to the nearest earlier unanswered call with the same id, which is how
providers validate pairing, and reports what does not match.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from simulator.transcript import Message, Role

GroupKind = Literal["system", "preamble", "turn"]


@dataclass(frozen=True, slots=True)
class Turn:
    """A contiguous group of messages ``[start, end)``; ``kind`` says whether it is a real turn."""

    kind: GroupKind
    start: int
    end: int

    @property
    def indices(self) -> range:
        return range(self.start, self.end)

    def __len__(self) -> int:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class ToolPair:
    call_id: str
    call_index: int
    result_index: int
    name: str


@dataclass(frozen=True, slots=True)
class OrphanCall:
    """A call no later message answers."""

    call_id: str
    call_index: int
    name: str


@dataclass(frozen=True, slots=True)
class OrphanResult:
    """A result with no earlier unanswered call of the same id."""

    call_id: str
    result_index: int


@dataclass(frozen=True, slots=True)
class PairReport:
    pairs: tuple[ToolPair, ...]
    orphan_calls: tuple[OrphanCall, ...]
    orphan_results: tuple[OrphanResult, ...]
    duplicate_call_ids: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """True when every call has exactly one result and no id is reused."""
        return not (self.orphan_calls or self.orphan_results or self.duplicate_call_ids)


def starts_turn(message: Message) -> bool:
    """Whether ``message`` is a real user message (the start of a turn)."""
    if message.role is not Role.USER:
        return False
    return message.variant is None or message.variant == "custom_message"


def segment_turns(messages: Sequence[Message]) -> tuple[Turn, ...]:
    """Split messages into a leading-system group, a preamble and turns.

    Args:
        messages: the transcript's messages in order.

    Returns:
        Groups covering every index exactly once, in order: at most one ``system`` group (the leading
        system messages), at most one ``preamble`` (what precedes the first real user message), then one
        ``turn`` per real user message. Empty groups are omitted.
    """
    groups: list[Turn] = []
    n = len(messages)
    lead = 0
    while lead < n and messages[lead].role is Role.SYSTEM:
        lead += 1
    if lead:
        groups.append(Turn("system", 0, lead))
    starts = [i for i in range(lead, n) if starts_turn(messages[i])]
    first = starts[0] if starts else n
    if first > lead:
        groups.append(Turn("preamble", lead, first))
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else n
        groups.append(Turn("turn", start, end))
    return tuple(groups)


def count_turns(messages: Sequence[Message]) -> int:
    """Number of real turns (groups of kind ``turn``)."""
    return sum(1 for m in messages if starts_turn(m))


def lint_tool_pairs(messages: Sequence[Message]) -> PairReport:
    """Match tool results to calls by id and list what does not pair up.

    Args:
        messages: the transcript's messages in order.

    Returns:
        Pairs in result order; calls nothing answered; results nothing called (including results that come
        before their call, answer an already-answered call, or carry an empty id); ids used by more than one
        call, each once, in first-seen order.
    """
    seen_ids: dict[str, int] = {}
    duplicates: list[str] = []
    # Per id, the calls still waiting for a result: (order issued, message index, tool name).
    open_calls: dict[str, list[tuple[int, int, str]]] = {}
    pairs: list[ToolPair] = []
    orphan_results: list[OrphanResult] = []
    order = 0
    for index, message in enumerate(messages):
        for call in message.tool_calls:
            seen_ids[call.id] = seen_ids.get(call.id, 0) + 1
            if seen_ids[call.id] == 2:
                duplicates.append(call.id)
            open_calls.setdefault(call.id, []).append((order, index, call.name))
            order += 1
        result = message.tool_result
        if result is None:
            continue
        waiting = open_calls.get(result.call_id) if result.call_id else None
        if waiting:
            _, call_index, name = waiting.pop()
            pairs.append(ToolPair(result.call_id, call_index, index, name))
        else:
            orphan_results.append(OrphanResult(result.call_id, index))
    remaining = sorted((o, i, call_id, name) for call_id, calls in open_calls.items() for o, i, name in calls)
    orphan_calls = tuple(OrphanCall(call_id, i, name) for _, i, call_id, name in remaining)
    return PairReport(tuple(pairs), orphan_calls, tuple(orphan_results), tuple(duplicates))
