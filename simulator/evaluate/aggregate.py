"""Per-profile summaries of session metrics: totals, mean / p50 / p95, and distribution data.

Percentiles use the nearest-rank method (the value at rank ``ceil(p * n)``), so every reported value is
one a session really had. Histograms have fixed, equal-width bins from the smallest to the largest value
so profiles over the same corpus can be drawn on the same axes; the CDF is the sorted values with their
cumulative share.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from simulator.evaluate.metrics import KEPT_BINS, SessionMetrics
from simulator.jsonvalue import JSON

DISTRIBUTED: tuple[str, ...] = (
    "calls_trimmed",
    "overflow_failures",
    "messages_dropped",
    "turns_dropped",
    "min_kept_turn_fraction",
    "mean_kept_turn_fraction",
    "tokens_sent",
    "cost_usd",
)
"""The per-session quantities that get mean / p50 / p95 and a histogram."""


@dataclass(frozen=True, slots=True)
class Stats:
    mean: float
    p50: float
    p95: float
    minimum: float
    maximum: float


@dataclass(frozen=True, slots=True)
class Histogram:
    """``counts[i]`` sessions fell in ``[edges[i], edges[i + 1])`` (the last bin includes its right edge)."""

    edges: tuple[float, ...]
    counts: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ProfileSummary:
    profile: str
    runtime: str
    sessions: int
    calls: int
    trims: int
    overflow_failures: int
    messages_dropped: int
    turns_dropped: int
    tokens_sent: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float
    sessions_trimmed: int
    sessions_failing: int
    min_kept_turn_fraction: float
    """The smallest share of turns any call of any session kept."""
    mean_kept_turn_fraction: float
    """Kept-turn share averaged over every call of every session."""
    kept_histogram: tuple[int, ...]
    """Calls per kept-turn share bin (``KEPT_BINS`` bins over [0, 1])."""
    stats: tuple[tuple[str, Stats], ...]
    histograms: tuple[tuple[str, Histogram], ...]
    priced: bool = True
    """False when any session was evaluated without the cost model: the row's ``cost_usd`` is then null."""
    rereads: int = 0
    """Re-reads after forgetting, summed over the sessions."""

    @property
    def rereads_per_session(self) -> float:
        """Re-reads after forgetting per session, on average."""
        return self.rereads / self.sessions if self.sessions else 0.0

    def stat(self, name: str) -> Stats:
        return dict(self.stats)[name]

    def histogram(self, name: str) -> Histogram:
        return dict(self.histograms)[name]

    def row(self) -> dict[str, JSON]:
        """The row ``evaluate --json`` prints for this profile (and ``tune --json`` uses as metrics)."""
        return {
            "profile": self.profile,
            "runtime": self.runtime,
            "sessions": self.sessions,
            "calls": self.calls,
            "trims": self.trims,
            "overflow_failures": self.overflow_failures,
            "messages_dropped": self.messages_dropped,
            "tokens_sent": self.tokens_sent,
            "cost_usd": round(self.cost_usd, 6) if self.priced else None,
            "rereads": self.rereads,
        }


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile of ``values`` (``p`` in [0, 1]); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(p * len(ordered)))
    return ordered[rank - 1]


def stats_of(values: Sequence[float]) -> Stats:
    if not values:
        return Stats(0.0, 0.0, 0.0, 0.0, 0.0)
    return Stats(
        mean=sum(values) / len(values),
        p50=percentile(values, 0.5),
        p95=percentile(values, 0.95),
        minimum=min(values),
        maximum=max(values),
    )


def histogram_of(
    values: Sequence[float], bins: int = 10, *, low: float | None = None, high: float | None = None
) -> Histogram:
    """Equal-width histogram over ``[low, high]`` (the values' range by default)."""
    if not values:
        return Histogram((), ())
    lo = min(values) if low is None else low
    hi = max(values) if high is None else high
    if hi <= lo:
        return Histogram((lo, lo), (len(values),))
    width = (hi - lo) / bins
    counts = [0] * bins
    for v in values:
        counts[min(max(int((v - lo) / width), 0), bins - 1)] += 1
    return Histogram(tuple(lo + i * width for i in range(bins)) + (hi,), tuple(counts))


def cdf_of(values: Sequence[float]) -> tuple[tuple[float, float], ...]:
    """``(value, share of sessions at or below it)`` at every distinct value, ascending."""
    ordered = sorted(values)
    n = len(ordered)
    out: list[tuple[float, float]] = []
    for i, v in enumerate(ordered):
        if i + 1 < n and ordered[i + 1] == v:
            continue
        out.append((v, (i + 1) / n))
    return tuple(out)


def _getter(name: str) -> Callable[[SessionMetrics], float]:
    def get(m: SessionMetrics) -> float:
        value = getattr(m, name)
        assert isinstance(value, int | float)
        return float(value)

    return get


def summarise(profile: str, runtime: str, sessions: Sequence[SessionMetrics]) -> ProfileSummary:
    """Fold one profile's session metrics into its summary."""
    calls = sum(m.calls for m in sessions)
    kept = [0] * KEPT_BINS
    for m in sessions:
        for i, c in enumerate(m.kept_histogram):
            kept[i] += c
    series = {name: [_getter(name)(m) for m in sessions] for name in DISTRIBUTED}
    return ProfileSummary(
        profile=profile,
        runtime=runtime,
        sessions=len(sessions),
        calls=calls,
        trims=sum(m.calls_trimmed for m in sessions),
        overflow_failures=sum(m.overflow_failures for m in sessions),
        messages_dropped=sum(m.messages_dropped for m in sessions),
        turns_dropped=sum(m.turns_dropped for m in sessions),
        tokens_sent=sum(m.tokens_sent for m in sessions),
        cache_read_tokens=sum(m.cache_read_tokens for m in sessions),
        cache_write_tokens=sum(m.cache_write_tokens for m in sessions),
        cost_usd=sum(m.cost_usd for m in sessions),
        sessions_trimmed=sum(1 for m in sessions if m.calls_trimmed),
        sessions_failing=sum(1 for m in sessions if m.overflow_failures),
        min_kept_turn_fraction=min((m.min_kept_turn_fraction for m in sessions), default=1.0),
        mean_kept_turn_fraction=(
            sum(m.mean_kept_turn_fraction * m.calls for m in sessions) / calls if calls else 1.0
        ),
        kept_histogram=tuple(kept),
        stats=tuple((name, stats_of(values)) for name, values in series.items()),
        histograms=tuple((name, histogram_of(values)) for name, values in series.items()),
        priced=all(m.priced for m in sessions),
        rereads=sum(m.rereads for m in sessions),
    )


def worst_sessions(sessions: Sequence[SessionMetrics], n: int = 10) -> tuple[SessionMetrics, ...]:
    """The sessions that fared worst: most overflow failures, then least history kept, then most trims."""
    ranked = sorted(
        sessions,
        key=lambda m: (-m.overflow_failures, m.min_kept_turn_fraction, -m.calls_trimmed, m.source),
    )
    return tuple(ranked[:n])


__all__ = [
    "DISTRIBUTED",
    "Histogram",
    "ProfileSummary",
    "Stats",
    "cdf_of",
    "histogram_of",
    "percentile",
    "stats_of",
    "summarise",
    "worst_sessions",
]
