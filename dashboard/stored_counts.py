"""Every message's o200k count and cost-model fingerprint of a transcript, as stored by the task worker
(``TranscriptTokenCounts``).

Derived data, like the stored parsed form (``dashboard.parsed_forms``): read back only when the code that
made it is the one running. What a message's count and fingerprint read (``message_token_text``,
``message_fingerprint``) is simulator code, so the counter version is the parser's digest of that code,
with the encoding's name. The counts are little-endian unsigned 32-bit integers and the fingerprints
their 16 bytes, one per message in order: no pickle, so nothing to sign.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence

from dashboard.parsed_forms import parser_version
from simulator import TranscriptTokens

ENCODING = "o200k_base"
_FINGERPRINT_BYTES = 16
"""A fingerprint is a 16-byte BLAKE2b digest, written as 32 hex digits."""


def counter_version() -> str:
    return f"{ENCODING}:{parser_version()}"


def encode(tokens: TranscriptTokens) -> tuple[bytes, bytes, str]:
    """``(counts, fingerprints, counter version)`` to store."""
    packed = _uint32(tokens.tokens)
    if sys.byteorder == "big":
        packed.byteswap()
    fingerprints = bytes.fromhex("".join(tokens.fingerprints))
    if len(fingerprints) != _FINGERPRINT_BYTES * len(tokens.fingerprints):
        raise ValueError("a fingerprint is not 16 bytes")
    return packed.tobytes(), fingerprints, counter_version()


def decode(
    counts: bytes | memoryview, fingerprints: bytes | memoryview, version: str, messages: int
) -> TranscriptTokens | None:
    """The stored counts and fingerprints; ``None`` when other code made them or they are not one per
    message."""
    counts, fingerprints = bytes(counts), bytes(fingerprints)  # PostgreSQL hands back memoryviews
    if (
        version != counter_version()
        or len(counts) != 4 * messages
        or len(fingerprints) != _FINGERPRINT_BYTES * messages
    ):
        return None
    packed = _uint32(())
    packed.frombytes(counts)
    if sys.byteorder == "big":
        packed.byteswap()
    digits = fingerprints.hex()
    step = 2 * _FINGERPRINT_BYTES
    return TranscriptTokens(
        fingerprints=tuple([digits[i : i + step] for i in range(0, len(digits), step)]),
        tokens=tuple(packed),
    )


def _uint32(values: Sequence[int]) -> array[int]:
    # "I" is 4 bytes wherever Python runs on 32- or 64-bit Unix and Windows; checked, not assumed.
    packed = array("I", values)
    if packed.itemsize != 4:
        raise RuntimeError(f"array('I') holds {packed.itemsize}-byte items here, not 4")
    return packed
