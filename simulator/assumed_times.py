"""The assumed gap between model calls, for transcripts that record no timestamps.

One knob serves both places that need time: the cache model (``simulator.cost``: whether the previous
call's cache is still live) and OpenClaw's cache-TTL pruning (whether the TTL has expired). A transcript
with no timestamp at all is given ones ``gap_seconds`` apart per model call: the messages up to and
including the first reply at the origin, those after reply *k* up to and including reply *k+1*
``k × gap`` later.
That is exactly the time ``simulator.cost.from_replay.call_times`` gives call *k+1*, so both read
the same clock. A transcript with any timestamp is left as it is.
"""

from __future__ import annotations

from dataclasses import replace

import msgspec

from simulator.transcript import Role, Transcript

MS_PER_SECOND = 1000
ORIGIN_MS = 1
"""The first call's time: not 0, which OpenClaw's clock reads as "never touched" (a JS truthiness test)."""


def has_timestamps(transcript: Transcript) -> bool:
    return any(m.timestamp_ms is not None for m in transcript.messages)


def with_assumed_times(transcript: Transcript, gap_seconds: float) -> Transcript:
    """``transcript`` with each message stamped from the call it leads to, calls ``gap_seconds`` apart.

    Args:
        transcript: The imported session.
        gap_seconds: Seconds between consecutive model calls (>= 0).

    Returns:
        The same transcript when it has any timestamp; else a stamped copy.
    """
    if has_timestamps(transcript):
        return transcript
    gap_ms = round(gap_seconds * MS_PER_SECOND)
    stamped = []
    replies = 0
    for message in transcript.messages:
        # A reply belongs to the call it ends; the messages after it lead to the next call.
        at = ORIGIN_MS + replies * gap_ms
        stamped.append(msgspec.structs.replace(message, timestamp_ms=at))
        if message.role is Role.ASSISTANT:
            replies += 1
    return replace(transcript, messages=tuple(stamped))


__all__ = ["has_timestamps", "with_assumed_times"]
