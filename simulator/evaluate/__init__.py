"""Corpus evaluation: what profiles do across many sessions, and the search for the best profile.

* :mod:`simulator.evaluate.metrics` -- one (session, profile) pair's numbers from its replay;
* :mod:`simulator.evaluate.aggregate` -- per-profile totals, mean / p50 / p95, histograms and CDFs;
* :mod:`simulator.evaluate.tune` -- the knob search under constraints, its Pareto front and recommendation.
"""

from __future__ import annotations

from simulator.evaluate.aggregate import (
    DISTRIBUTED,
    Histogram,
    ProfileSummary,
    Stats,
    cdf_of,
    histogram_of,
    percentile,
    stats_of,
    summarise,
    worst_sessions,
)
from simulator.evaluate.metrics import (
    KEPT_BINS,
    PreparedTranscript,
    SessionMetrics,
    evaluate_session,
    measure,
)
from simulator.evaluate.tune import (
    BASE_PRESET,
    KNOBS,
    OBJECTIVES,
    Candidate,
    Constraints,
    Objective,
    Scored,
    TuneResult,
    make_candidate,
    pareto_front,
    tune,
    violations,
)

__all__ = [
    "BASE_PRESET",
    "DISTRIBUTED",
    "KEPT_BINS",
    "KNOBS",
    "OBJECTIVES",
    "Candidate",
    "Constraints",
    "Histogram",
    "Objective",
    "PreparedTranscript",
    "ProfileSummary",
    "Scored",
    "SessionMetrics",
    "Stats",
    "TuneResult",
    "cdf_of",
    "evaluate_session",
    "histogram_of",
    "make_candidate",
    "measure",
    "pareto_front",
    "percentile",
    "stats_of",
    "summarise",
    "tune",
    "violations",
    "worst_sessions",
]
