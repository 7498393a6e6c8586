"""The cost strip under the simulation page's timeline: per bar, what its calls cost, stacked by how
the tokens were billed (cache read, cache write, uncached input, output).

Bars are the timeline's own (``simulator.replay.view.timeline_shape``), so a long session's calls are
grouped the same way in both charts and each cost bar stands under its context bar. Heights are in
USD, scaled to the dearest bar; a bar whose calls include a cache break is marked.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from simulator.cost.breaks import CacheBreak
from simulator.cost.cache import TOKENS_PER_MTOK, CallCost, SessionCost
from simulator.replay.view import TimelineShape

Part = Literal["read", "write", "uncached", "output"]
PARTS: tuple[Part, ...] = ("read", "write", "uncached", "output")


@dataclass(frozen=True, slots=True)
class StripSegment:
    part: Part
    y: float
    height: float
    usd: float


@dataclass(frozen=True, slots=True)
class StripBar:
    first_call: int
    last_call: int
    x: float
    width: float
    usd: float
    segments: tuple[StripSegment, ...]
    selected: bool
    cache_break: bool


@dataclass(frozen=True, slots=True)
class CostStrip:
    width: int
    height: int
    bars: tuple[StripBar, ...]
    usd_max: float


def part_usd(session: SessionCost, call: CallCost) -> dict[Part, float]:
    """One call's price split by how its tokens were billed."""
    p, ttl = session.pricing, session.ttl
    per = p.input_per_mtok / TOKENS_PER_MTOK
    return {
        "read": call.cache_read_tokens * per * p.cache_read_multiplier,
        "write": call.cache_write_tokens * per * p.write_multiplier(ttl),
        "uncached": call.input_tokens * per,
        "output": call.output_tokens * p.output_per_mtok / TOKENS_PER_MTOK,
    }


def cost_strip(
    shape: TimelineShape, session: SessionCost, breaks: Sequence[CacheBreak], *, height: int = 60
) -> CostStrip:
    """Stacked cost bars aligned with ``shape``'s bars (y grows downwards, as in SVG)."""
    broke = sorted({b.number for b in breaks})
    sums: list[dict[Part, float]] = []
    for bar in shape.bars:
        total: dict[Part, float] = dict.fromkeys(PARTS, 0.0)
        for number in range(bar.bar.first_call, bar.bar.last_call + 1):
            if 1 <= number <= len(session.calls):
                for part, usd in part_usd(session, session.calls[number - 1]).items():
                    total[part] += usd
        sums.append(total)
    usd_max = max((sum(s.values()) for s in sums), default=0.0)
    scale = height / usd_max if usd_max > 0 else 0.0
    bars: list[StripBar] = []
    for bar, total in zip(shape.bars, sums, strict=True):
        y = float(height)
        segments: list[StripSegment] = []
        for part in PARTS:
            h = total[part] * scale
            y -= h
            segments.append(StripSegment(part, y, h, total[part]))
        first, last = bar.bar.first_call, bar.bar.last_call
        bars.append(
            StripBar(
                first_call=first,
                last_call=last,
                x=bar.x,
                width=bar.width,
                usd=sum(total.values()),
                segments=tuple(segments),
                selected=bar.selected,
                # The first break at or after the bar's first call, if it is within the bar (a long
                # session has thousands of bars and of breaks: not every break per bar).
                cache_break=bisect_left(broke, first) < bisect_right(broke, last),
            )
        )
    return CostStrip(width=shape.width, height=height, bars=tuple(bars), usd_max=usd_max)


__all__ = ["PARTS", "CostStrip", "Part", "StripBar", "StripSegment", "cost_strip", "part_usd"]
