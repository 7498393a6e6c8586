"""The history a ZeroClaw replay holds between calls, with what each trim dropped for good.

ZeroClaw forgets: a trim replaces the held history, and what it left out is gone for every later
call. :class:`History` holds the messages, where each came from (``None`` for the breadcrumb), the
running estimate, turn and non-system counts, and the sent ranges; it is the replay state's one
growing buffer.

Recounting after a trim is the only per-call cost that grows with the history. :class:`CachedFacts`
reuses what was known about a message when it entered as long as the trim kept that very message
(fast); :class:`RecountedFacts` recomputes every message (reference). They are interchangeable
behind :class:`MessageFacts` and give the same records.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeAlias

from simulator.replay.common import ranges
from simulator.replay.model import Change
from simulator.runtimes.zeroclaw import ChatMessage
from simulator.runtimes.zeroclaw.estimate import estimate_message_tokens

Facts: TypeAlias = tuple[int, bool, bool]
"""A held message's estimate, whether it opens a turn, whether it is a system message."""
Boundary: TypeAlias = Callable[[ChatMessage], bool]


class MessageFacts(Protocol):
    def entered(self, index: int, message: ChatMessage) -> Facts:
        """Facts of native message ``index`` as it enters the history."""
        ...

    def count(self, held: Sequence[ChatMessage], sources: Sequence[int | None]) -> tuple[int, int, int]:
        """Estimate, turns and non-system messages of a history a trim kept (``sources``: where each
        message came from, ``None`` = breadcrumb)."""
        ...


def _facts(message: ChatMessage, is_boundary: Boundary) -> Facts:
    return estimate_message_tokens(message), is_boundary(message), message.role == "system"


class RecountedFacts:
    """Every message counted afresh (the reference)."""

    def __init__(self, size: int, is_boundary: Boundary) -> None:
        self._is_boundary = is_boundary

    def entered(self, index: int, message: ChatMessage) -> Facts:
        return _facts(message, self._is_boundary)

    def count(self, held: Sequence[ChatMessage], sources: Sequence[int | None]) -> tuple[int, int, int]:
        tokens = turns = non_system = 0
        for message in held:
            size, boundary, system = _facts(message, self._is_boundary)
            tokens += size
            turns += boundary
            non_system += not system
        return tokens, turns, non_system


class CachedFacts:
    """A kept message that is the very object that entered reuses its entry facts."""

    def __init__(self, size: int, is_boundary: Boundary) -> None:
        self._is_boundary = is_boundary
        self._message: list[ChatMessage | None] = [None] * size
        self._tokens = [0] * size
        self._boundary = [False] * size
        self._system = [False] * size

    def entered(self, index: int, message: ChatMessage) -> Facts:
        tokens = estimate_message_tokens(message)
        boundary, system = self._is_boundary(message), message.role == "system"
        self._message[index] = message
        self._tokens[index], self._boundary[index], self._system[index] = tokens, boundary, system
        return tokens, boundary, system

    def count(self, held: Sequence[ChatMessage], sources: Sequence[int | None]) -> tuple[int, int, int]:
        # The one loop whose cost grows with the history at every trim: kept inline on purpose.
        tokens = turns = non_system = 0
        for message, source in zip(held, sources, strict=True):
            if source is not None and self._message[source] is message:
                tokens += self._tokens[source]
                turns += self._boundary[source]
                non_system += not self._system[source]
            else:
                tokens += estimate_message_tokens(message)
                turns += self._is_boundary(message)
                non_system += message.role != "system"
        return tokens, turns, non_system


class History:
    """The held history and the per-native bookkeeping of drops (``dropped_at``: call number, 0 = never)."""

    def __init__(self, size: int, facts: MessageFacts) -> None:
        self.held: list[ChatMessage] = []
        self.src: list[int | None] = []
        self.tokens = 0
        self.turns = 0
        self.non_system = 0
        self.spans: list[tuple[int, int]] = []
        self.crumb_at: int | None = None
        self.dropped_at = [0] * size
        self.drop_rules = [""] * size
        self.changes: list[Change] = []
        """Content changes made as messages entered (truncation); they stay with the message."""
        self._facts = facts

    def enter(self, index: int, message: ChatMessage) -> None:
        """Append native message ``index`` (as it enters, e.g. truncated)."""
        tokens, boundary, system = self._facts.entered(index, message)
        self.held.append(message)
        self.src.append(index)
        if self.spans and self.spans[-1][1] == index:
            self.spans[-1] = (self.spans[-1][0], index + 1)
        else:
            self.spans.append((index, index + 1))
        self.tokens += tokens
        self.turns += boundary
        self.non_system += not system

    def sources(self, held_indices: Sequence[int | None]) -> list[int | None]:
        """Native sources of positions in the held history (``None`` stays the breadcrumb)."""
        return [None if k is None else self.src[k] for k in held_indices]

    def adopt(self, history: Sequence[ChatMessage], sources: list[int | None], call: int, rule: str) -> None:
        """Replace the held history with a trim's result; what it left out is dropped at ``call``."""
        kept = {s for s in sources if s is not None}
        for s in self.src:
            if s is not None and s not in kept and self.dropped_at[s] == 0:
                self.dropped_at[s] = call
                self.drop_rules[s] = rule
        self.held, self.src = list(history), sources
        spans, self.crumb_at = ranges(sources)
        self.spans = list(spans)
        self.tokens, self.turns, self.non_system = self._facts.count(self.held, sources)
