"""What a replay records: one :class:`CallRecord` per model call, in the runtime's native message space.

Each runtime holds its own native messages (ZeroClaw ``ChatMessage``, ai-profile ``{role, content}``,
OpenClaw ``AgentMessage``); ``SimulationResult.origins`` maps every native message back to the
transcript messages it was built from, so a view can show fates on the transcript. Records are
compact on purpose: what was sent is a few index ranges, and only messages whose fate is not plain
"kept" are listed, so a 10,000-message replay stays linear in memory.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields, is_dataclass
from enum import StrEnum
from itertools import islice
from operator import attrgetter, itemgetter
from typing import Literal, TypeVar, overload

import msgspec

from simulator.replay.events import TrimEvent
from simulator.replay.made_on_read import MadeWhenRead

T = TypeVar("T")


class Fate(StrEnum):
    KEPT = "kept"
    DROPPED = "dropped"
    SOFT_TRIMMED = "soft-trimmed"
    HARD_CLEARED = "hard-cleared"
    TRUNCATED = "truncated"
    IMAGE_REPLACED = "image-replaced"
    REINSERTED = "re-added"
    BREADCRUMB = "breadcrumb"
    THINKING_DROPPED = "thinking-dropped"
    COMPACTED = "compacted"
    FAILED = "failed"
    """A failed call's error reply, which the runtime does not carry into later requests."""
    NOT_HELD = "not held"
    """A transcript message the runtime has no message for."""


@dataclass(frozen=True, slots=True)
class Change:
    """A native message whose fate is not plain "kept", with the rule that decided it."""

    native_index: int
    fate: Fate
    rule: str
    tokens_before: int
    tokens_after: int
    call: int
    """1-based number of the call at which the rule fired."""


class IndexSlice(Sequence[int]):
    """A read-only window ``source[start:stop]`` of an ascending index list that only ever grows.

    Replays record which messages a rule changed at every call; when those sets are slices of one
    growing list (OpenClaw clears the oldest candidates first), sharing the list keeps a long session's
    records linear in size instead of quadratic. Compares equal to any sequence with the same items.
    """

    __slots__ = ("_source", "_start", "_stop")

    def __init__(self, source: Sequence[int], start: int, stop: int) -> None:
        self._source = source
        self._start = start
        self._stop = max(start, stop)

    def __len__(self) -> int:
        return self._stop - self._start

    @property
    def source(self) -> Sequence[int]:
        """The growing list this is a window of (the same object in every window of it)."""
        return self._source

    @property
    def start(self) -> int:
        return self._start

    @property
    def stop(self) -> int:
        return self._stop

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[int]: ...

    def __getitem__(self, index: int | slice) -> int | Sequence[int]:
        if isinstance(index, slice):
            return tuple(self)[index]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("IndexSlice index out of range")
        return self._source[self._start + index]

    def __iter__(self) -> Iterator[int]:
        source, start = self._source, self._start
        if start and (type(source) is list or type(source) is tuple):
            # islice steps through the first ``start`` items one by one: a window near the end of a long
            # list (a pass's few newest image replacements) would cost its offset at every iteration.
            return iter(source[start : self._stop])
        return islice(source, start, self._stop)

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, int):
            return False
        at = bisect_left(self._source, value, self._start, self._stop)
        return at < self._stop and self._source[at] == value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"IndexSlice({list(self)!r})"


@dataclass(frozen=True, slots=True)
class FateGroup:
    """Native messages that met the same content rule at one call (kept compact: indices only).

    The per-message sizes before/after are recomputed by the view for the one call it shows.
    """

    fate: Fate
    rule: str
    indices: Sequence[int]


@dataclass(frozen=True, slots=True)
class BudgetExplanation:
    """A profile's budget and why: the one explanation the CLI, the API and the pages show.

    ``value`` is what the replay trims to (``None``: no proactive bound) and ``steps`` how it was
    reached; ``summary`` says the same in one line for lists and forms, where ``headline`` picks
    the number that line leads with (OpenClaw prunes relative to its window, not to a budget).
    """

    value: int | None
    bound_by: str
    steps: tuple[str, ...]
    window: int | None = None
    window_source: str | None = None
    summary: str = ""
    headline: Literal["budget", "window"] = "budget"

    @property
    def tokens(self) -> int | None:
        """The number the one-line summary leads with."""
        return self.window if self.headline == "window" else self.value


@dataclass(frozen=True, slots=True)
class RetryStep:
    """One overflow-recovery round: the budget it aimed for and what it achieved."""

    attempt: int
    budget: int
    tokens_before: int
    tokens_after: int
    dropped: int
    recovered: bool


Overflow = Literal["none", "recovered", "failed"]


class CallRecord(msgspec.Struct, frozen=True):
    """What one model call sent, and why.

    A frozen struct rather than a dataclass, as ``simulator.transcript``'s types are: a replay builds one
    per call of the session, and a struct is built in C (a record of twenty fields about 10× faster than
    setting a slotted dataclass's fields one by one). Copy one with a change with
    ``msgspec.structs.replace``. It stays in the cyclic collector: ``FateGroup.indices`` may be a runtime's
    own view."""

    number: int
    """1-based model call number."""
    message_index: int
    """Transcript index of the assistant message this call produced."""
    available: int
    """Native messages ``[0, available)`` existed before the call."""
    sent: tuple[tuple[int, int], ...]
    """Half-open native index ranges sent, in order (the breadcrumb is not in them)."""
    breadcrumb_at: int | None
    """Position in the sent sequence where the breadcrumb note stands, if any."""
    fated: tuple[FateGroup, ...]
    """Content rules that fired at this call (prunes, re-added messages); drops are implied by ``sent``."""
    budget: int | None
    tokens_full: int
    """Runtime estimator: everything available, untrimmed, held (with ``tokens_outside``)."""
    tokens_sent: int
    """Runtime estimator: everything that was sent (the history and ``tokens_outside``)."""
    trimmed: bool
    drop_rule: str = ""
    """Why the available messages that are not in ``sent`` were left out at this call."""
    events: tuple[TrimEvent, ...] = ()
    """The ``HistoryTrimmed`` events this call emitted (ZeroClaw); wire shapes are rendered at the edge."""
    retries: tuple[RetryStep, ...] = ()
    overflow: Overflow = "none"
    provider_input_tokens: int | None = None
    notes: tuple[str, ...] = ()
    marks: tuple[str, ...] = ()
    """Where a runtime event happened at this call, for the timeline (e.g. ``compaction``,
    ``image-cleanup``, ``pruning-inactive``)."""
    tokens_outside: int = 0
    """Of ``tokens_sent``: the messages sent outside the trimmed history (a system prompt the runtime
    sends as the request's own field), which no trim touches."""
    error: str | None = None
    """The provider error this call failed with (the transcript's error turn): the request was sent, no
    reply came back. ``None`` for a call that got its reply."""

    @property
    def failed(self) -> bool:
        return self.error is not None

    @property
    def sent_count(self) -> int:
        """Native messages sent plus the breadcrumb note (pages count transcript messages:
        ``replay/counts.py``)."""
        return sum(end - start for start, end in self.sent) + (self.breadcrumb_at is not None)

    @property
    def saved_tokens(self) -> int:
        return self.tokens_full - self.tokens_sent

    def sent_indices(self) -> Iterator[int]:
        for start, end in self.sent:
            yield from range(start, end)


def slot_builder(cls: type[T]) -> Callable[..., T]:
    """A function building ``cls(*fields)`` -- the same object -- from every field, positionally in field
    order, for a frozen, slotted dataclass without ``__post_init__``.

    A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``, looked up again for
    every field; a value of twenty fields then takes about 3 µs. The builder sets each slot through its
    own descriptor instead (about 2.5× faster). It has no defaults and no keywords (binding keywords
    costs as much again): a call that leaves a field out fails. Like the dataclass's own ``__init__``, it
    is generated source. The values built most (a session's messages, its calls, their records) are
    ``msgspec`` structs instead, built in C (several times faster again). A class of a compiled module
    is its own builder.
    """
    if "__mypyc_attrs__" in cls.__dict__:
        return cls  # compiled by mypyc (simulator/replay/compiled.py): its own __init__ is C already
    if not is_dataclass(cls) or hasattr(cls, "__post_init__") or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a slotted dataclass without __post_init__")
    names = [f.name for f in fields(cls)]
    namespace: dict[str, object] = {"_new": object.__new__, "_cls": cls}
    namespace.update({f"_set_{name}": cls.__dict__[name].__set__ for name in names})
    body = "".join(f"    _set_{name}(self, {name})\n" for name in names)
    source = f"def build({', '.join(names)}, /):\n    self = _new(_cls)\n{body}    return self\n"
    exec(source, namespace)  # noqa: S102 - generated from the class's own field names, as dataclasses does
    built = namespace["build"]
    built.__qualname__ = f"slot_builder({cls.__name__})"  # type: ignore[attr-defined]
    return built  # type: ignore[return-value]


_TRIMMED = attrgetter("trimmed")
_TOKENS_SENT = attrgetter("tokens_sent")

Rare = tuple[Overflow, tuple[RetryStep, ...], tuple[str, ...], str | None]
"""A call's ``(overflow, retries, marks, error)``: what most calls have none of (a timeline reads them
together)."""


@dataclass(frozen=True, slots=True)
class CallColumns:
    """What a timeline and a result's totals read of every call, a list per field, kept when the records
    themselves are made when read (:class:`CallRecords`): those can be summed and drawn without making
    them."""

    numbers: Sequence[int]
    message_indices: Sequence[int]
    full: Sequence[int]
    """``tokens_full`` per call."""
    sent: Sequence[int]
    """``tokens_sent`` per call."""
    trimmed: Sequence[bool]
    rare: Sequence[Rare]


class CallRecords(MadeWhenRead[CallRecord]):
    """A replay's records, each made when first read (:class:`~simulator.replay.made_on_read.MadeWhenRead`),
    with the columns a timeline reads of every call, kept as the replay went: a long session's page then
    makes one record, the call it shows, not tens of thousands."""

    __slots__ = ("columns",)

    def __init__(
        self, items: list[object], make: Callable[[tuple[object, ...]], CallRecord], columns: CallColumns
    ) -> None:
        super().__init__(items, make)
        self.columns = columns


rare_of: Callable[[CallRecord], Rare] = attrgetter("overflow", "retries", "marks", "error")
"""A record's :data:`Rare` column value (its overflow, retries, marks and error)."""
_OVERFLOW_OF_RARE = itemgetter(0)
_ERROR_OF_RARE = itemgetter(3)
_NUMBER = attrgetter("number")
_MESSAGE_INDEX = attrgetter("message_index")
_FULL = attrgetter("tokens_full")


def call_columns(calls: Sequence[CallRecord]) -> CallColumns:
    """The columns of ``calls``: those kept with them, else read off each record (C-level maps)."""
    if isinstance(calls, CallRecords):
        return calls.columns
    return CallColumns(
        list(map(_NUMBER, calls)),
        list(map(_MESSAGE_INDEX, calls)),
        list(map(_FULL, calls)),
        list(map(_TOKENS_SENT, calls)),
        list(map(_TRIMMED, calls)),
        list(map(rare_of, calls)),
    )


def _column(calls: Sequence[CallRecord], name: str, field: Callable[[CallRecord], T]) -> Sequence[T]:
    """One field of every call: the kept column, else read off each record."""
    if isinstance(calls, CallRecords):
        return getattr(calls.columns, name)  # type: ignore[no-any-return]
    return list(map(field, calls))


call_record: Callable[..., CallRecord] = CallRecord
"""``CallRecord(...)`` from every field, positionally in field order: a replay's step builds one per model
call (a struct: no builder needed, the name kept for the steps that call it)."""


@dataclass(frozen=True, slots=True)
class SimulationResult:
    runtime: str
    version: str
    profile_name: str
    budget: BudgetExplanation
    window: int | None
    """The provider window the replay simulated overflows against (``None`` = never overflows)."""
    calls: Sequence[CallRecord]
    """One record per model call, in order: a tuple, or :class:`CallRecords` (made when read) equal to one."""
    origins: tuple[tuple[int, ...], ...]
    """For each native message, the transcript indices it was built from."""
    native_tokens: tuple[int, ...]
    """Runtime estimator per native message, as first held (before any rule changed it)."""
    dropped_at: tuple[int, ...]
    """Per native message: the call that dropped it for good (0 = never), for runtimes that forget."""
    drop_rules: tuple[str, ...]
    """Per native message: the rule that dropped it for good ("" = never)."""
    content_changes: tuple[Change, ...]
    """Content changes that stay with a message once made (e.g. ZeroClaw truncation at entry)."""
    estimator: str
    warnings: tuple[str, ...] = ()
    runtime_label: str = ""
    version_label: str = ""
    resume: Sequence[object] = ()
    """Per call, what the runtime's replay needs to recompute that call alone (opaque to all but it): a
    tuple, or a :class:`~simulator.replay.made_on_read.MadeWhenRead` equal to one."""
    outside: tuple[tuple[int, int], ...] = ()
    """``(transcript index, runtime estimate)`` of every message the runtime sends outside the history it
    trims (ai-profile's and OpenClaw's system prompt and developer instructions), ascending by index."""

    def outside_tokens(self, message_index: int) -> int:
        """What the call whose reply is at ``message_index`` sent outside the history, in tokens."""
        return sum(tokens for index, tokens in self.outside if index < message_index)

    # Counted in C over the calls (a long session has tens of thousands), from the kept columns when the
    # records are made when read.
    @property
    def trims(self) -> int:
        return len(list(filter(None, _column(self.calls, "trimmed", _TRIMMED))))

    @property
    def total_tokens_sent(self) -> int:
        return sum(_column(self.calls, "sent", _TOKENS_SENT))

    @property
    def overflow_failures(self) -> int:
        return list(map(_OVERFLOW_OF_RARE, _column(self.calls, "rare", rare_of))).count("failed")

    @property
    def failed_calls(self) -> int:
        """Calls the transcript records as failed by the provider (error turns)."""
        return len(self.calls) - list(map(_ERROR_OF_RARE, _column(self.calls, "rare", rare_of))).count(None)
