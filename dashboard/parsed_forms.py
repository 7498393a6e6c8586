"""The stored parsed form of a transcript: what a page read after a restart, another server process and an
evaluation task read back instead of parsing the source text again.

A 100,000-message session takes seconds to parse and well under one to read back. The form is derived
data, never a second source of truth: it is written with the transcript, and read back only when

* it was made by this parser: ``PARSER_VERSION`` is a digest of the simulator's code, so any change to
  it (a fixed importer, a new message field) makes earlier forms stale and the text is parsed again;
* it was written by this deployment: the bytes carry an HMAC under ``SECRET_KEY``, checked before they
  are unpickled (pickle runs code named in its input, so unsigned bytes are never read).

The form is the parsed ``Transcript`` and its page index (``TranscriptIndex``: per-message sizes and turn
marks, a walk over every message) pickled together (the message types are frozen structs that pickle as
they are) and Zstandard-compressed at level 1 (about 1/8 of the pickle for a coding session). Zstandard
rather than zlib: for a 100,000-message session's 78 MB pickle, level 1 writes 9.4 MB in 0.21 s and reads
it back in 0.15 s, where zlib's fastest level wrote 12.7 MB in 0.56 s and read it in 0.34 s (a restart's
first page reads it). Forms written with zlib before are still read.

The messages are pickled in chunks of :data:`CHUNK_MESSAGES`, each compressed on its own, and the form holds
those compressed chunks beside the rest of the transcript and the index: the same chunk bytes are stored as
parts of their own (``dashboard.parsed_parts``), so the transcript page of a long session reads back only
the chunk it draws, and nothing is pickled or compressed twice. Forms of one pickle (written before) are
still read.
"""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
import zlib
from collections.abc import Sequence
from functools import cache
from importlib.resources import files
from typing import NamedTuple

import zstandard
from django.utils.crypto import constant_time_compare, salted_hmac

from simulator import Transcript as ParsedTranscript
from simulator import TranscriptIndex, collector_paused

_SALT = "trimscope.parsed-form"
CHUNK_MESSAGES = 1_000
"""Messages per compressed chunk: a page (100 messages) reads one chunk of about 0.1 MB, a few ms."""
_CHUNKED = "chunked-1"
"""The first item of a form made of chunks (a form of one pickle is a pair)."""


class StoredForm(NamedTuple):
    parsed: ParsedTranscript
    page_index: TranscriptIndex


@cache
def parser_version() -> str:
    """A digest of every source file of the simulator package (computed once per process)."""
    digest = hashlib.sha256()
    root = files("simulator")
    stack = [root]
    found = []
    while stack:
        for entry in stack.pop().iterdir():
            if entry.is_dir() and entry.name != "__pycache__":
                stack.append(entry)
            elif entry.name.endswith(".py"):
                found.append(entry)
    for entry in sorted(found, key=lambda e: str(e)):
        digest.update(str(entry).removeprefix(str(root)).encode())
        digest.update(entry.read_bytes())
    return digest.hexdigest()[:32]


def _signature(version: str, blob: bytes) -> str:
    return salted_hmac(_SALT, version.encode() + b"\0" + blob, algorithm="sha256").hexdigest()


def message_chunks(parsed: ParsedTranscript, size: int | None = None) -> tuple[bytes, ...]:
    """The messages pickled ``size`` (:data:`CHUNK_MESSAGES`) at a time, each chunk compressed on its own
    (as a transcript of those messages alone, its format and nothing else)."""
    size = size or CHUNK_MESSAGES
    compressor = zstandard.ZstdCompressor(level=1)
    messages = parsed.messages
    return tuple(
        compressor.compress(
            pickle.dumps(
                ParsedTranscript(format=parsed.format, messages=messages[i : i + size]),
                protocol=pickle.HIGHEST_PROTOCOL,
            )
        )
        for i in range(0, len(messages), size)
    )


def encode(
    parsed: ParsedTranscript, index: TranscriptIndex, chunks: Sequence[bytes] | None = None
) -> tuple[bytes, str, str]:
    """The form to store: ``(blob, parser version, signature)``; ``chunks`` are
    ``message_chunks(parsed)`` when the caller made them already (to store them as parts too)."""
    if chunks is None:
        chunks = message_chunks(parsed)
    rest = dataclasses.replace(parsed, messages=())
    # The chunks are compressed already: the outer frame stores them as they are, at memory speed.
    blob = zstandard.ZstdCompressor(level=1).compress(
        pickle.dumps((_CHUNKED, rest, index, tuple(chunks)), protocol=pickle.HIGHEST_PROTOCOL)
    )
    version = parser_version()
    return blob, version, _signature(version, blob)


def decode(blob: bytes | memoryview, version: str, signature: str) -> StoredForm | None:
    """The stored transcript and page index; ``None`` when stale or not signed by this deployment."""
    blob = bytes(blob)  # PostgreSQL hands a binary column back as a memoryview
    if version != parser_version() or not constant_time_compare(signature, _signature(version, blob)):
        return None
    with collector_paused():
        stored = pickle.loads(_decompress(blob))
        if isinstance(stored, tuple) and len(stored) == 4 and stored[0] == _CHUNKED:
            stored = _joined(stored[1], stored[2], stored[3])
    if not (isinstance(stored, tuple) and len(stored) == 2):
        return None
    parsed, index = stored
    ok = isinstance(parsed, ParsedTranscript) and isinstance(index, TranscriptIndex)
    return StoredForm(parsed, index) if ok else None


def _joined(rest: object, index: object, chunks: tuple[bytes, ...]) -> tuple[object, object] | None:
    """The transcript put back together from its chunks (the caller checked the signature)."""
    if not isinstance(rest, ParsedTranscript):
        return None
    parts = [decode_chunk(chunk) for chunk in chunks]
    read = [part for part in parts if part is not None]
    if len(read) != len(parts):
        return None
    return dataclasses.replace(rest, messages=tuple(m for part in read for m in part.messages)), index


def decode_chunk(chunk: bytes) -> ParsedTranscript | None:
    """One chunk of messages, from signed bytes only (the form's or its part's signature was checked)."""
    with collector_paused():
        part = pickle.loads(zstandard.ZstdDecompressor().decompress(chunk))
    return part if isinstance(part, ParsedTranscript) else None


_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
"""The first four bytes of a Zstandard frame (a zlib stream starts with 0x78)."""


def _decompress(blob: bytes) -> bytes:
    if blob.startswith(_ZSTD_MAGIC):
        return zstandard.ZstdDecompressor().decompress(blob)
    return zlib.decompress(blob)  # a form written before Zstandard
