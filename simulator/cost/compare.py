"""Two or three profiles' costs side by side: per call, in total, the difference and where one overtakes.

"Overtakes" is about the running total: profile B overtakes profile A at the first call after which
B's total so far is above A's when, before it, it was below (or the other way round). A profile that
trims early often costs more at first (its cache breaks) and less later (it sends less); the call
where the running totals cross is where the policy starts to pay, or stops paying.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from simulator.cost.cache import SessionCost
from simulator.cost.shapes import USD_DECIMALS


@dataclass(frozen=True, slots=True)
class Crossing:
    """Profile ``other`` against profile ``first`` (indices into the compared profiles)."""

    first: int
    other: int
    call: int | None
    """1-based call after which the running totals changed order for the last time (None: never)."""
    cheaper_after: int | None
    """Which of the two is cheaper in total after that call (None: equal)."""


@dataclass(frozen=True, slots=True)
class CostComparison:
    per_call: tuple[tuple[float, ...], ...]
    """Per call, each profile's cost."""
    running: tuple[tuple[float, ...], ...]
    """Per call, each profile's total so far."""
    totals: tuple[float, ...]
    differences: tuple[float, ...]
    """Each profile's total minus the first profile's."""
    crossings: tuple[Crossing, ...]


def _sign(value: float) -> int:
    rounded = round(value, USD_DECIMALS)
    return (rounded > 0) - (rounded < 0)


def cost_comparison(sessions: Sequence[SessionCost]) -> CostComparison:
    """Compare the priced replays of one transcript (the first is the reference for differences)."""
    calls = min((len(s.calls) for s in sessions), default=0)
    per_call = tuple(tuple(round(s.calls[i].usd, USD_DECIMALS) for s in sessions) for i in range(calls))
    running: list[tuple[float, ...]] = []
    totals = [0.0] * len(sessions)
    for row in per_call:
        totals = [round(t + c, USD_DECIMALS) for t, c in zip(totals, row, strict=True)]
        running.append(tuple(totals))
    crossings: list[Crossing] = []
    for other in range(1, len(sessions)):
        last_sign, crossed = 0, None
        for number, row in enumerate(running, start=1):
            sign = _sign(row[other] - row[0])
            if sign != 0 and last_sign != 0 and sign != last_sign:
                crossed = number
            if sign != 0:
                last_sign = sign
        cheaper = None if last_sign == 0 else (0 if last_sign > 0 else other)
        crossings.append(Crossing(0, other, crossed, cheaper))
    final = tuple(totals)
    return CostComparison(
        per_call=per_call,
        running=tuple(running),
        totals=final,
        differences=tuple(round(t - final[0], USD_DECIMALS) for t in final) if final else (),
        crossings=tuple(crossings),
    )


__all__ = ["CostComparison", "Crossing", "cost_comparison"]
