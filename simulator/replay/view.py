"""What the simulation screen shows, computed from a replay: the timeline, one call's context, the window.

Pure view models: the dashboard renders them, tests read them. Sizes are in the runtime's estimator
(tokens; OpenClaw's chars / 4). One call's rows are rebuilt on demand from the compact call record,
including the before/after size of every message a rule changed.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Collection, Container, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, chain, compress, islice, repeat, starmap
from operator import attrgetter, is_, ne, sub
from typing import Literal, NamedTuple, TypeAlias

from simulator.long_lived import collector_paused
from simulator.replay.counts import CallCounts, call_counts
from simulator.replay.made_on_read import MadeOnRead
from simulator.replay.model import (
    CallColumns,
    CallRecord,
    Change,
    Fate,
    FateGroup,
    SimulationResult,
    call_columns,
)
from simulator.transcript import Message, Role, Transcript

PREVIEW = 160
BREADCRUMB_TEXT = "[earlier turns omitted to fit the context window]"


# -- timeline ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bar:
    first_call: int
    last_call: int
    full: int
    sent: int
    trimmed: bool
    overflow: str
    retries: int
    marks: tuple[str, ...] = ()
    """Runtime events in the bucket (``CallRecord.marks``), each once, in order of first appearance."""
    failed: int = 0
    """Calls in the bar that the provider failed (the transcript's error turns)."""


@dataclass(frozen=True, slots=True)
class Timeline:
    bars: tuple[Bar, ...]
    y_max: int
    budget: int | None
    window: int | None
    calls: int
    trims: int = 0
    """The replay's totals, read in the same pass as the bars (``SimulationResult.trims`` and the rest):
    the page shows them, and each property walks every call again."""
    total_tokens_sent: int = 0
    overflow_failures: int = 0
    failed_calls: int = 0
    trimmed_calls: tuple[int, ...] = ()
    """The numbers of the calls that trimmed, ascending (the page's first call and its trim links)."""

    def y(self, tokens: int, height: float) -> float:
        return height - (tokens / self.y_max) * height if self.y_max else height

    @property
    def default_call(self) -> int:
        """The call to open first: the first one where something was trimmed, else the last one."""
        return self.trimmed_calls[0] if self.trimmed_calls else self.calls

    def next_trim(self, number: int) -> int | None:
        """The first trimmed call after call ``number``."""
        at = bisect_right(self.trimmed_calls, number)
        return self.trimmed_calls[at] if at < len(self.trimmed_calls) else None

    def previous_trim(self, number: int) -> int | None:
        """The last trimmed call before call ``number``."""
        at = bisect_left(self.trimmed_calls, number)
        return self.trimmed_calls[at - 1] if at else None


@dataclass(slots=True)
class _Totals:
    """The replay's totals, gathered bar by bar (``SimulationResult``'s properties each walk the calls)."""

    trims: int = 0
    sent: int = 0
    overflow_failures: int = 0
    failed: int = 0
    trimmed_calls: list[int] = field(default_factory=list)


def timeline(result: SimulationResult, *, max_bars: int = 400) -> Timeline:
    """Context size per call; long sessions are bucketed (each bar shows its bucket's largest call).

    Read from the calls' columns (:func:`~simulator.replay.model.call_columns`): a replay whose records are
    made when read is drawn without making them."""
    columns = call_columns(result.calls)
    count = len(result.calls)
    size = max(1, math.ceil(count / max_bars))
    totals = _Totals()
    bars = tuple(_bar(columns, start, min(start + size, count), totals) for start in range(0, count, size))
    return _scaled(result, bars, totals)


_QUIET = ("none", (), (), None)
"""A call without overflow, retries, marks or error: most calls, so a bucket of them skips those fields."""


def _bar(columns: CallColumns, start: int, stop: int, totals: _Totals) -> Bar:
    """The bar of calls ``[start, stop)``, its totals added to ``totals`` (each field a slice of its
    column, read with C-level functions: a long session has a bucket of a hundred calls or more)."""
    numbers, sent, trimmed = (
        columns.numbers[start:stop],
        columns.sent[start:stop],
        columns.trimmed[start:stop],
    )
    trims = list(compress(numbers, trimmed))
    totals.trimmed_calls += trims
    totals.trims += len(trims)
    totals.sent += sum(sent)
    first, last, full = numbers[0], numbers[-1], max(columns.full[start:stop])
    rare = columns.rare[start:stop]
    if rare.count(_QUIET) == len(rare):
        return Bar(first, last, full, max(sent), bool(trims), "none", 0)
    states = [r[0] for r in rare]
    failed = len(rare) - [r[3] for r in rare].count(None)
    totals.overflow_failures += states.count("failed")
    totals.failed += failed
    return Bar(
        first_call=first,
        last_call=last,
        full=full,
        sent=max(sent),
        trimmed=bool(trims),
        overflow="failed" if "failed" in states else "recovered" if "recovered" in states else "none",
        retries=sum(len(r[1]) for r in rare),
        marks=tuple(dict.fromkeys(chain.from_iterable(r[2] for r in rare))),
        failed=failed,
    )


def _scaled(result: SimulationResult, bars: tuple[Bar, ...], totals: _Totals) -> Timeline:
    """The timeline of ``bars``, scaled to them, with the replay's totals."""
    top = max([b.full for b in bars] + [b.sent for b in bars], default=0)
    # The chart is scaled to the data: a budget or window far above everything held would flatten the
    # bars into a strip, so a line more than 1.6x the largest call is named above the chart, not drawn.
    limit = top * 1.6 if top else math.inf
    budget = result.budget.value if result.budget.value and result.budget.value <= limit else None
    window_tokens = result.window or result.budget.window
    window = window_tokens if window_tokens and window_tokens <= limit else None
    y_max = max(top, budget or 0, window or 0)
    return Timeline(
        bars,
        int(y_max * 1.08),
        budget,
        window,
        len(result.calls),
        trims=totals.trims,
        total_tokens_sent=totals.sent,
        overflow_failures=totals.overflow_failures,
        failed_calls=totals.failed,
        trimmed_calls=tuple(totals.trimmed_calls),
    )


# -- one call's context ------------------------------------------------------------------------------

RowKind = Literal["message", "dropped-run", "breadcrumb"]

_USER = Role.USER
_ASSISTANT = Role.ASSISTANT
NOT_HELD_FATES = frozenset({Fate.DROPPED, Fate.FAILED, Fate.NOT_HELD})
"""Fates of messages a call did not send (every other fate is a message that was sent)."""


@dataclass(frozen=True, slots=True)
class Row:
    kind: RowKind
    fate: Fate
    rule: str
    turn: int | None
    index: int | None = None
    last_index: int | None = None
    role: str = ""
    preview: str = ""
    tokens_before: int | None = None
    tokens_after: int | None = None
    count: int = 1
    grouped: bool = False
    """The message shares one native message with the row before (its size is counted there)."""
    role_label: str = ""
    """The role as shown ("developer instructions" for a Codex ``developer`` message)."""

    @property
    def sent(self) -> bool:
        return self.fate not in NOT_HELD_FATES


@dataclass(frozen=True, slots=True)
class Segment:
    label: str
    css: str
    tokens: int


class _Pending(NamedTuple):
    """A message row not made yet: everything but its preview and role, which read the message's text."""

    message_index: int
    turn: int | None
    fate: Fate
    rule: str
    before: int
    after: int
    grouped: bool = False


class _Stretch(NamedTuple):
    """Message rows made a stretch at a time (:func:`_plain_stretch`): messages ``first`` on, one per size,
    each sent as stored (kept, no rule, alone in its native message)."""

    first: int
    turn: int
    """The turn before the stretch's first message."""
    opens: list[int]
    """The stretch's messages that open a turn (a user's own message), ascending."""
    sizes: Sequence[int]

    def pending(self, j: int) -> _Pending:
        """The ``j``-th row of the stretch, not made yet."""
        size = self.sizes[j]
        index = self.first + j
        turn = self.turn + bisect_right(self.opens, index)
        return _Pending(index, turn or None, Fate.KEPT, "", size, size)  # turn 0: none yet


_Item: TypeAlias = "Row | _Pending | _Stretch"
"""What a call's row list holds: a row, a message row not made yet, or a stretch of them."""


def _pending_rows(items: Sequence[_Item]) -> Iterator[Row | _Pending]:
    """``items`` with every stretch spelled out, row by row."""
    for item in items:
        if isinstance(item, _Stretch):
            yield from map(item.pending, range(len(item.sizes)))
        else:
            yield item


class CallRows(MadeOnRead[Row]):
    """One call's rows, each message row made when first read and then kept.

    A late call of a long session that sends all it holds (OpenClaw never forgets) has a row per
    message, tens of thousands; the page shows one page of them. The rows' fates and sizes (the chips,
    the segments, the page count) are known without their previews, which read and collapse each
    message's text: most of building every row.
    """

    __slots__ = ("_items", "_made", "_starts", "_transcript")

    def __init__(self, transcript: Transcript, items: list[_Item]) -> None:
        self._transcript = transcript
        self._items = items
        # Where each item's rows begin, and the number of rows last (a stretch holds many).
        self._starts = list(
            accumulate((len(i.sizes) if type(i) is _Stretch else 1 for i in items), initial=0)
        )
        self._made: dict[int, Row] = {}

    def __len__(self) -> int:
        return self._starts[-1]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def _row(self, k: int) -> Row:
        made = self._made.get(k)
        if made is not None:
            return made
        at = bisect_right(self._starts, k) - 1
        item = self._items[at]
        if isinstance(item, Row):
            return item
        pending = item.pending(k - self._starts[at]) if isinstance(item, _Stretch) else item
        index, turn, fate, rule, before, after, grouped = pending
        # Made once: the same value whoever makes it first (a race writes an equal row).
        row = _message_row(self._transcript, index, turn, fate, rule, before, after, grouped=grouped)
        self._made[k] = row
        return row


@dataclass(frozen=True, slots=True)
class CallView:
    call: CallRecord
    rows: CallRows
    """Every row, each made when first read (a page shows a few of tens of thousands)."""
    segments: tuple[Segment, ...]
    """What was sent, by kind, in the runtime's estimator: adds up to ``call.tokens_sent`` (for OpenClaw,
    whose sizes are chars / 4 rounded up per message while a call's total rounds once, up to one token
    more per message)."""
    window: int | None
    counts: CallCounts
    """The call's message counts (``replay/counts.py``); the chips below add up to ``counts.listed``."""
    fate_counts: tuple[tuple[str, int], ...]
    """The chips: transcript messages per fate, in ``Fate`` order (the breadcrumb note is not one)."""

    @property
    def sent_tokens(self) -> int:
        return sum(s.tokens for s in self.segments)


def _preview(text: str) -> str:
    """The text with whitespace runs collapsed, cut to ``PREVIEW`` characters with an ellipsis."""
    # Collapsing a head of the text gives a prefix of collapsing all of it: when that prefix is already
    # longer than the preview, the rest of a long tool result need not be split and joined (a call view
    # makes a row per message, tens of thousands for a long session).
    head = text[: 4 * PREVIEW]
    collapsed = " ".join(head.split())
    if len(head) < len(text) and len(collapsed) <= PREVIEW:
        collapsed = " ".join(text.split())
    return collapsed if len(collapsed) <= PREVIEW else collapsed[: PREVIEW - 1] + "…"


def _message_text(transcript: Transcript, index: int) -> str:
    message = transcript.messages[index]
    text = message.text
    if not text and message.tool_calls:
        text = ", ".join(f"{c.name}({c.arguments})" for c in message.tool_calls)
    if not text and message.error is not None:
        text = f"(error) {message.error}"
    return text


def _role_label(message: Message) -> str:
    if message.variant == "developer_instructions":
        return "developer instructions"
    if message.error is not None:
        return "assistant (failed)"
    return message.role.value


@dataclass(frozen=True, slots=True)
class _CallIndex:
    """Where each transcript message stands at one call, looked up once per view."""

    native_of: Mapping[int, int]
    first_of_native: Collection[int]
    origins: Sequence[tuple[int, ...]]
    """The natives' messages, of the natives the call holds."""
    sent: Container[int]
    group_of: dict[int, FateGroup]
    truncated: dict[int, Change]
    after: dict[int, int]
    breadcrumb_before: int | None
    outside: dict[int, int]
    ascending: _Ascending | None = None
    """``native_of`` when it is compact (see :class:`_Ascending`); ``sent`` is then a :class:`_Ranges`."""

    def sizes(self, tokens: Sequence[int], start: int, stop: int) -> Sequence[int]:
        """The sizes of the natives of messages ``start`` to ``stop``, each held alone by its native."""
        if self.ascending is not None:  # consecutive held messages are consecutive natives
            first = self.ascending[start]
            return tokens[first : first + stop - start]
        native_of = self.native_of
        return list(map(tokens.__getitem__, map(native_of.__getitem__, range(start, stop))))


class _Ascending(Mapping[int, int]):
    """``native_of`` when every native holds exactly one message and those messages ascend: native ``k``
    holds message ``held[k]``, found by bisection. A dict and sets over a long session's hundred thousand
    messages were most of a call view; this is built from one C-level pass.

    Every held message is the first of its native, so the mapping is also ``first_of_native``."""

    __slots__ = ("held", "unheld")

    def __init__(self, held: list[int], unheld: list[int]) -> None:
        self.held = held
        self.unheld = unheld
        """The messages before the last held one that no native holds, ascending."""

    def get(self, index: int, default: int | None = None) -> int | None:  # type: ignore[override]
        held = self.held
        k = bisect_left(held, index)
        return k if k < len(held) and held[k] == index else default

    def __getitem__(self, index: int) -> int:
        native = self.get(index)
        if native is None:
            raise KeyError(index)
        return native

    def __contains__(self, index: object) -> bool:
        return isinstance(index, int) and self.get(index) is not None

    def __iter__(self) -> Iterator[int]:
        return iter(self.held)

    def __len__(self) -> int:
        return len(self.held)

    @classmethod
    def of(cls, held: list[int]) -> _Ascending | None:
        """The mapping of natives holding ``held`` (one message each), or ``None`` unless they ascend."""
        steps = list(map(sub, islice(held, 1, None), held))
        every_next = steps.count(1) == len(steps)  # then they ascend (most often: no gaps)
        if not every_next and min(steps, default=1) < 1:
            return None
        unheld = list(range(held[0])) if held else []
        if not every_next:  # gaps: messages held by no native
            for k in compress(range(len(steps)), map(ne, steps, repeat(1))):
                unheld.extend(range(held[k] + 1, held[k + 1]))
        return cls(held, unheld)


class _Ranges(Container[int]):
    """The natives a call sent, as its ascending, disjoint ranges (membership by bisection)."""

    __slots__ = ("_starts", "_stops")

    def __init__(self, ranges: Sequence[tuple[int, int]]) -> None:
        kept = [(start, stop) for start, stop in ranges if stop > start]
        self._starts = [start for start, _ in kept]
        self._stops = [stop for _, stop in kept]

    def __contains__(self, native: object) -> bool:
        if not isinstance(native, int):
            return False
        k = bisect_right(self._starts, native) - 1
        return k >= 0 and native < self._stops[k]

    def gaps(self, size: int) -> Iterator[tuple[int, int]]:
        """The ranges of natives below ``size`` that were not sent."""
        last = 0
        for start, stop in zip(self._starts, self._stops, strict=True):
            if start > last:
                yield last, min(start, size)
            last = stop
        if last < size:
            yield last, size

    @staticmethod
    def fits(ranges: Sequence[tuple[int, int]]) -> bool:
        """Whether the non-empty ranges ascend without overlapping."""
        last = 0
        for start, stop in ranges:
            if stop > start:
                if start < last:
                    return False
                last = stop
        return True


def _call_index(
    result: SimulationResult,
    call: CallRecord,
    changed: Mapping[int, tuple[int, str]] | None,
    *,
    compact: bool = True,
) -> _CallIndex:
    """The call's index; ``compact=False`` always builds the dicts and sets (the reference of the compact
    lookups, which tests compare with it)."""
    origins = result.origins[: call.available]
    flat = list(chain.from_iterable(origins))
    one_each = len(flat) == len(origins) and max(map(len, origins), default=1) == 1  # each exactly one
    ascending = _Ascending.of(flat) if one_each and compact and _Ranges.fits(call.sent) else None
    native_of: Mapping[int, int]
    first_of_native: Collection[int]
    sent: Container[int]
    if ascending is not None:
        native_of = first_of_native = ascending
        sent = _Ranges(call.sent)
    else:
        native_of, first_of_native = _native_dicts(origins, flat, one_each)
        sent = set(chain.from_iterable(starmap(range, call.sent)))
    breadcrumb_before: int | None = None
    if call.breadcrumb_at is not None and ascending is not None:
        breadcrumb_before = _nth_sent(call.sent, call.breadcrumb_at)
    elif call.breadcrumb_at is not None:
        order = list(call.sent_indices())
        if call.breadcrumb_at < len(order):
            breadcrumb_before = order[call.breadcrumb_at]
    return _CallIndex(
        native_of,
        first_of_native,
        origins,
        sent,
        {i: g for g in call.fated for i in g.indices},
        {c.native_index: c for c in result.content_changes if c.native_index in sent},
        {k: v[0] for k, v in (changed or {}).items()},
        breadcrumb_before,
        dict(result.outside),
        ascending,
    )


def _nth_sent(sent: Sequence[tuple[int, int]], position: int) -> int | None:
    """``list(call.sent_indices())[position]`` (``None`` past the end), without the list."""
    for start, stop in sent:
        if position < stop - start:
            return start + position
        position -= max(0, stop - start)
    return None


def _native_dicts(
    origins: Sequence[tuple[int, ...]], flat: list[int], one_each: bool
) -> tuple[dict[int, int], set[int]]:
    """``native_of`` and ``first_of_native`` as a dict and a set (``one_each``: each native holds one
    message, ``flat`` is theirs in order)."""
    # A message in two natives' origins stands for the later one, as a loop setting each in turn would
    # (and as ``dict(zip(...))`` does: when every native has one message, both are made in C).
    if one_each:
        return dict(zip(flat, range(len(flat)), strict=True)), set(flat)
    native_of = {t: position for position, origin in enumerate(origins) for t in origin}
    return native_of, {origin[0] for origin in origins if origin}


def _breadcrumb_row(turn: int | None) -> Row:
    return Row(
        "breadcrumb", Fate.BREADCRUMB, "inserted before the first kept turn", turn, preview=BREADCRUMB_TEXT
    )


def _dropped_rule(result: SimulationResult, call: CallRecord, native: int) -> str:
    rule = result.drop_rules[native] or call.drop_rule or "not sent"
    if result.dropped_at[native] and result.dropped_at[native] < call.number:
        rule = f"dropped at call {result.dropped_at[native]}: {rule}"
    return rule


@dataclass(slots=True)
class _DroppedRun:
    """The stretch of dropped messages being gathered: consecutive drops by the same rule are one row.

    Gathered in place and written as one row when the stretch ends (a late call of a long session drops
    tens of thousands of messages; rebuilding the row at each of them was most of its view)."""

    rule: str = ""
    turn: int | None = None
    first: int = 0
    last: int = 0
    count: int = 0
    tokens: int = 0

    def add(self, rows: list[_Item], rule: str, turn: int | None, index: int, size: int) -> None:
        if self.count and rule != self.rule:
            self.end(rows)
        if not self.count:
            self.rule, self.turn, self.first = rule, turn, index
        self.last = index
        self.count += 1
        self.tokens += size

    def end(self, rows: list[_Item]) -> None:
        """Write the stretch gathered so far (if any) as its row."""
        if self.count:
            rows.append(
                Row(
                    "dropped-run",
                    Fate.DROPPED,
                    self.rule,
                    self.turn,
                    self.first,
                    self.last,
                    count=self.count,
                    tokens_before=self.tokens,
                )
            )
            self.count = self.tokens = 0


def _sent_row(at: _CallIndex, native: int | None, index: int, turn: int | None, size: int) -> _Pending:
    fate, rule, size_after = Fate.KEPT, "", size
    if native is not None and native in at.group_of:
        group = at.group_of[native]
        fate, rule = group.fate, group.rule
        size_after = at.after.get(native, size)
    elif native is not None and native in at.truncated:
        change = at.truncated[native]
        fate, rule, size_after = change.fate, change.rule, change.tokens_after
    grouped = native is not None and index not in at.first_of_native
    return _Pending(index, turn, fate, rule, size, size_after, grouped)


def _outside_row(transcript: Transcript, at: _CallIndex, index: int, turn: int | None) -> _Pending:
    """A message the runtime holds no native message for: sent beside the history, or not held at all."""
    message = transcript.messages[index]
    if message.role is Role.SYSTEM:
        fate = Fate.KEPT
        what = "developer instructions" if message.variant == "developer_instructions" else "system prompt"
        rule = f"sent as the {what}, outside the trimmed history"
        size = at.outside.get(index, 0)
    elif message.error is not None:
        fate, rule, size = Fate.FAILED, "the provider failed this call; its error is not carried", 0
    else:
        fate, rule, size = Fate.NOT_HELD, "not part of what this runtime holds", 0
    return _Pending(index, turn, fate, rule, size, size)


def _message_row(
    transcript: Transcript,
    index: int,
    turn: int | None,
    fate: Fate,
    rule: str,
    before: int,
    after: int,
    *,
    grouped: bool = False,
) -> Row:
    """The row of one transcript message, sent or not, with its sizes before and after the call's rules."""
    message = transcript.messages[index]
    return Row(
        "message",
        fate,
        rule,
        turn,
        index,
        index,
        role=message.role.value,
        preview=_preview(_message_text(transcript, index)),
        tokens_before=before,
        tokens_after=after,
        grouped=grouped,
        role_label=_role_label(message),
    )


def _segment_key(message: Message) -> str:
    if message.variant == "developer_instructions":
        return "developer"
    return _SEGMENT_OF_ROLE[message.role]


_SEGMENT_OF_ROLE = {role: "tool" if role is Role.TOOL else role.value for role in Role}


SEGMENT_LABELS = (
    ("system", "System"),
    ("developer", "Developer instructions"),
    ("user", "User"),
    ("assistant", "Assistant"),
    ("tool", "Tool results"),
    ("breadcrumb", "Breadcrumb"),
)


def _by_fate(rows: Sequence[_Item]) -> tuple[tuple[str, int], ...]:
    # A message row counts one message, a stretch one per message.
    by_fate: Counter[Fate] = Counter()
    for row in rows:
        if isinstance(row, _Stretch):
            by_fate[Fate.KEPT] += len(row.sizes)
        elif isinstance(row, _Pending):
            by_fate[row.fate] += 1
        elif row.kind != "breadcrumb":
            by_fate[row.fate] += row.count
    return tuple((fate.value, by_fate[fate]) for fate in Fate if by_fate.get(fate))


def _rows(
    transcript: Transcript,
    result: SimulationResult,
    call: CallRecord,
    at: _CallIndex,
    special: list[int] | None = None,
) -> tuple[list[_Item], dict[str, int]]:
    """The call's rows (message rows pending) and the tokens sent per segment key.

    What :func:`_rows_by_message` gives. A late call of a long session sends tens of thousands of
    messages as they are (OpenClaw never forgets): those plain rows -- sent, alone in their native
    message, no rule changed them, no breadcrumb before them -- are made a stretch at a time, in C-level
    maps; every other message (``special``: by default the ones that are not plain) takes the
    message-by-message path.
    """
    messages = transcript.messages
    end = call.message_index
    rows: list[_Item] = []
    drops = _DroppedRun()
    turn = 0
    segments = dict.fromkeys((key for key, _ in SEGMENT_LABELS), 0)
    tokens = result.native_tokens
    special = _special_indices(at, end) if special is None else special
    special.append(end)  # the sentinel: the last stretch ends at the call
    start = 0
    for index in special:
        if start < index:  # a stretch of plain rows
            drops.end(rows)
            sizes = at.sizes(tokens, start, index)
            turn = _plain_stretch(messages, start, index, turn, sizes, rows, segments)
        if index == end:
            break
        start = index + 1
        message = messages[index]
        if message.role is Role.USER and message.tool_result is None:
            turn += 1
        row = _special_row(transcript, result, call, at, index, turn or None, drops, rows)
        if row is None:
            continue
        if row.fate not in NOT_HELD_FATES and not row.grouped:
            segments[_segment_key(message)] += row.after
        drops.end(rows)
        rows.append(row)
    drops.end(rows)
    if call.breadcrumb_at is not None and at.breadcrumb_before is None:
        rows.append(_breadcrumb_row(turn or None))
    if call.breadcrumb_at is not None:
        # The note is sent too; its size is what the call sent beyond its messages.
        segments["breadcrumb"] = max(0, call.tokens_sent - sum(segments.values()))
    return rows, segments


def _special_indices(at: _CallIndex, end: int) -> list[int]:
    """The messages before ``end`` whose rows are not plain (see :func:`_rows`), ascending."""
    if at.ascending is not None and isinstance(at.sent, _Ranges):
        return _special_indices_ascending(at, at.ascending, at.sent, end)
    assert isinstance(at.sent, set) and isinstance(at.first_of_native, set)  # noqa: S101 - built so
    plain_natives = at.sent.difference(at.group_of, at.truncated)
    if at.breadcrumb_before is not None:
        plain_natives.discard(at.breadcrumb_before)
    # Not plain: a message held by no native, not the first of its native, or of a native that is not
    # plain (found from those natives' own messages: late in a long session, few).
    native_of = at.native_of
    special = set(range(end)).difference(native_of)
    special.update(native_of.keys() - at.first_of_native)
    for native in set(range(len(at.origins))).difference(plain_natives):
        special.update(t for t in at.origins[native] if t < end and native_of.get(t) == native)
    return sorted(special)


def _special_indices_ascending(at: _CallIndex, held: _Ascending, sent: _Ranges, end: int) -> list[int]:
    """What :func:`_special_indices` gives when every native holds one message and they ascend: the
    messages no native holds and those of the natives that were not sent or that a rule changed, found
    from those natives alone."""
    messages = held.held
    special = set(held.unheld)
    special.update(range(messages[-1] + 1 if messages else 0, end))
    for start, stop in sent.gaps(len(messages)):
        special.update(messages[start:stop])
    natives = [*at.group_of, *at.truncated]
    if at.breadcrumb_before is not None:
        natives.append(at.breadcrumb_before)
    special.update(messages[native] for native in natives if 0 <= native < len(messages))
    return sorted(t for t in special if t < end)


def _special_row(
    transcript: Transcript,
    result: SimulationResult,
    call: CallRecord,
    at: _CallIndex,
    index: int,
    turn: int | None,
    drops: _DroppedRun,
    rows: list[_Item],
) -> _Pending | None:
    """One message's row as :func:`_rows_by_message` makes it, or ``None`` when it joins a dropped run."""
    native = at.native_of.get(index)
    if native is not None and native == at.breadcrumb_before and index in at.first_of_native:
        drops.end(rows)
        rows.append(_breadcrumb_row(turn))
    grouped = native is not None and index not in at.first_of_native
    size = 0 if native is None or grouped else result.native_tokens[native]
    if native is None:
        return _outside_row(transcript, at, index, turn)
    if native not in at.sent:
        drops.add(rows, _dropped_rule(result, call, native), turn, index, size)
        return None
    return _sent_row(at, native, index, turn, size)


_ROLE = attrgetter("role")
_VARIANT = attrgetter("variant")
_TOOL_RESULT = attrgetter("tool_result")


def _plain_stretch(
    messages: Sequence[Message],
    start: int,
    stop: int,
    turn: int,
    sizes: Sequence[int],
    rows: list[_Item],
    segments: dict[str, int],
) -> int:
    """Append the plain rows of messages ``start`` to ``stop`` (their sizes ``sizes``) and add their sizes
    to ``segments``; the turn after them.

    Read in C-level maps, a column at a time (a late call of a long session has a stretch of a hundred
    thousand messages): each row's turn is found when the row is made, from the turns' openings."""
    stretch = messages[start:stop]
    roles = list(map(_ROLE, stretch))
    is_user = list(map(is_, roles, repeat(_USER)))
    users = list(compress(range(start, stop), is_user))
    no_result = map(is_, map(_TOOL_RESULT, compress(stretch, is_user)), repeat(None))
    opens = list(compress(users, no_result))
    rows.append(_Stretch(start, turn, opens, sizes))
    # A variant is rare (``any`` stops at the first); only developer instructions have their own segment.
    if any(map(_VARIANT, stretch)) and "developer_instructions" in map(_VARIANT, stretch):
        for message, size in zip(stretch, sizes, strict=True):  # _segment_key, inline
            segments[_segment_key(message)] += size
    else:
        _add_by_role(roles, is_user, sizes, segments)
    return turn + len(opens)


def _add_by_role(
    roles: list[Role], is_user: list[bool], sizes: Sequence[int], segments: dict[str, int]
) -> None:
    """Add each message's size to its role's segment (``is_user``: whether each is a user's): the users'
    from ``is_user``, the assistant's (most often the most) from the total, without a pass of its own."""
    total = sum(sizes)
    present = set(roles)
    last = _ASSISTANT if _ASSISTANT in present else _USER
    for role in sorted(present - {last}):
        mask = is_user if role is _USER else map(is_, roles, repeat(role))
        part = sum(compress(sizes, mask))
        segments[_SEGMENT_OF_ROLE[role]] += part
        total -= part
    segments[_SEGMENT_OF_ROLE[last]] += total


def _rows_by_message(
    transcript: Transcript, result: SimulationResult, call: CallRecord, at: _CallIndex
) -> tuple[list[_Item], dict[str, int]]:
    """What :func:`_rows` gives, every message taking the message-by-message path: the reference of its
    stretches (tests compare the two)."""
    return _rows(transcript, result, call, at, list(range(call.message_index)))


def call_view(
    transcript: Transcript,
    result: SimulationResult,
    number: int,
    *,
    changed: Mapping[int, tuple[int, str]] | None = None,
) -> CallView:
    """Every transcript message available to call ``number`` with its fate and the rule behind it.

    Runs of dropped messages collapse into one row per dropped stretch. The counts come from
    ``replay/counts.py`` (as in the JSON reports); the chips and the window's segments from these rows.

    Args:
        transcript: The replayed transcript.
        result: Its replay.
        number: 1-based call number.
        changed: ``(tokens, text)`` after the rule of each native message whose content a rule
            changed (``simulator.replay.changed_contents``); without it the size before is shown.
    """
    call = result.calls[number - 1]
    # A row per message a call holds (tens of thousands late in a long session), all kept: without the
    # pause, the cyclic collector walked everything alive (the transcript, the replay) over them.
    with collector_paused():
        at = _call_index(result, call, changed)
        rows, segments = _rows(transcript, result, call, at)
        counts = call_counts(result, call)
    segs = tuple(
        Segment(label, key, segments[key])
        for key, label in SEGMENT_LABELS
        if segments[key] or key in ("system", "user", "assistant", "tool")
    )
    window = result.window or result.budget.window
    return CallView(call, CallRows(transcript, rows), segs, window, counts, _by_fate(rows))


# -- timeline geometry (an SVG drawn by the template) ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class BarShape:
    bar: Bar
    x: float
    width: float
    y_full: float
    y_sent: float
    selected: bool
    h_full: float = 0.0
    """Height from ``y_full`` down to the axis, so the bar stands on it."""
    h_sent: float = 0.0


@dataclass(frozen=True, slots=True)
class TimelineShape:
    width: int
    height: int
    bars: tuple[BarShape, ...]
    budget_y: float | None
    window_y: float | None
    y_max: int


def timeline_shape(tl: Timeline, *, selected: int, width: int = 1000, height: int = 150) -> TimelineShape:
    """Coordinates for a bar chart of context size per call (y grows downwards, as in SVG)."""
    step = width / max(len(tl.bars), 1)
    shapes = tuple(
        BarShape(
            bar=b,
            x=round(i * step, 2),
            width=round(max(step * 0.82, 0.8), 2),
            y_full=round(tl.y(b.full, height), 2),
            y_sent=round(tl.y(b.sent, height), 2),
            selected=b.first_call <= selected <= b.last_call,
            h_full=round(height - tl.y(b.full, height), 2),
            h_sent=round(height - tl.y(b.sent, height), 2),
        )
        for i, b in enumerate(tl.bars)
    )
    return TimelineShape(
        width,
        height,
        shapes,
        round(tl.y(tl.budget, height), 2) if tl.budget else None,
        round(tl.y(tl.window, height), 2) if tl.window else None,
        tl.y_max,
    )
