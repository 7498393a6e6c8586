"""The simulations API: replay a transcript through a profile and keep the run; compare 2-3 profiles.

A run stores its inputs and summary numbers only; ``GET /simulations/{id}`` replays it again from the
transcript's text and the stored profile document, which gives the same result as the ``POST`` did
(replays are deterministic). Every result is priced (``cost`` per call, ``pricing``, ``summary.cost_usd``,
``cost_model``) at the run's pricing key, or ``?pricing=`` on the ``GET``, with 5-minute cache writes or
``cache_ttl`` (``1h``), the run's assumed gap (else the default, stated in ``cost_model.gap`` and, for an
OpenClaw replay, in ``warnings``), with the prices in effect for
the caller (the checked-in table with the dashboard's and the caller's edits); an unknown pricing key
is a 400 naming it. A bad profile is a ``ProfileError`` (422, ``extra.field``/``extra.allowed``),
an unknown id a 404, both mapped once in ``dashboard/api/errors.py``.
"""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import HttpRequest
from ninja import Query, Router, Status

from dashboard import selectors, services
from dashboard.api.docs import body_example
from dashboard.api.errors import get_or_404
from dashboard.models import SimulationRun
from dashboard.schemas import (
    CompareIn,
    CompareOut,
    ErrorOut,
    SimulationIn,
    SimulationRunDetailOut,
    SimulationRunOut,
    TraceIn,
    TraceOut,
)
from simulator import CacheTtl, ResultCost, SimulationResult, pricing_json, result_to_json, with_cost

router = Router(tags=["simulations"])
compare_router = Router(tags=["simulations"])


def _run_or_404(run_id: int) -> SimulationRun:
    return get_or_404(selectors.simulation_run_get(run_id=run_id), "simulation run", run_id)


def _detail(run: SimulationRun, result: SimulationResult, cost: ResultCost) -> dict[str, object]:
    return {**SimulationRunOut.from_orm(run).dict(), "result": with_cost(result_to_json(result), cost)}


@router.get("", response=list[SimulationRunOut], summary="List simulation runs")
def list_simulations(request: HttpRequest, transcript_id: int | None = None) -> QuerySet[SimulationRun]:
    """Stored runs (inputs and summary numbers), newest first; `transcript_id` keeps one transcript's runs."""
    return selectors.simulation_run_list(transcript_id=transcript_id)


@router.post(
    "",
    response={201: SimulationRunDetailOut, 400: ErrorOut, 404: ErrorOut, 422: ErrorOut},
    summary="Run a simulation",
    openapi_extra=body_example(SimulationIn),
)
def create_simulation(request: HttpRequest, payload: SimulationIn) -> Status[dict[str, object]]:
    """Replays a transcript through a stored profile (`profile_id`) or an inline document (`profile`) and
    stores the run; the answer carries the per-call replay. An invalid inline profile answers 422 naming
    the field.
    """
    transcript = selectors.transcript_get_or_404(transcript_id=payload.transcript_id)
    profile_id = payload.profile_id
    profile_row = None if profile_id is None else selectors.profile_get_or_404(profile_id=profile_id)
    run, result = services.simulation_create(
        transcript=transcript,
        profile_row=profile_row,
        document=payload.profile,
        user=request.user,
        name=payload.name,
        pricing=payload.pricing,
        assumed_gap_seconds=payload.assumed_gap_seconds,
    )
    cost = selectors.simulation_run_cost(run=run, user=request.user, cache_ttl=payload.cache_ttl)
    return Status(201, _detail(run, result, cost))


@router.get(
    "/trace",
    response={200: TraceOut, 400: ErrorOut, 404: ErrorOut, 422: ErrorOut},
    summary="Trace a fact through a replay",
)
def trace_simulation(request: HttpRequest, params: Query[TraceIn]) -> dict[str, object]:
    """Replays a stored transcript through a stored profile and follows every message matching `find`
    (text, file path or tool-call id; a regular expression with `regex=true`) through the calls: the
    calls that sent it in full, the call where it left or changed and the rule, as `python -m simulator
    trace --json` prints it (at most 100 matches followed; `more` counts the rest), with the session's
    re-reads after forgetting. An invalid regular expression answers 400 naming `find` and the problem.
    Example: `GET /api/simulations/trace?transcript_id=1&profile_id=1&find=config.toml`.
    """
    transcript = selectors.transcript_get_or_404(transcript_id=params.transcript_id)
    profile = selectors.profile_domain(profile=selectors.profile_get_or_404(profile_id=params.profile_id))
    return selectors.simulation_trace_json(
        transcript=transcript,
        profile=profile,
        find=params.find,
        regex=params.regex,
        assumed_gap_seconds=params.assumed_gap_seconds,
    )


@router.get(
    "/{run_id}",
    response={200: SimulationRunDetailOut, 400: ErrorOut, 404: ErrorOut},
    summary="Read a simulation run",
)
def get_simulation(
    request: HttpRequest, run_id: int, pricing: str | None = None, cache_ttl: CacheTtl = "5m"
) -> dict[str, object]:
    """The stored run with its per-call replay, recomputed from the transcript's text and the stored document
    (replays are deterministic, so it equals what the create answered). `pricing` prices this answer at
    another price table key without changing the run; an unknown key answers 400 naming it. `cache_ttl`
    (`5m` or `1h`, Anthropic's 1-hour writes at 2x input) prices it with that cache-write lifetime.
    """
    run = _run_or_404(run_id)
    if pricing is not None:
        run.pricing = pricing  # priced at another key for this response only; the run is not changed
    cost = selectors.simulation_run_cost(run=run, user=request.user, cache_ttl=cache_ttl)
    return _detail(run, selectors.simulation_run_result(run=run), cost)


@router.delete("/{run_id}", response={204: None, 404: ErrorOut}, summary="Delete a simulation run")
def delete_simulation(request: HttpRequest, run_id: int) -> Status[None]:
    """Deletes the stored run (the transcript and profile stay)."""
    services.simulation_delete(run=_run_or_404(run_id))
    return Status(204, None)


@compare_router.post(
    "",
    response={200: CompareOut, 400: ErrorOut, 404: ErrorOut, 422: ErrorOut},
    summary="Compare profiles on a transcript",
    openapi_extra=body_example(CompareIn),
)
def compare_profiles(request: HttpRequest, payload: CompareIn) -> dict[str, object]:
    """Replays one transcript through two or three profiles (stored ids and inline documents together) and
    answers call by call what each sends, which trimmed, and the first call where they differ, with each
    profile's cost per call and in total at one pricing key (and the call after which the cheaper one
    changed). An unknown pricing key answers 400. Nothing is stored.
    """
    transcript = selectors.transcript_get_or_404(transcript_id=payload.transcript_id)
    rows = [selectors.profile_get_or_404(profile_id=profile_id) for profile_id in payload.profile_ids]
    profiles = selectors.simulation_compare_profiles(profile_rows=rows, documents=payload.profiles)
    gap = payload.assumed_gap_seconds
    _, comparison = selectors.comparison(transcript=transcript, profiles=profiles, assumed_gap_seconds=gap)
    costs, money = selectors.comparison_costs(
        transcript=transcript,
        profiles=profiles,
        user=request.user,
        pricing=payload.pricing,
        assumed_gap_seconds=gap,
        cache_ttl=payload.cache_ttl,
    )
    return {
        "transcript_id": transcript.pk,
        "profile_ids": [*payload.profile_ids, *(None for _ in payload.profiles)],
        "first_difference": comparison.first_difference,
        "rows": list(comparison.rows),
        "summaries": comparison.summaries,
        "cost": {
            "pricing": pricing_json(costs[0].lookup.pricing, costs[0].session.ttl),
            "cost_usd": list(money.totals),
            "difference_usd": list(money.differences),
            "per_call_usd": [list(row) for row in money.per_call],
            "overtakes": [
                {"profile": x.other, "against": x.first, "call": x.call, "cheaper": x.cheaper_after}
                for x in money.crossings
            ],
            "as_recorded_usd": [c.baseline_usd for c in costs],
            "gap_seconds": costs[0].gap_seconds,
            "gap_source": costs[0].gap_source,
            "gap": costs[0].gap_statement,
            "cache_ttl": costs[0].session.ttl,
            "cache_ttl_statement": costs[0].ttl_statement,
        },
    }
