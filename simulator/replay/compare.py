"""Two or more replays of one transcript side by side, in transcript terms.

Each runtime works in its own native message space, so results are compared on what they mean for
the transcript: which transcript messages each call sent, and which it sent changed (pruned,
truncated, re-added). Runtimes that keep system prompts outside the history (ai-profile, OpenClaw)
always send them, so they count as sent.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from simulator.replay.counts import CallCounter
from simulator.replay.made_on_read import MadeOnRead
from simulator.replay.model import CallRecord, Change, SimulationResult
from simulator.transcript import Role, Transcript

Spans = tuple[tuple[int, int], ...]


def _merge(spans: list[tuple[int, int]]) -> Spans:
    spans.sort()
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return tuple(out)


def system_indices(transcript: Transcript) -> tuple[int, ...]:
    system = Role.SYSTEM  # read once: an enum member read through its class is a lookup per message
    return tuple([i for i, m in enumerate(transcript.messages) if m.role is system])


def sent_transcript_spans(
    result: SimulationResult,
    call: CallRecord,
    transcript: Transcript,
    *,
    systems: Sequence[int] | None = None,
) -> Spans:
    """Transcript index spans whose messages this call sent (in any form).

    ``systems`` is :func:`system_indices` of the transcript, for callers that ask about every call.
    """
    spans: list[tuple[int, int]] = []
    for start, end in call.sent:
        if end > start:
            spans.append((result.origins[start][0], result.origins[end - 1][-1] + 1))
    if result.runtime != "zeroclaw":
        known = system_indices(transcript) if systems is None else systems
        spans.extend((i, i + 1) for i in known[: bisect_left(known, call.message_index)])
    return _merge(spans)


def _native_index(change: Change) -> int:
    return change.native_index


def changed_transcript_indices(result: SimulationResult, call: CallRecord) -> frozenset[tuple[int, str]]:
    """``(transcript index, fate)`` of the messages this call sent changed."""
    out: set[tuple[int, str]] = set()
    for group in call.fated:
        for native in group.indices:
            out.update((t, group.fate.value) for t in result.origins[native])
    changes = result.content_changes  # in native index order
    for start, end in call.sent:
        at = bisect_left(changes, start, key=_native_index)
        while at < len(changes) and changes[at].native_index < end:
            change = changes[at]
            out.update((t, change.fate.value) for t in result.origins[change.native_index])
            at += 1
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class CompareRow:
    number: int
    message_index: int
    tokens_sent: tuple[int, ...]
    sent_counts: tuple[int, ...]
    trimmed: tuple[bool, ...]
    differs: bool


@dataclass(frozen=True, slots=True)
class CompareSummary:
    profile_name: str
    runtime: str
    total_tokens_sent: int
    trims: int
    overflow_failures: int
    messages_lost: int
    """Transcript messages that the last call no longer sent."""


class CompareRows(MadeOnRead[CompareRow]):
    """The calls of several replays lined up, each row worked out when it is first asked for.

    A page shows 100 rows of a session's tens of thousands of calls, and lining a call up costs a few
    tens of microseconds per replay (its sent spans and changed messages in transcript terms): worked out
    for every call, that was about a second of a 100,000-message comparison's first view. Rows are kept
    once made; iterating makes them all, in order.
    """

    __slots__ = ("_made", "_results", "_systems", "_transcript", "counters")

    def __init__(self, transcript: Transcript, results: Sequence[SimulationResult]) -> None:
        self._transcript = transcript
        self._results = tuple(results)
        self._systems = system_indices(transcript)
        self.counters = tuple(CallCounter(r) for r in results)
        """Per replay, the counts of any of its calls."""
        self._made: list[CompareRow | None] = [None] * min(len(r.calls) for r in results)

    def __len__(self) -> int:
        return len(self._made)

    def _row(self, k: int) -> CompareRow:
        made = self._made[k]
        if made is None:
            made = self._made[k] = self._line_up(k)
        return made

    def _line_up(self, k: int) -> CompareRow:
        calls = [r.calls[k] for r in self._results]
        views = [
            (
                sent_transcript_spans(r, c, self._transcript, systems=self._systems),
                changed_transcript_indices(r, c),
            )
            for r, c in zip(self._results, calls, strict=True)
        ]
        return CompareRow(
            number=calls[0].number,
            message_index=calls[0].message_index,
            tokens_sent=tuple(c.tokens_sent for c in calls),
            sent_counts=tuple(n.counts(c).sent for n, c in zip(self.counters, calls, strict=True)),
            trimmed=tuple(c.trimmed for c in calls),
            differs=any(v != views[0] for v in views[1:]),
        )


class Comparison:
    """Several replays of one transcript side by side: rows per call (made as they are read), the first
    call whose sent context differs, and a summary per replay."""

    __slots__ = ("_first", "rows", "summaries")

    def __init__(self, rows: CompareRows, summaries: tuple[CompareSummary, ...]) -> None:
        self.rows = rows
        self.summaries = summaries
        self._first: tuple[int | None] | None = None

    @property
    def first_difference(self) -> int | None:
        """1-based number of the first call whose sent context differs, or None (rows up to it are made)."""
        if self._first is None:
            self._first = (next((row.number for row in self.rows if row.differs), None),)
        return self._first[0]


def compare(transcript: Transcript, results: Sequence[SimulationResult]) -> Comparison:
    """Line the calls of several replays of ``transcript`` up; rows are made as they are read."""
    if len(results) < 2:
        raise ValueError("a comparison needs at least two results")
    rows = CompareRows(transcript, results)
    summaries = []
    for r, counter in zip(results, rows.counters, strict=True):
        lost = 0
        if r.calls:
            last = r.calls[-1]
            lost = last.message_index - counter.counts(last).sent
        summaries.append(
            CompareSummary(r.profile_name, r.runtime, r.total_tokens_sent, r.trims, r.overflow_failures, lost)
        )
    return Comparison(rows, tuple(summaries))


@dataclass(frozen=True, slots=True)
class MessageDiff:
    index: int
    role: str
    fates: tuple[str, ...]
    """Per result: "sent", "not sent", or the content rule's fate (soft-trimmed, truncated, …)."""


def message_diff(
    transcript: Transcript, results: Sequence[SimulationResult], number: int
) -> tuple[MessageDiff, ...]:
    """At call ``number``: every transcript message whose fate differs between the results."""
    views = []
    for result in results:
        call = result.calls[number - 1]
        spans = sent_transcript_spans(result, call, transcript)
        changed = dict(changed_transcript_indices(result, call))
        views.append((spans, changed))
    end = results[0].calls[number - 1].message_index
    rows: list[MessageDiff] = []
    for index in range(end):
        fates = tuple(
            changed.get(index, "sent") if any(s <= index < e for s, e in spans) else "not sent"
            for spans, changed in views
        )
        if len(set(fates)) > 1:
            rows.append(MessageDiff(index, transcript.messages[index].role.value, fates))
    return tuple(rows)
