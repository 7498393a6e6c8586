"""What a call sent changed, told as runs: the shape a long session's pruned calls have.

OpenClaw hard-clears a run of the oldest tool results, and the run grows with the session: a mapping of
every changed message per call makes pricing a session the square of its length. :class:`SentRuns` is that
same mapping (``native index → (tokens, text)`` as sent), and also says how it is made: a few single
messages over runs, each run a window of one growing index list whose messages are each sent the same way
at every call that sends them changed by that run. A reader may keep what it derives per index of a run
(the cost model keeps a segment) and build a call from slices instead of message by message.

A layer (:class:`SentLayer`) is a run with a stronger promise, for a rewrite that stays once made (OpenClaw
strips the thinking of every assistant but the latest, and cleans every screenshot older than a few turns):
its window is a prefix of its list, and every later call's window of the same list extends it. A reader may
then keep one copy of the natives with every layer applied, shared by all calls.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass

from simulator.replay.model import IndexSlice

Content = tuple[int, str]
"""``(runtime tokens, text)`` of a message as sent."""


@dataclass(frozen=True, slots=True)
class SentRun:
    """The natives ``indices`` sent as ``content(index)``.

    ``content(index)`` is the same for the same ``key`` and index at every call of a replay: that is the
    promise a reader may keep a derived value per ``(key, index)`` on.
    """

    key: Hashable
    indices: IndexSlice
    content: Callable[[int], Content]


@dataclass(frozen=True, slots=True)
class SentLayer:
    """The natives ``indices`` (a prefix of its list: ``start`` 0) sent as ``content(index)``, under any
    single or run that also holds the index.

    Besides a run's promise (the same content for the same key and index at every call), every later call
    that tells a layer of the same list tells a window at least as long: what is sent changed so stays.
    """

    key: Hashable
    indices: IndexSlice
    content: Callable[[int], Content]


class SentRuns(Mapping[int, Content]):
    """Native index → ``(tokens, text)`` as sent: ``singles`` first, then the runs in order, then the
    layers in order."""

    __slots__ = ("layers", "runs", "singles")

    def __init__(
        self,
        singles: Mapping[int, Content],
        runs: tuple[SentRun, ...],
        layers: tuple[SentLayer, ...] = (),
    ) -> None:
        self.singles = singles
        self.runs = runs
        self.layers = layers

    def __getitem__(self, index: int) -> Content:
        found = self.singles.get(index)
        if found is not None:
            return found
        for run in self._told():
            if index in run.indices:
                return run.content(index)
        raise KeyError(index)

    def __iter__(self) -> Iterator[int]:
        yield from self.singles
        seen: list[IndexSlice] = []
        for run in self._told():
            for index in run.indices:
                if index not in self.singles and not any(index in s for s in seen):
                    yield index
            seen.append(run.indices)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __bool__(self) -> bool:
        # Without it truth would count every message (``__len__``).
        return bool(self.singles) or any(run.indices for run in self._told())

    def _told(self) -> tuple[SentRun | SentLayer, ...]:
        """The runs, then the layers: the order an index is looked for after the singles."""
        return (*self.runs, *self.layers)


__all__ = ["Content", "SentLayer", "SentRun", "SentRuns"]
