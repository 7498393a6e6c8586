"""The corpus API: corpora (create, list, add files), evaluations (start, progress and per-profile rows,
cancel, re-run) and profile searches (start, result); one router each. A request the services refuse
(``CorpusError``, ``EvaluationError``) is a 422 in the API's one error shape (``dashboard.api.errors``)."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import File, Router, Schema, Status
from ninja.errors import HttpError
from ninja.files import UploadedFile
from pydantic import ConfigDict, Field, JsonValue

from dashboard import selectors
from dashboard.api.docs import body_example
from dashboard.api.errors import get_or_404
from dashboard.models import Corpus, Evaluation, TuneRun
from dashboard.schemas import ErrorOut
from dashboard.selectors import evaluations as eval_selectors
from dashboard.services import corpora as corpus_services
from dashboard.services import evaluations as eval_services

corpora_router = Router(tags=["corpora"])
evaluations_router = Router(tags=["evaluations"])
tune_router = Router(tags=["tune"])


class CorpusIn(Schema):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"name": "support sessions, November", "description": "exported"}]}
    )

    name: str
    description: str = ""


class FailureOut(Schema):
    file: str
    error: str


class CorpusOut(Schema):
    id: int
    name: str
    description: str
    transcripts: int
    failed: list[FailureOut]


class AddedOut(Schema):
    added: int
    failed: int


class EvaluationIn(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [{"corpus_id": 1, "profile_ids": [1, 2]}]})

    corpus_id: int
    profile_ids: list[int]


class ProfileRowOut(Schema):
    profile: str
    runtime: str
    sessions: int
    calls: int
    trims: int
    overflow_failures: int
    messages_dropped: int
    tokens_sent: int
    cost_usd: float | None
    mean_kept_turn_fraction: float
    min_kept_turn_fraction: float
    rereads: int = Field(description="re-reads after forgetting over the corpus (as `evaluate --json`)")
    rereads_per_session: float = Field(description="re-reads after forgetting per session, on average")
    rereads_uncounted: int = Field(
        description="sessions stored before re-reads were counted (not in `rereads`; re-run to count them)"
    )


class EvaluationOut(Schema):
    id: int
    corpus_id: int
    status: str
    done: int
    total: int
    rate: float
    eta_seconds: float | None
    profiles: list[ProfileRowOut]


class TuneIn(Schema):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "corpus_id": 1,
                    "runtime": "zeroclaw",
                    "objective": "cost",
                    "max_overflow": 0,
                    "min_kept_turns": 0.5,
                    "kept_at": "every",
                }
            ]
        }
    )

    corpus_id: int
    runtime: str
    objective: str = "cost"
    max_overflow: int = 0
    min_kept_turns: float = 0.0
    kept_at: str = "every"
    max_trims_per_session: int | None = None


class TuneOut(Schema):
    id: int
    corpus_id: int
    runtime: str
    status: str
    best: dict[str, JsonValue] | None
    reasons: list[str]
    front: list[dict[str, JsonValue]]


def _corpus(corpus_id: int) -> Corpus:
    return get_or_404(eval_selectors.corpus_get(corpus_id=corpus_id), "corpus", corpus_id)


def _corpus_out(corpus: Corpus) -> dict[str, object]:
    return {
        "id": corpus.pk,
        "name": corpus.name,
        "description": corpus.description,
        "transcripts": corpus.transcripts.count(),
        "failed": [{"file": f.file, "error": f.error} for f in eval_selectors.corpus_failures(corpus=corpus)],
    }


@corpora_router.get("", response=list[CorpusOut], summary="List corpora")
def list_corpora(request: HttpRequest) -> list[dict[str, object]]:
    """Every corpus with its transcript count and the files that could not be read."""
    return [_corpus_out(c) for c in eval_selectors.corpus_list()]


@corpora_router.post(
    "",
    response={201: CorpusOut, 422: ErrorOut},
    summary="Create a corpus",
    openapi_extra=body_example(CorpusIn),
)
def create_corpus(request: HttpRequest, payload: CorpusIn) -> Status[dict[str, object]]:
    """Creates an empty corpus; a blank, overlong or taken name answers 422."""
    corpus = corpus_services.corpus_create(
        name=payload.name, description=payload.description, user=request.user
    )
    return Status(201, _corpus_out(corpus))


@corpora_router.get("/{corpus_id}", response={200: CorpusOut, 404: ErrorOut}, summary="Read a corpus")
def get_corpus(request: HttpRequest, corpus_id: int) -> dict[str, object]:
    """One corpus with its transcript count and failed files."""
    return _corpus_out(_corpus(corpus_id))


@corpora_router.post(
    "/{corpus_id}/files",
    response={200: AddedOut, 404: ErrorOut, 413: ErrorOut},
    summary="Add transcript files to a corpus",
)
def add_corpus_files(request: HttpRequest, corpus_id: int, files: File[list[UploadedFile]]) -> dict[str, int]:
    """Adds uploaded transcript files (multipart `files`); each file is read on its own and one that cannot be
    read is listed as failed, not fatal.
    """
    corpus = _corpus(corpus_id)
    added = corpus_services.corpus_add_files(
        corpus=corpus, files=[(f.name or "upload", bytes(f.read())) for f in files], user=request.user
    )
    return {"added": added.added, "failed": added.failed}


def _evaluation(evaluation_id: int) -> Evaluation:
    return get_or_404(eval_selectors.evaluation_get(evaluation_id=evaluation_id), "evaluation", evaluation_id)


def _evaluation_out(evaluation: Evaluation) -> dict[str, object]:
    progress = eval_selectors.evaluation_progress(evaluation=evaluation)
    rows = []
    for report in eval_selectors.evaluation_report(evaluation=evaluation):
        s = report.summary
        rows.append(
            {
                **s.row(),
                "mean_kept_turn_fraction": s.mean_kept_turn_fraction,
                "min_kept_turn_fraction": s.min_kept_turn_fraction,
                "rereads_per_session": round(report.rereads.mean, 6),
                "rereads_uncounted": report.rereads.uncounted,
            }
        )
    return {
        "id": evaluation.pk,
        "corpus_id": evaluation.corpus_id,
        "status": evaluation.status,
        "done": progress.done,
        "total": progress.total,
        "rate": progress.rate,
        "eta_seconds": progress.eta_seconds,
        "profiles": rows,
    }


@evaluations_router.post(
    "",
    response={201: EvaluationOut, 404: ErrorOut, 422: ErrorOut},
    summary="Start an evaluation",
    openapi_extra=body_example(EvaluationIn),
)
def create_evaluation(request: HttpRequest, payload: EvaluationIn) -> Status[dict[str, object]]:
    """Evaluates stored profiles over every transcript of a corpus in background chunks; the answer is the
    evaluation with its progress. Unknown profile ids or an empty corpus answer 422.
    """
    corpus = _corpus(payload.corpus_id)
    profiles = list(selectors.profile_list().filter(pk__in=payload.profile_ids))
    missing = set(payload.profile_ids) - {p.pk for p in profiles}
    if missing:
        raise HttpError(422, f"no profile with id {', '.join(str(i) for i in sorted(missing))}")
    evaluation = eval_services.evaluation_start(corpus=corpus, profiles=profiles, user=request.user)
    return Status(201, _evaluation_out(evaluation))


@evaluations_router.get(
    "/{evaluation_id}", response={200: EvaluationOut, 404: ErrorOut}, summary="Read an evaluation"
)
def get_evaluation(request: HttpRequest, evaluation_id: int) -> dict[str, object]:
    """Progress (done, total, rate, ETA) and, per profile, sessions, calls, trims, overflow failures, messages
    dropped, tokens sent, cost and kept-turn fractions.
    """
    return _evaluation_out(_evaluation(evaluation_id))


@evaluations_router.post(
    "/{evaluation_id}/cancel", response={200: EvaluationOut, 404: ErrorOut}, summary="Cancel an evaluation"
)
def cancel_evaluation(request: HttpRequest, evaluation_id: int) -> dict[str, object]:
    """Stops an evaluation: chunks not yet started are skipped; results already stored stay."""
    return _evaluation_out(eval_services.evaluation_cancel(evaluation=_evaluation(evaluation_id)))


@evaluations_router.post(
    "/{evaluation_id}/rerun", response={201: EvaluationOut, 404: ErrorOut}, summary="Re-run an evaluation"
)
def rerun_evaluation(request: HttpRequest, evaluation_id: int) -> Status[dict[str, object]]:
    """Starts a fresh evaluation of the same corpus and profile snapshots."""
    fresh = eval_services.evaluation_rerun(evaluation=_evaluation(evaluation_id), user=request.user)
    return Status(201, _evaluation_out(fresh))


def _tune_out(run: TuneRun) -> dict[str, object]:
    result = run.result if isinstance(run.result, dict) else {}
    best = result.get("best")
    front = result.get("front")
    reasons = result.get("reasons")
    return {
        "id": run.pk,
        "corpus_id": run.corpus_id,
        "runtime": run.runtime,
        "status": run.status,
        "best": best if isinstance(best, dict) else None,
        "reasons": reasons if isinstance(reasons, list) else [],
        "front": front if isinstance(front, list) else [],
    }


@tune_router.post(
    "",
    response={201: TuneOut, 404: ErrorOut, 422: ErrorOut},
    summary="Start a profile search",
    openapi_extra=body_example(TuneIn),
)
def create_tune(request: HttpRequest, payload: TuneIn) -> Status[dict[str, object]]:
    """Searches a runtime's knobs over a corpus for the profile that best meets the objective (cost, tokens or
    trims) within the limits (overflow failures, kept turns, trims per session). Bad choices answer 422
    naming the field.
    """
    corpus = _corpus(payload.corpus_id)
    run = eval_services.tune_start(
        corpus=corpus,
        runtime=payload.runtime,
        objective=payload.objective,
        max_overflow=payload.max_overflow,
        min_kept_turns=payload.min_kept_turns,
        kept_at=payload.kept_at,
        max_trims_per_session=payload.max_trims_per_session,
        user=request.user,
    )
    return Status(201, _tune_out(run))


@tune_router.get("/{tune_id}", response={200: TuneOut, 404: ErrorOut}, summary="Read a profile search")
def get_tune(request: HttpRequest, tune_id: int) -> dict[str, object]:
    """The search's status, its best profile (with the reasons) and the Pareto front."""
    return _tune_out(get_or_404(eval_selectors.tune_get(tune_id=tune_id), "profile search", tune_id))
