"""Profile search: for one runtime, the knob values that best meet an objective under the operator's limits.

The search is a grid over the knobs that decide how much history a runtime keeps, then refinement
rounds that try the midpoints between the best candidate's values and their neighbours, one knob at a
time. Candidates are documents in the runtime's own keys, built from the runtime's default preset with
the knobs set, so the winner can be exported or saved as it is. Which knobs:

* ZeroClaw: ``runtime_profiles.default.max_context_tokens`` (the token budget) and
  ``max_history_messages`` (the message cap), both read by its trim step (zeroclaw.md §2-3);
* ai-profile: ``limits.user.contextWindow`` (the layer that wins over endpoint and preset) and
  ``max_tokens`` (the output reserve taken off the window);
* OpenClaw: ``contextPruning.softTrimRatio``, ``hardClearRatio`` and ``keepLastAssistants``.

Constraints: at most N overflow failures over the corpus; a least share of turns kept, at every call or
on average over calls; at most N trims in any one session. Objective: cost, tokens sent, or trims (the
lower the better; ties go to more history kept). The Pareto front is over the feasible candidates: none
of them is both cheaper and keeps more history on average.

The search is pure: it is given a function that evaluates a batch of profiles over the corpus.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from simulator.errors import ProfileError
from simulator.evaluate.aggregate import ProfileSummary
from simulator.jsonvalue import JSON
from simulator.presets import PRESETS_BY_KEY
from simulator.profiles import Profile, Runtime, profile_from_document

Objective = Literal["cost", "tokens", "trims"]
OBJECTIVES: tuple[Objective, ...] = ("cost", "tokens", "trims")
KeptAt = Literal["every", "average"]
Number = int | float


@dataclass(frozen=True, slots=True)
class Knob:
    """One tunable value: where it lives in the document and the grid of values tried first."""

    name: str
    path: tuple[str, ...]
    grid: tuple[Number, ...]
    integer: bool


KNOBS: Mapping[str, tuple[Knob, ...]] = {
    "zeroclaw": (
        Knob(
            "max_context_tokens",
            ("runtime_profiles", "default", "max_context_tokens"),
            (8_000, 16_000, 32_000, 64_000, 96_000, 120_000),
            True,
        ),
        Knob(
            "max_history_messages",
            ("runtime_profiles", "default", "max_history_messages"),
            (20, 50, 100, 200, 400),
            True,
        ),
    ),
    "ai_profile": (
        Knob(
            "contextWindow",
            ("limits", "user", "contextWindow"),
            (32_000, 64_000, 100_000, 128_000, 160_000, 200_000),
            True,
        ),
        Knob("max_tokens", ("max_tokens",), (2_048, 4_096, 8_192, 16_384), True),
    ),
    "openclaw": (
        Knob(
            "softTrimRatio",
            ("agents", "defaults", "contextPruning", "softTrimRatio"),
            (0.2, 0.3, 0.4, 0.5),
            False,
        ),
        Knob(
            "hardClearRatio",
            ("agents", "defaults", "contextPruning", "hardClearRatio"),
            (0.4, 0.5, 0.6, 0.7),
            False,
        ),
        Knob(
            "keepLastAssistants",
            ("agents", "defaults", "contextPruning", "keepLastAssistants"),
            (1, 3, 5),
            True,
        ),
    ),
}

BASE_PRESET: Mapping[str, str] = {
    "zeroclaw": "zeroclaw-documented",
    "ai_profile": "ai-profile",
    "openclaw": "openclaw",
}
"""The preset each runtime's candidates start from (every knob not searched keeps its value)."""


@dataclass(frozen=True, slots=True)
class Constraints:
    max_overflow: int = 0
    min_kept_turns: float = 0.0
    kept_at: KeptAt = "every"
    max_trims_per_session: int | None = None


@dataclass(frozen=True, slots=True)
class Candidate:
    values: tuple[tuple[str, Number], ...]
    document: dict[str, JSON]
    profile: Profile


@dataclass(frozen=True, slots=True)
class Scored:
    candidate: Candidate
    summary: ProfileSummary
    violations: tuple[str, ...]

    @property
    def feasible(self) -> bool:
        return not self.violations


@dataclass(frozen=True, slots=True)
class TuneResult:
    runtime: str
    objective: Objective
    constraints: Constraints
    scored: tuple[Scored, ...]
    front: tuple[Scored, ...]
    best: Scored | None
    reasons: tuple[str, ...]


Evaluator = Callable[[Sequence[Profile]], Sequence[ProfileSummary]]
"""Evaluates profiles over the corpus, one summary per profile, in order."""


def _label(runtime: str, values: Sequence[tuple[str, Number]]) -> str:
    return f"{runtime} " + " ".join(f"{k}={v}" for k, v in values)


def make_candidate(runtime: str, values: Sequence[tuple[str, Number]]) -> Candidate | None:
    """The runtime's base preset with ``values`` set; ``None`` when the runtime rejects the combination."""
    document = copy.deepcopy(dict(PRESETS_BY_KEY[BASE_PRESET[runtime]].document))
    knobs = {k.name: k for k in KNOBS[runtime]}
    for name, value in values:
        node = document
        *parents, leaf = knobs[name].path
        for key in parents:
            child = node.setdefault(key, {})
            assert isinstance(child, dict)
            node = child
        node[leaf] = value
    try:
        profile = profile_from_document(document, name=_label(runtime, values))
    except ProfileError:
        return None
    return Candidate(tuple(values), document, profile)


def grid(runtime: str) -> list[tuple[tuple[str, Number], ...]]:
    knobs = KNOBS[runtime]
    return [
        tuple(zip((k.name for k in knobs), combo, strict=True))
        for combo in itertools.product(*(k.grid for k in knobs))
    ]


def _between(knob: Knob, a: Number, b: Number) -> Number | None:
    mid: Number = (a + b) / 2
    if knob.integer:
        mid = round(mid)
    else:
        mid = round(mid, 3)
    return None if mid in (a, b) else mid


def neighbours(
    runtime: str, values: Sequence[tuple[str, Number]], tried: Sequence[Number] | None = None
) -> list[tuple[tuple[str, Number], ...]]:
    """Values one step finer around ``values``: per knob, the midpoints towards the nearest tried values."""
    knobs = KNOBS[runtime]
    current = dict(values)
    out: list[tuple[tuple[str, Number], ...]] = []
    for knob in knobs:
        here = current[knob.name]
        known = sorted(set(knob.grid) | {here} | set(tried or ()))
        at = known.index(here)
        for other in (known[at - 1] if at else None, known[at + 1] if at + 1 < len(known) else None):
            if other is None:
                continue
            mid = _between(knob, here, other)
            if mid is not None:
                out.append(tuple((k.name, mid if k.name == knob.name else current[k.name]) for k in knobs))
    return out


def violations(summary: ProfileSummary, constraints: Constraints) -> tuple[str, ...]:
    """What in ``summary`` breaks ``constraints``, in words (empty = feasible)."""
    out: list[str] = []
    if summary.overflow_failures > constraints.max_overflow:
        out.append(f"{summary.overflow_failures} overflow failures (at most {constraints.max_overflow})")
    kept = (
        summary.min_kept_turn_fraction if constraints.kept_at == "every" else summary.mean_kept_turn_fraction
    )
    if kept < constraints.min_kept_turns:
        where = "at some call" if constraints.kept_at == "every" else "on average"
        out.append(f"{kept:.0%} of turns kept {where} (at least {constraints.min_kept_turns:.0%})")
    if constraints.max_trims_per_session is not None:
        most = int(summary.stat("calls_trimmed").maximum)
        if most > constraints.max_trims_per_session:
            out.append(f"a session trimmed {most} times (at most {constraints.max_trims_per_session})")
    return tuple(out)


def objective_value(summary: ProfileSummary, objective: Objective) -> float:
    if objective == "cost":
        return summary.cost_usd
    if objective == "tokens":
        return float(summary.tokens_sent)
    return float(summary.trims)


def _rank_key(objective: Objective) -> Callable[[Scored], tuple[float, float, int, str]]:
    def key(s: Scored) -> tuple[float, float, int, str]:
        return (
            objective_value(s.summary, objective),
            -s.summary.mean_kept_turn_fraction,
            s.summary.trims,
            s.candidate.profile.name,
        )

    return key


def pareto_front(scored: Sequence[Scored]) -> tuple[Scored, ...]:
    """Candidates no other candidate beats on both cost (lower) and mean history kept (higher)."""
    ordered = sorted(scored, key=lambda s: (s.summary.cost_usd, -s.summary.mean_kept_turn_fraction))
    front: list[Scored] = []
    best_kept = -1.0
    for s in ordered:
        if s.summary.mean_kept_turn_fraction > best_kept:
            front.append(s)
            best_kept = s.summary.mean_kept_turn_fraction
    return tuple(front)


def _reasons(
    best: Scored, feasible: Sequence[Scored], constraints: Constraints, objective: Objective
) -> tuple[str, ...]:
    s = best.summary
    what = {"cost": "cost", "tokens": "tokens sent", "trims": "trims"}[objective]

    def show(summary: ProfileSummary) -> str:
        value = objective_value(summary, objective)
        return f"${value:.4f}" if objective == "cost" else f"{value:,.0f}"

    where = "at every call" if constraints.kept_at == "every" else "on average"
    limits = [
        f"{s.overflow_failures} overflow failures (at most {constraints.max_overflow})",
        f"{s.min_kept_turn_fraction:.0%} of turns kept at every call, {s.mean_kept_turn_fraction:.0%} on "
        f"average (at least {constraints.min_kept_turns:.0%} {where})",
    ]
    if constraints.max_trims_per_session is not None:
        most = int(s.stat("calls_trimmed").maximum)
        limits.append(f"at most {most} trims in a session (limit {constraints.max_trims_per_session})")
    reasons = [
        "meets every constraint: " + "; ".join(limits),
        f"lowest {what} of the {len(feasible)} feasible candidates: {show(s)}",
    ]
    ranked = sorted(feasible, key=_rank_key(objective))
    if len(ranked) > 1:
        runner = ranked[1].summary
        reasons.append(f"next best {ranked[1].candidate.profile.name}: {show(runner)}")
    reasons.append(
        f"{s.trims:,} trims over {s.sessions:,} sessions, {s.tokens_sent:,} tokens sent, ${s.cost_usd:.4f}"
    )
    return tuple(reasons)


def tune(
    runtime: Runtime,
    evaluate: Evaluator,
    *,
    constraints: Constraints = Constraints(),
    objective: Objective = "cost",
    rounds: int = 2,
) -> TuneResult:
    """Search ``runtime``'s knobs over the corpus ``evaluate`` stands for.

    Args:
        runtime: Which runtime's knobs to search.
        evaluate: Evaluates a batch of profiles over the corpus.
        constraints: The operator's limits.
        objective: What to minimise among the candidates that meet them.
        rounds: Refinement rounds after the grid.

    Returns:
        Every scored candidate, the Pareto front of the feasible ones, and the recommendation (``None``
        when no candidate meets the constraints) with its reasons.
    """
    seen: dict[tuple[tuple[str, Number], ...], Scored] = {}

    def run(batch: Sequence[tuple[tuple[str, Number], ...]]) -> None:
        fresh = [v for v in dict.fromkeys(batch) if v not in seen]
        candidates = [c for c in (make_candidate(runtime, v) for v in fresh) if c is not None]
        if not candidates:
            return
        summaries = evaluate([c.profile for c in candidates])
        for cand, summary in zip(candidates, summaries, strict=True):
            seen[cand.values] = Scored(cand, summary, violations(summary, constraints))

    def leader() -> Scored | None:
        pool = [s for s in seen.values() if s.feasible] or list(seen.values())
        return min(pool, key=_rank_key(objective)) if pool else None

    run(grid(runtime))
    for _ in range(rounds):
        lead = leader()
        if lead is None:
            break
        tried: dict[str, list[Number]] = {}
        for values in seen:
            for name, value in values:
                tried.setdefault(name, []).append(value)
        batch: list[tuple[tuple[str, Number], ...]] = []
        for knob in KNOBS[runtime]:
            for option in neighbours(runtime, lead.candidate.values, tried[knob.name]):
                if dict(option)[knob.name] != dict(lead.candidate.values)[knob.name]:
                    batch.append(option)
        before = len(seen)
        run(batch)
        if len(seen) == before:
            break
    scored = tuple(seen.values())
    feasible = [s for s in scored if s.feasible]
    best = min(feasible, key=_rank_key(objective)) if feasible else None
    reasons = _reasons(best, feasible, constraints, objective) if best is not None else ()
    return TuneResult(runtime, objective, constraints, scored, pareto_front(feasible), best, reasons)


__all__ = [
    "BASE_PRESET",
    "KNOBS",
    "OBJECTIVES",
    "Candidate",
    "Constraints",
    "Evaluator",
    "Knob",
    "Objective",
    "Scored",
    "TuneResult",
    "grid",
    "make_candidate",
    "neighbours",
    "objective_value",
    "pareto_front",
    "tune",
    "violations",
]
