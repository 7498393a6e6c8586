"""Every message's o200k count of a transcript as stored by the task worker (``TranscriptTokenCounts``).

Derived data, like the stored parsed form (``dashboard.parsed_forms``): read back only when the counting
code that made it is the one running. What a message's count reads (``message_token_text``) is simulator
code, so the counter version is the parser's digest of that code, with the encoding's name. The counts
are little-endian unsigned 32-bit integers, one per message in order: no pickle, so nothing to sign.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence

from dashboard.parsed_forms import parser_version

ENCODING = "o200k_base"


def counter_version() -> str:
    return f"{ENCODING}:{parser_version()}"


def encode(counts: Sequence[int]) -> tuple[bytes, str]:
    """The counts to store, and the counter version that made them."""
    packed = _uint32(counts)
    if sys.byteorder == "big":
        packed.byteswap()
    return packed.tobytes(), counter_version()


def decode(blob: bytes | memoryview, version: str, messages: int) -> tuple[int, ...] | None:
    """The stored counts; ``None`` when another counter made them or they are not one per message."""
    blob = bytes(blob)  # PostgreSQL hands a binary column back as a memoryview
    if version != counter_version() or len(blob) != 4 * messages:
        return None
    packed = _uint32(())
    packed.frombytes(blob)
    if sys.byteorder == "big":
        packed.byteswap()
    return tuple(packed)


def _uint32(values: Sequence[int]) -> array[int]:
    # "I" is 4 bytes wherever Python runs on 32- or 64-bit Unix and Windows; checked, not assumed.
    packed = array("I", values)
    if packed.itemsize != 4:
        raise RuntimeError(f"array('I') holds {packed.itemsize}-byte items here, not 4")
    return packed
