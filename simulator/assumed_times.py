"""The assumed gap between model calls, for transcripts that record no timestamps.

One knob serves both places that need time: the cache model (``simulator.cost``: whether the previous
call's cache is still live) and OpenClaw's cache-TTL pruning (whether the TTL has expired). A transcript
with no timestamp at all is given ones ``gap_seconds`` apart per model call: the messages up to and
including the first reply at the origin, those after reply *k* up to and including reply *k+1*
``k × gap`` later.
That is exactly the time ``simulator.cost.from_replay.call_times`` gives call *k+1*, so both read
the same clock. A transcript with any timestamp is left as it is.

With no gap given, both use :data:`DEFAULT_GAP_SECONDS`; the replay, the cost model, the CLI, the API and
the pages all read it from here and state it with :func:`gap_statement`.
"""

from __future__ import annotations

from dataclasses import replace

import msgspec

from simulator.transcript import Role, Transcript

DEFAULT_GAP_SECONDS = 30.0
"""Seconds between calls assumed for a transcript without timestamps when the user sets none.

Why 30 s, under every cache TTL a provider sells (Anthropic 5 min / 1 h, OpenAI's minutes): a missing
time must not make OpenClaw prune. OpenClaw itself never prunes on a time it does not have: the TTL gate
reads ``lastCacheTouchAt`` from the newest ``openclaw.cache-ttl`` marker and skips a marker whose
timestamp is missing, non-numeric or 0, and with no touch time the hook does nothing (spec
``openclaw.md`` section 5 and pitfall 3). A gap under the TTL gives the same answer -- calls within the
TTL, nothing pruned -- and the cache model, reading the same gap, keeps the cache warm between calls, so
the two never contradict each other (a pruned call with a warm cache). 30 s is also the order of an
agent's tool loop (a model call, a tool run, the next call). Setting a gap past the TTL shows what
pruning would do after idle pauses.
"""

MS_PER_SECOND = 1000
ORIGIN_MS = 1
"""The first call's time: not 0, which OpenClaw's clock reads as "never touched" (a JS truthiness test)."""


def has_timestamps(transcript: Transcript) -> bool:
    return any(m.timestamp_ms is not None for m in transcript.messages)


def gap_or_default(gap_seconds: float | None) -> float:
    """The assumed gap: the one given, else :data:`DEFAULT_GAP_SECONDS`."""
    return DEFAULT_GAP_SECONDS if gap_seconds is None else gap_seconds


def gap_statement(gap_seconds: float | None) -> str:
    """What a replay or a cost of a transcript without timestamps assumed, in the words every surface uses."""
    gap = gap_or_default(gap_seconds)
    by_default = " (the default)" if gap_seconds is None else ""
    return f"no timestamps: calls assumed {gap:g} s apart{by_default}"


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


__all__ = ["DEFAULT_GAP_SECONDS", "gap_or_default", "gap_statement", "has_timestamps", "with_assumed_times"]
