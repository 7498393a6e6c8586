"""Pieces every runtime's replay shares: finding the model calls, compressing index lists to ranges."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from simulator.transcript import Role, Transcript


def call_starts(transcript: Transcript, origins: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """Model calls as ``(native index where the reply starts, transcript index of the reply)``.

    Each assistant message of the transcript is one model call; its request is everything held
    before the first native message built from it.
    """
    messages = transcript.messages
    seen: set[int] = set()
    starts: list[tuple[int, int]] = []
    for native, sources in enumerate(origins):
        if not sources:
            continue
        first = sources[0]
        if messages[first].role is Role.ASSISTANT and first not in seen:
            seen.add(first)
            starts.append((native, first))
    return starts


def ranges(indices: Iterable[int | None]) -> tuple[tuple[tuple[int, int], ...], int | None]:
    """Compress native indices (``None`` = breadcrumb) into half-open ranges and the breadcrumb's position."""
    out: list[tuple[int, int]] = []
    crumb: int | None = None
    for position, index in enumerate(indices):
        if index is None:
            crumb = position
        elif out and out[-1][1] == index:
            out[-1] = (out[-1][0], index + 1)
        else:
            out.append((index, index + 1))
    return tuple(out), crumb


def fmt(n: int) -> str:
    return f"{n:,}"
