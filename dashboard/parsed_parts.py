"""The parts of a transcript's stored parsed form that its page reads, each stored and signed on its own.

The whole form (``dashboard.parsed_forms``) is what a replay or an evaluation reads: every message. A page
of a long session draws 100 messages and a header; reading the whole form back for it took most of a
second at 100,000 messages after a restart. So the form is also stored in parts
(``TranscriptParsePart``), written in the same transaction as the form:

* part 0, the page head (:class:`PageHead`): what the page header shows (counts, sizes, problems);
* part ``2k + 1``: chunk ``k`` of the messages, the very bytes the whole form holds (pickled and
  compressed once, ``parsed_forms.message_chunks``);
* part ``2k + 2``: chunk ``k`` of the page index (:class:`ChunkIndex`: sizes, tool links, flags and
  turn spans of those messages).

A cold page reads three small parts whatever the session's length. Each part is derived data under the
whole form's rules: made by this parser (``parser_version``) and signed under ``SECRET_KEY`` — over its
transcript's content and its number too, so a part is never read in another's place — else ignored, and
the page falls back to the whole form or the text.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

import zstandard
from django.utils.crypto import constant_time_compare, salted_hmac

from dashboard.parsed_forms import parser_version
from simulator import Transcript as ParsedTranscript
from simulator import TranscriptIndex, TurnSpan, collector_paused

_SALT = "trimscope.parsed-form-part"
HEAD = 0
"""The number of the page head's part."""

T = TypeVar("T")


def messages_part(chunk: int) -> int:
    """The part number of chunk ``chunk``'s messages."""
    return 2 * chunk + 1


def index_part(chunk: int) -> int:
    """The part number of chunk ``chunk``'s page index."""
    return 2 * chunk + 2


@dataclass(frozen=True, slots=True)
class PageHead:
    """What the transcript page's header shows (``TranscriptIndex`` without anything per message), and how
    the messages were cut into chunks."""

    format: str
    message_count: int
    turn_count: int
    tool_pair_count: int
    orphan_count: int
    call_count: int
    estimated_tokens: int
    provider_input_tokens: int | None
    problems: tuple[str, ...]
    warnings: tuple[str, ...]
    skipped_note: str | None
    """The sentence naming the lines a JSON-lines file had to skip (``TranscriptIndex.skipped_note``)."""
    failed_calls: int
    chunk_messages: int

    @classmethod
    def of(cls, index: TranscriptIndex, chunk_messages: int) -> PageHead:
        return cls(
            format=index.format,
            message_count=index.message_count,
            turn_count=index.turn_count,
            tool_pair_count=index.tool_pair_count,
            orphan_count=index.orphan_count,
            call_count=index.call_count,
            estimated_tokens=index.estimated_tokens,
            provider_input_tokens=index.provider_input_tokens,
            problems=index.problems,
            warnings=index.warnings,
            skipped_note=index.skipped_note,
            failed_calls=index.failed_calls,
            chunk_messages=chunk_messages,
        )


@dataclass(frozen=True, slots=True)
class ChunkIndex:
    """The page index of messages ``[start, start + len(sizes))``: keys are positions in the chunk, link
    targets are message indices in the transcript; ``spans`` are the turn spans the chunk overlaps."""

    start: int
    sizes: tuple[int, ...]
    result_of_call: dict[tuple[int, str], int]
    call_of_result: dict[int, int]
    flags: dict[int, tuple[str, ...]]
    spans: tuple[TurnSpan, ...]


def chunk_indexes(index: TranscriptIndex, chunk_messages: int) -> list[ChunkIndex]:
    """``index`` cut into chunks of ``chunk_messages`` messages (one walk over each of its tables)."""
    count = -(-index.message_count // chunk_messages)
    calls: list[dict[tuple[int, str], int]] = [{} for _ in range(count)]
    for (i, call_id), target in index.result_of_call.items():
        calls[i // chunk_messages][(i % chunk_messages, call_id)] = target
    results: list[dict[int, int]] = [{} for _ in range(count)]
    for i, target in index.call_of_result.items():
        results[i // chunk_messages][i % chunk_messages] = target
    flags: list[dict[int, tuple[str, ...]]] = [{} for _ in range(count)]
    for i, named in index.flags.items():
        flags[i // chunk_messages][i % chunk_messages] = named
    spans: list[list[TurnSpan]] = [[] for _ in range(count)]
    for span in index.spans:
        last = min(max(span.end - 1, span.start) // chunk_messages, count - 1)  # an empty span: its start
        for k in range(span.start // chunk_messages, last + 1):
            spans[k].append(span)
    return [
        ChunkIndex(
            start=k * chunk_messages,
            sizes=index.sizes[k * chunk_messages : (k + 1) * chunk_messages],
            result_of_call=calls[k],
            call_of_result=results[k],
            flags=flags[k],
            spans=tuple(spans[k]),
        )
        for k in range(count)
    ]


class Chunk(NamedTuple):
    """One chunk as read back: its messages (a transcript of those alone) and its page index."""

    messages: ParsedTranscript
    page_index: ChunkIndex


class Part(NamedTuple):
    number: int
    blob: bytes
    signature: str


def signature(version: str, content: str, number: int, blob: bytes) -> str:
    message = b"\0".join((version.encode(), content.encode(), str(number).encode(), blob))
    return salted_hmac(_SALT, message, algorithm="sha256").hexdigest()


def content_of(sha256: str, format: str) -> str:
    """What a part is signed for: its transcript's content (rows with the same text share the parts' data)."""
    return f"{sha256}:{format}"


def _packed(value: object) -> bytes:
    return zstandard.ZstdCompressor(level=1).compress(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


def encode(index: TranscriptIndex, chunks: Sequence[bytes], chunk_messages: int, content: str) -> list[Part]:
    """The parts to store beside a form whose message chunks are ``chunks``."""
    version = parser_version()
    blobs = [(HEAD, _packed(PageHead.of(index, chunk_messages)))]
    for k, (chunk, sliced) in enumerate(zip(chunks, chunk_indexes(index, chunk_messages), strict=True)):
        blobs += [(messages_part(k), chunk), (index_part(k), _packed(sliced))]
    return [Part(n, blob, signature(version, content, n, blob)) for n, blob in blobs]


def verified(blob: bytes | memoryview, version: str, signed: str, content: str, number: int) -> bytes | None:
    """The part's bytes when made by this parser and signed by this deployment for this place, else None."""
    blob = bytes(blob)  # PostgreSQL hands a binary column back as a memoryview
    if version != parser_version():
        return None
    return blob if constant_time_compare(signed, signature(version, content, number, blob)) else None


def unpacked(blob: bytes, kind: type[T]) -> T | None:
    """A verified head or index part, when it holds what it should."""
    with collector_paused():
        value = pickle.loads(zstandard.ZstdDecompressor().decompress(blob))
    return value if isinstance(value, kind) else None
