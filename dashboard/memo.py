"""The dashboard's one cache: derived values kept in this process, each under an explicit key.

What is kept: parsed transcripts, their overviews and page indexes, the page heads and chunks read for a
cold page, replays, their costs, and per transcript
the o200k count of each message (filled in as pages ask for them) — values that are expensive to derive
and that depend only on their key. Every key is built from content
(the transcript text's SHA-256 and format, the canonical profile document, the price edits), never from a
database id, so a kept value cannot go stale when rows change: two rows with the same text share one parse,
and an edited profile is a different key. Computing a value is the caller's job (a selector); nothing here
queries the database.

Each store is a bounded LRU map guarded by a lock (daphne runs sync views in a thread pool). Tests that
need a cold cache call :func:`clear`. Only selectors (and tests) import this module.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, NamedTuple, Protocol, TypeVar

from dashboard.parsed_parts import Chunk, PageHead
from simulator import (
    Baseline,
    EstimateCheck,
    PreparedReplay,
    PriceEdit,
    Reread,
    ResultCost,
    SimulationResult,
    Timeline,
    TranscriptIndex,
    TranscriptOverview,
    TranscriptTokens,
)
from simulator import Transcript as ParsedTranscript

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class TranscriptKey(NamedTuple):
    """A transcript's content: the SHA-256 of its text and the format it is read as."""

    sha256: str
    format: str


class ReplayKey(NamedTuple):
    """A replay: the transcript's content, the canonical profile document (JSON, sorted keys), its name and
    the gap assumed between calls of a transcript without timestamps."""

    transcript: TranscriptKey
    document: str
    profile_name: str
    assumed_gap_seconds: float | None = None


class PreparedKey(NamedTuple):
    """A transcript prepared for one runtime's replays (the gap stamps a transcript without timestamps)."""

    transcript: TranscriptKey
    runtime: str
    assumed_gap_seconds: float | None = None


class CostKey(NamedTuple):
    """A replay's cost: the replay, the pricing key asked for, the price edits in effect (by content) and
    the cache-write lifetime."""

    replay: ReplayKey
    pricing: str | None
    edits: tuple[PriceEdit, ...]
    cache_ttl: str = "5m"


class BaselineKey(NamedTuple):
    """The transcript as recorded, priced with a runtime's breakpoints: the baseline every replay through
    that runtime is compared with, whatever the profile (``simulator.recorded_baseline``)."""

    transcript: TranscriptKey
    runtime: str
    assumed_gap_seconds: float | None
    pricing: str | None
    edits: tuple[PriceEdit, ...]
    cache_ttl: str


class Memo(Generic[K, V]):
    """A bounded LRU map; :meth:`get_or_compute` computes outside the lock (a race computes twice)."""

    def __init__(self, name: str, size: int) -> None:
        self.name = name
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> V:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def get_or_compute(self, key: K, compute: Callable[[], V]) -> V:
        hit = self.get(key)
        return hit if hit is not None else self.put(key, compute())

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)


class MessageCounts:
    """One transcript's o200k count per message, filled in as they are asked for.

    One entry per transcript rather than one per message, so a long session's counts are not pushed out
    of a bounded store by its own later messages (a late call sums tens of thousands of them). A count
    depends only on the message's text, so filling it twice (a race) writes the same number.
    """

    def __init__(self, size: int) -> None:
        self._counts: list[int | None] = [None] * size
        self.counted = 0

    def get(self, index: int) -> int | None:
        return self._counts[index]

    def fill(self, index: int, count: int) -> int:
        if self._counts[index] is None:
            self.counted += 1
        self._counts[index] = count
        return count

    def fill_all(self, counts: Sequence[int]) -> None:
        """Every message's count at once (the stored counts: one per message, in order)."""
        if len(counts) != len(self._counts):
            raise ValueError(f"{len(counts)} counts for {len(self._counts)} messages")
        self._counts = list(counts)
        self.counted = len(counts)

    def __len__(self) -> int:
        return len(self._counts)


class ReplayRates:
    """Seconds per message of the replays (or the preparations) this process has run, per runtime (the
    latest of each).

    Only replays of at least :attr:`MIN_MESSAGES` messages are recorded: a short one is dominated by
    fixed costs and would make a long session's estimate far too small.
    """

    MIN_MESSAGES = 1_000

    def __init__(self) -> None:
        self._rates: dict[str, float] = {}
        self._lock = threading.Lock()

    def record(self, runtime: str, messages: int, seconds: float) -> None:
        if messages >= self.MIN_MESSAGES:
            with self._lock:
                self._rates[runtime] = seconds / messages

    def get(self, runtime: str) -> float | None:
        with self._lock:
            return self._rates.get(runtime)

    def clear(self) -> None:
        with self._lock:
            self._rates.clear()


PARSED: Memo[TranscriptKey, ParsedTranscript] = Memo("parsed transcripts", 16)
OVERVIEWS: Memo[TranscriptKey, TranscriptOverview] = Memo("transcript overviews", 16)
# A knob change replays the same transcript again: its conversion and sizing are kept apart from the
# replays, so only the replay itself is redone (a few per process: each holds the native messages).
PREPARED: Memo[PreparedKey, PreparedReplay] = Memo("transcripts prepared for replays", 8)
REPLAYS: Memo[ReplayKey, SimulationResult] = Memo("replays", 32)
COSTS: Memo[CostKey, ResultCost] = Memo("replay costs", 32)
# A knob change, or another profile of the runtime, prices a new replay against the same baseline.
BASELINES: Memo[BaselineKey, Baseline] = Memo("baselines of replay costs", 8)
TIMELINES: Memo[ReplayKey, Timeline] = Memo("timelines of replays", 32)
REREADS: Memo[ReplayKey, tuple[Reread, ...]] = Memo("re-reads of replays", 32)
ESTIMATES: Memo[ReplayKey, EstimateCheck] = Memo("estimate checks of replays", 32)
INDEXES: Memo[TranscriptKey, TranscriptIndex] = Memo("transcript page indexes", 16)
# A cold page of a long session reads its head and one chunk of the stored parts, not the whole parse
# (chunks are kept under their size and number).
PAGE_HEADS: Memo[TranscriptKey, PageHead] = Memo("transcript page heads", 64)
PAGE_CHUNKS: Memo[tuple[TranscriptKey, int, int], Chunk] = Memo("chunks of transcripts read for pages", 16)
MESSAGE_COUNTS: Memo[TranscriptKey, MessageCounts] = Memo("o200k counts of messages", 16)
TRANSCRIPT_TOKENS: Memo[TranscriptKey, TranscriptTokens] = Memo("per-message costing facts", 16)
REPLAY_RATES = ReplayRates()
"""Replays from a kept preparation: what a knob change costs."""
PREPARE_RATES = ReplayRates()
"""Preparing a transcript for a runtime: what a first replay costs on top of the replay."""


class _Clearable(Protocol):
    def clear(self) -> None: ...


STORES: tuple[_Clearable, ...] = (
    PARSED,
    OVERVIEWS,
    INDEXES,
    PAGE_HEADS,
    PAGE_CHUNKS,
    PREPARED,
    REPLAYS,
    COSTS,
    BASELINES,
    TIMELINES,
    REREADS,
    ESTIMATES,
    MESSAGE_COUNTS,
    TRANSCRIPT_TOKENS,
    PREPARE_RATES,
    REPLAY_RATES,
)


def clear() -> None:
    """Forget every kept value (tests that must see a value derived again call this)."""
    for store in STORES:
        store.clear()
