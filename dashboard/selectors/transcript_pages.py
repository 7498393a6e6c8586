"""Reads for the transcript page of a long session: one page of rows at a time, o200k counts on demand.

The page is cut by messages, not by turns: one turn of a long agent session can hold thousands of tool
calls. A turn that a page cuts is drawn on both pages, labelled as continued. Whole-transcript facts
(links, flags, turn spans, sizes) are computed once per transcript content and kept in ``dashboard.memo``;
the rows are built for the page only, and the o200k count of a message is computed when a page asks
for it (after the page is drawn) and kept per transcript.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings

from dashboard import memo, parsed_forms, stored_counts
from dashboard.models import Transcript, TranscriptTokenCounts
from dashboard.parsed_parts import PageHead
from dashboard.selectors import transcript_parts
from dashboard.selectors.transcript_parts import transcript_message_count
from dashboard.selectors.transcripts import transcript_key, transcript_parsed
from simulator import (
    RUNTIMES,
    MessageRow,
    TranscriptIndex,
    TranscriptTokens,
    TurnSpan,
    message_fingerprint,
    message_token_text,
    runtime_label,
    tiktoken_counts,
    transcript_index,
    transcript_message_rows,
)
from simulator import Transcript as ParsedTranscript

MESSAGES_PER_PAGE = 100
FALLBACK_PREPARE_SECONDS_PER_MESSAGE: dict[str, float] = {
    "zeroclaw": 0.000_005,
    "ai_profile": 0.000_007,
    "openclaw": 0.000_006,
    "as_recorded": 0.000_005,
}
"""Seconds per message to prepare a transcript for a runtime (convert, size) before this server has timed
one: each runtime's rate at 100,000 messages in docs/benchmarks.md (2026-12-01), rounded up (ZeroClaw
0.4 s, ai-profile 0.6 s, OpenClaw 0.5 s)."""
FALLBACK_REPLAY_SECONDS_PER_MESSAGE: dict[str, float] = {
    "zeroclaw": 0.000_01,
    "ai_profile": 0.000_005,
    "openclaw": 0.000_015,
    "as_recorded": 0.000_005,
}
"""Seconds per message to replay a prepared transcript (a knob change) before this server has timed one,
from the same benchmark, rounded up (ZeroClaw 0.4-0.9 s, ai-profile 0.4 s, OpenClaw 2026.7.1 1.0 s and
2026.9.6 1.3 s). OpenClaw 2026.9.6 replays a call the reference way (over the whole history: time growing
with the square of the session) once an image is older than the last three turns, a result is over the
guard's share or thinking is dropped, so its replay of such a long session takes far longer than this says."""
FALLBACK_SECONDS_PER_MESSAGE: dict[str, float] = {
    runtime: FALLBACK_PREPARE_SECONDS_PER_MESSAGE[runtime] + FALLBACK_REPLAY_SECONDS_PER_MESSAGE[runtime]
    for runtime in FALLBACK_REPLAY_SECONDS_PER_MESSAGE
}
"""A first replay's seconds per message, preparing included."""
FALLBACK_SLOWEST = max(FALLBACK_SECONDS_PER_MESSAGE.values())


@dataclass(frozen=True, slots=True)
class PageBlock:
    """A turn's rows on this page; ``continued``/``continues`` say the turn began/goes on elsewhere."""

    span: TurnSpan
    rows: tuple[MessageRow, ...]
    continued: bool
    continues: bool

    @property
    def estimated_tokens(self) -> int:
        return sum(r.estimated_tokens for r in self.rows)


@dataclass(frozen=True, slots=True)
class ReplayEstimate:
    runtime: str
    label: str
    seconds: float
    measured: bool
    """From a replay this server ran (True) or the benchmark's rate (False)."""


@dataclass(frozen=True, slots=True)
class TranscriptPage:
    index: PageHead
    """What the header shows of the whole transcript."""
    number: int
    pages: int
    start: int
    end: int
    blocks: tuple[PageBlock, ...]
    uncounted: tuple[int, ...]
    """Indices on this page whose o200k count is not known yet (the page asks for them)."""
    o200k_total: int | None
    """The whole transcript's o200k count, once every message has been counted."""
    estimates: tuple[ReplayEstimate, ...]

    @property
    def estimates_measured(self) -> bool:
        return all(e.measured for e in self.estimates)

    @property
    def fallback_ms_per_1000(self) -> float:
        """The slowest runtime's rate the estimates fall back to."""
        return FALLBACK_SLOWEST * 1_000_000

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.pages


def transcript_page_index(*, transcript: Transcript) -> TranscriptIndex:
    key = transcript_key(transcript)

    def build() -> TranscriptIndex:
        parsed = transcript_parsed(transcript=transcript)
        kept = memo.INDEXES.get(key)  # a parse read back from its stored form brings its index
        return kept if kept is not None else transcript_index(parsed)

    return memo.INDEXES.get_or_compute(key, build)


def transcript_upload_index(*, sha256: str, parsed: ParsedTranscript) -> TranscriptIndex:
    """The page index of an upload's own parse, kept for its first page (the upload's summary numbers
    are read from it, so building it costs the upload nothing extra)."""
    return memo.INDEXES.get_or_compute(
        memo.TranscriptKey(sha256, parsed.format), lambda: transcript_index(parsed)
    )


def message_counts(*, transcript: Transcript) -> memo.MessageCounts:
    """The transcript's kept o200k counts (a count is None until some page or call asks for it)."""
    return memo.MESSAGE_COUNTS.get_or_compute(
        transcript_key(transcript),
        lambda: memo.MessageCounts(transcript_message_count(transcript=transcript)),
    )


STORED_COUNTS_FROM = 256
"""A request for this many counts not yet kept reads the counts the task worker stored first (one query):
fewer are counted on the spot (a page of the transcript)."""


def message_o200k(*, transcript: Transcript, indices: Iterable[int]) -> dict[int, int]:
    """The o200k count of each message in ``indices`` (text, thinking, tool names and arguments),
    counted once per transcript content and kept, or read from the counts the task worker stored after
    the upload. Indices outside the transcript are left out."""
    counts = message_counts(transcript=transcript)
    wanted = [i for i in indices if 0 <= i < len(counts)]
    if sum(1 for i in wanted if counts.get(i) is None) >= STORED_COUNTS_FROM:
        stored = transcript_stored_tokens(transcript=transcript)
        if stored is not None:
            counts.fill_all(stored.tokens)
    uncounted = list(dict.fromkeys(i for i in wanted if counts.get(i) is None))  # each index once
    if uncounted:
        held, offset = _messages_at(transcript, min(uncounted), max(uncounted) + 1)
        texts = [message_token_text(held.messages[i - offset]) for i in uncounted]
        found = tiktoken_counts(texts, threads=settings.TRIMSCOPE_COUNT_THREADS)  # a page's few: here
        for i, count in zip(uncounted, found, strict=True):
            counts.fill(i, count)
    return {i: counts.get(i) or 0 for i in wanted}  # every wanted index is counted by now


PART_CHUNKS_READ = 4
"""At most this many chunks of stored parts are read for counts asked of a transcript whose parse is not
kept (a page's counts: one chunk); a wider request reads the whole parse."""


def _messages_at(transcript: Transcript, start: int, end: int) -> tuple[ParsedTranscript, int]:
    """A transcript holding messages ``[start, end)`` and the index of its first message: the kept parse,
    else the stored chunks holding them (a page's counts after a restart), else the whole parse."""
    if memo.PARSED.get(transcript_key(transcript)) is None:
        head = transcript_parts.page_head(transcript=transcript)
        size = head.chunk_messages if head is not None else 1
        if head is not None and (end - 1) // size - start // size < PART_CHUNKS_READ:
            found = transcript_parts.window(transcript=transcript, head=head, start=start, end=end)
            if found is not None:
                return found.messages, found.offset
    return transcript_parsed(transcript=transcript), 0


def transcript_stored_tokens(*, transcript: Transcript) -> TranscriptTokens | None:
    """Every message's o200k count and fingerprint as the task worker stored them for this content (any
    row holding the same text), when the code that made them is the one running."""
    row = (
        TranscriptTokenCounts.objects.filter(
            transcript__sha256=transcript.sha256,
            transcript__format=transcript.format,
            counter_version=stored_counts.counter_version(),
        )
        .values_list("counts", "fingerprints", "counter_version")
        .first()
    )
    if row is None:
        return None
    return stored_counts.decode(*row, transcript_message_count(transcript=transcript))


def transcript_tokens(*, transcript: Transcript) -> TranscriptTokens:
    """Per message: the fingerprint and o200k count the cost model reads, kept per transcript content:
    stored by the task worker after a long session's upload, else from the kept counts (so pricing a
    replay does not count the transcript again) and fingerprinted here."""

    def build() -> TranscriptTokens:
        stored = transcript_stored_tokens(transcript=transcript)
        if stored is not None:
            counts = message_counts(transcript=transcript)
            if counts.counted < len(counts):
                counts.fill_all(stored.tokens)
            return stored
        messages = transcript_parsed(transcript=transcript).messages
        kept = message_o200k(transcript=transcript, indices=range(len(messages)))
        return TranscriptTokens(
            fingerprints=tuple(message_fingerprint(m) for m in messages),
            tokens=tuple(kept[i] for i in range(len(messages))),
        )

    return memo.TRANSCRIPT_TOKENS.get_or_compute(transcript_key(transcript), build)


def replay_estimates(*, messages: int, prepared: frozenset[str] = frozenset()) -> tuple[ReplayEstimate, ...]:
    """How long a replay of ``messages`` messages should take, per runtime (an estimate): preparing the
    transcript included unless its runtime is in ``prepared`` (kept: a knob change), each part at this
    server's latest rate for the runtime, else the benchmarks'."""
    estimates = []
    for runtime in RUNTIMES:
        replay = memo.REPLAY_RATES.get(runtime)
        seconds = replay or FALLBACK_REPLAY_SECONDS_PER_MESSAGE.get(runtime, FALLBACK_SLOWEST)
        measured = replay is not None
        if runtime not in prepared:
            preparing = memo.PREPARE_RATES.get(runtime)
            seconds += preparing or FALLBACK_PREPARE_SECONDS_PER_MESSAGE.get(runtime, FALLBACK_SLOWEST)
            measured = measured and preparing is not None
        estimates.append(ReplayEstimate(runtime, runtime_label(runtime), messages * seconds, measured))
    return tuple(estimates)


def page_count(messages: int, per_page: int = MESSAGES_PER_PAGE) -> int:
    return max(1, math.ceil(messages / per_page))


def transcript_page(
    *, transcript: Transcript, page: int | None, per_page: int = MESSAGES_PER_PAGE
) -> TranscriptPage:
    """Page ``page`` (1-based; out of range is clamped, so a stale link still shows something).

    When the parse is not kept (after a restart, in another server process) the page reads its head and
    the chunk it draws from the stored parts, not the whole form; the general way (the kept or whole
    parse and its page index) is taken otherwise, and whenever a part cannot be read."""
    if memo.PARSED.get(transcript_key(transcript)) is None:
        cold = _page_from_parts(transcript, page, per_page)
        if cold is not None:
            return cold
    index = transcript_page_index(transcript=transcript)
    number, pages, start, end = _range(index.message_count, page, per_page)
    counts = message_counts(transcript=transcript)
    rows = transcript_message_rows(transcript_parsed(transcript=transcript), index, start, end, counts.get)
    head = PageHead.of(index, parsed_forms.CHUNK_MESSAGES)
    return _page(head, number, pages, start, end, rows, index.spans, counts)


def _page_from_parts(transcript: Transcript, page: int | None, per_page: int) -> TranscriptPage | None:
    head = transcript_parts.page_head(transcript=transcript)
    if head is None:
        return None
    number, pages, start, end = _range(head.message_count, page, per_page)
    found = transcript_parts.window(transcript=transcript, head=head, start=start, end=end)
    if found is None:
        return None
    counts = message_counts(transcript=transcript)
    rows = transcript_parts.window_rows(found, start, end, counts.get)
    return _page(head, number, pages, start, end, rows, found.spans, counts)


def _range(messages: int, page: int | None, per_page: int) -> tuple[int, int, int, int]:
    """The page's number (clamped), the page count and its messages ``[start, end)``."""
    pages = page_count(messages, per_page)
    number = min(max(page or 1, 1), pages)
    return number, pages, (number - 1) * per_page, min(number * per_page, messages)


def _page(
    head: PageHead,
    number: int,
    pages: int,
    start: int,
    end: int,
    rows: tuple[MessageRow, ...],
    spans: tuple[TurnSpan, ...],
    counts: memo.MessageCounts,
) -> TranscriptPage:
    blocks = tuple(
        PageBlock(
            span,
            rows[max(span.start, start) - start : min(span.end, end) - start],
            span.start < start,
            span.end > end,
        )
        for span in _spans_between(spans, start, end)
    )
    return TranscriptPage(
        index=head,
        number=number,
        pages=pages,
        start=start,
        end=end,
        blocks=blocks,
        uncounted=tuple(r.index for r in rows if r.tokenizer_tokens is None),
        o200k_total=_total(counts),
        estimates=replay_estimates(messages=head.message_count),
    )


def _spans_between(spans: tuple[TurnSpan, ...], start: int, end: int) -> list[TurnSpan]:
    # Spans are in order and cover every index once: bisect on their starts for the first one.
    lo, hi = 0, len(spans)
    while lo < hi:
        mid = (lo + hi) // 2
        if spans[mid].end <= start:
            lo = mid + 1
        else:
            hi = mid
    found = []
    for span in spans[lo:]:
        if span.start >= end:
            break
        found.append(span)
    return found


def _total(counts: memo.MessageCounts) -> int | None:
    if counts.counted < len(counts):
        return None
    return sum(counts.get(i) or 0 for i in range(len(counts)))
