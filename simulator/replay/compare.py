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
    return tuple(i for i, m in enumerate(transcript.messages) if m.role is Role.SYSTEM)


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


@dataclass(frozen=True, slots=True)
class Comparison:
    rows: tuple[CompareRow, ...]
    first_difference: int | None
    """1-based number of the first call whose sent context differs, or None."""
    summaries: tuple[CompareSummary, ...]


def compare(transcript: Transcript, results: Sequence[SimulationResult]) -> Comparison:
    """Line the calls of several replays of ``transcript`` up and find where they first differ."""
    if len(results) < 2:
        raise ValueError("a comparison needs at least two results")
    count = min(len(r.calls) for r in results)
    systems = system_indices(transcript)
    counters = [CallCounter(r) for r in results]
    rows: list[CompareRow] = []
    first: int | None = None
    for k in range(count):
        calls = [r.calls[k] for r in results]
        views = [
            (sent_transcript_spans(r, c, transcript, systems=systems), changed_transcript_indices(r, c))
            for r, c in zip(results, calls, strict=True)
        ]
        differs = any(v != views[0] for v in views[1:])
        if differs and first is None:
            first = calls[0].number
        rows.append(
            CompareRow(
                number=calls[0].number,
                message_index=calls[0].message_index,
                tokens_sent=tuple(c.tokens_sent for c in calls),
                sent_counts=tuple(n.counts(c).sent for n, c in zip(counters, calls, strict=True)),
                trimmed=tuple(c.trimmed for c in calls),
                differs=differs,
            )
        )
    summaries = []
    for r, counter in zip(results, counters, strict=True):
        lost = 0
        if r.calls:
            last = r.calls[-1]
            lost = last.message_index - counter.counts(last).sent
        summaries.append(
            CompareSummary(r.profile_name, r.runtime, r.total_tokens_sent, r.trims, r.overflow_failures, lost)
        )
    return Comparison(tuple(rows), first, tuple(summaries))


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
