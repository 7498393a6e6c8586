"""Reads of a transcript's stored page parts (``dashboard.parsed_parts``): what a cold transcript page of a
long session reads instead of the whole parsed form (its head and the chunk of messages it draws).

Every read answers ``None`` when a part is missing, stale or not signed for its place; the caller then
takes the general way (the whole form, else the text parsed again). Parts read are kept in
``dashboard.memo`` under the transcript's content, as the parse is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import NamedTuple

from dashboard import memo, parsed_forms, parsed_parts
from dashboard.models import Transcript, TranscriptParsePart
from dashboard.parsed_parts import Chunk, ChunkIndex, PageHead
from dashboard.selectors.transcripts import transcript_key, transcript_parsed
from simulator import MessageRow, TranscriptIndex, TurnSpan, transcript_message_rows
from simulator import Transcript as ParsedTranscript


class Window(NamedTuple):
    """Messages ``[offset, offset + len(messages.messages))`` and their page index, positions counted from
    ``offset``; ``spans`` are the turn spans they overlap."""

    offset: int
    messages: ParsedTranscript
    page_index: TranscriptIndex
    spans: tuple[TurnSpan, ...]


def _rows(transcript: Transcript, numbers: list[int]) -> dict[int, bytes] | None:
    """The verified bytes of parts ``numbers`` (one query), or None when any is missing or not current."""
    content = parsed_parts.content_of(transcript.sha256, transcript.format)
    found = TranscriptParsePart.objects.filter(transcript_id=transcript.pk, number__in=numbers).values_list(
        "number", "blob", "parser_version", "signature"
    )
    out = {}
    for number, blob, version, signature in found:
        verified = parsed_parts.verified(blob, version, signature, content, number)
        if verified is None:
            return None
        out[number] = verified
    return out if len(out) == len(set(numbers)) else None


def page_head(*, transcript: Transcript) -> PageHead | None:
    """The page header's facts from the stored head part (kept), or None when it cannot be read."""
    key = transcript_key(transcript)
    kept = memo.PAGE_HEADS.get(key)
    if kept is not None:
        return kept
    found = _rows(transcript, [parsed_parts.HEAD])
    head = parsed_parts.unpacked(found[parsed_parts.HEAD], PageHead) if found else None
    return memo.PAGE_HEADS.put(key, head) if head is not None else None


def _chunks(transcript: Transcript, wanted: range, size: int) -> list[Chunk] | None:
    """Chunks ``wanted`` of ``size`` messages (kept, or read in one query), or None when any cannot be
    read."""
    key = transcript_key(transcript)
    kept = {k: c for k in wanted if (c := memo.PAGE_CHUNKS.get((key, size, k))) is not None}
    missing = [k for k in wanted if k not in kept]
    if missing:
        numbers = [n for k in missing for n in (parsed_parts.messages_part(k), parsed_parts.index_part(k))]
        found = _rows(transcript, numbers)
        if found is None:
            return None
        for k in missing:
            messages = parsed_forms.decode_chunk(found[parsed_parts.messages_part(k)])
            index = parsed_parts.unpacked(found[parsed_parts.index_part(k)], ChunkIndex)
            if messages is None or index is None:
                return None
            kept[k] = memo.PAGE_CHUNKS.put((key, size, k), Chunk(messages, index))
    return [kept[k] for k in wanted]


def window(*, transcript: Transcript, head: PageHead, start: int, end: int) -> Window | None:
    """Messages ``[start, end)`` with what their rows need, from the chunks holding them (None when a
    chunk cannot be read)."""
    size = head.chunk_messages
    if not 0 <= start < end <= head.message_count:
        return None
    chunks = _chunks(transcript, range(start // size, (end - 1) // size + 1), size)
    if chunks is None:
        return None
    return _joined(head, chunks)


def _joined(head: PageHead, chunks: list[Chunk]) -> Window:
    """One window over consecutive chunks (one chunk as it is: a page never crosses one of 100 messages)."""
    offset = chunks[0].page_index.start
    if len(chunks) == 1:
        only = chunks[0]
        return Window(offset, only.messages, _index(head, only.page_index), only.page_index.spans)
    sizes: list[int] = []
    calls: dict[tuple[int, str], int] = {}
    results: dict[int, int] = {}
    flags: dict[int, tuple[str, ...]] = {}
    spans: dict[int, TurnSpan] = {}
    for chunk in chunks:
        shift = chunk.page_index.start - offset
        sizes.extend(chunk.page_index.sizes)
        calls.update({(i + shift, call_id): t for (i, call_id), t in chunk.page_index.result_of_call.items()})
        results.update({i + shift: t for i, t in chunk.page_index.call_of_result.items()})
        flags.update({i + shift: f for i, f in chunk.page_index.flags.items()})
        spans.update({s.start: s for s in chunk.page_index.spans})
    merged = ChunkIndex(offset, tuple(sizes), calls, results, flags, tuple(spans[k] for k in sorted(spans)))
    messages = dataclasses.replace(
        chunks[0].messages, messages=tuple(m for c in chunks for m in c.messages.messages)
    )
    return Window(offset, messages, _index(head, merged), merged.spans)


def _index(head: PageHead, chunk: ChunkIndex) -> TranscriptIndex:
    """A page index of the window alone, for ``transcript_message_rows`` (which reads only its sizes,
    links and flags: the totals are the head's, the spans the window's)."""
    return TranscriptIndex(
        format=head.format,
        message_count=len(chunk.sizes),
        turn_count=head.turn_count,
        tool_pair_count=head.tool_pair_count,
        orphan_count=head.orphan_count,
        call_count=head.call_count,
        estimated_tokens=head.estimated_tokens,
        provider_input_tokens=head.provider_input_tokens,
        spans=(),
        sizes=chunk.sizes,
        result_of_call=chunk.result_of_call,
        call_of_result=chunk.call_of_result,
        flags=chunk.flags,
        problems=head.problems,
        warnings=head.warnings,
        failed_calls=head.failed_calls,
    )


def window_rows(
    found: Window, start: int, end: int, tokens: Callable[[int], int | None]
) -> tuple[MessageRow, ...]:
    """The rows of messages ``[start, end)`` (indices in the transcript) from a window holding them: the
    general ``transcript_message_rows`` over the window, each row then numbered in the transcript."""
    offset = found.offset
    rows = transcript_message_rows(
        found.messages, found.page_index, start - offset, end - offset, lambda j: tokens(j + offset)
    )
    return tuple(dataclasses.replace(r, index=r.index + offset) for r in rows) if offset else rows


def transcript_message_count(*, transcript: Transcript) -> int:
    """How many messages the parse has, from what is kept or the stored head before the whole parse."""
    key = transcript_key(transcript)
    parsed = memo.PARSED.get(key)
    if parsed is not None:
        return len(parsed.messages)
    index = memo.INDEXES.get(key)
    if index is not None:
        return index.message_count
    head = page_head(transcript=transcript)
    if head is not None:
        return head.message_count
    return len(transcript_parsed(transcript=transcript).messages)
