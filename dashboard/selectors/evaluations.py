"""Reads for corpora, evaluations and profile searches: lists, progress, and per-profile reports.

The profiles side by side (labels, formatted values, best and worst marks) is drawn by
``dashboard.presenters.evaluations``."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, QuerySet
from django.utils import timezone

from dashboard.models import (
    Corpus,
    CorpusFailure,
    Evaluation,
    EvaluationChunk,
    EvaluationProfile,
    EvaluationResult,
    Runtime,
    TuneRun,
)
from simulator import ProfileSummary, SessionMetrics, summarise, worst_sessions


def corpus_list() -> QuerySet[Corpus]:
    return Corpus.objects.annotate(transcript_count=Count("transcripts", distinct=True)).order_by(
        "-created_at"
    )


def corpus_get(*, corpus_id: int) -> Corpus | None:
    return Corpus.objects.filter(pk=corpus_id).first()


def corpus_failures(*, corpus: Corpus) -> QuerySet[CorpusFailure]:
    return corpus.failures.all()


def fleet_runtime_names() -> list[str]:
    return list(Runtime.objects.order_by("name").values_list("name", flat=True))


def evaluation_get(*, evaluation_id: int) -> Evaluation | None:
    return Evaluation.objects.select_related("corpus").filter(pk=evaluation_id).first()


def evaluation_list(*, corpus: Corpus | None = None) -> QuerySet[Evaluation]:
    rows = Evaluation.objects.select_related("corpus")
    return rows.filter(corpus=corpus) if corpus is not None else rows


def tune_get(*, tune_id: int) -> TuneRun | None:
    return TuneRun.objects.select_related("corpus").filter(pk=tune_id).first()


def tune_list(*, corpus: Corpus) -> QuerySet[TuneRun]:
    return corpus.tune_runs.all()


@dataclass(frozen=True, slots=True)
class Progress:
    evaluation_id: int
    status: str
    done: int
    total: int
    rate: float
    """Pairs per second since the evaluation started."""
    eta_seconds: float | None
    chunks_done: int
    chunks: int

    def as_message(self) -> dict[str, object]:
        return {
            "evaluation": self.evaluation_id,
            "status": self.status,
            "done": self.done,
            "total": self.total,
            "rate": round(self.rate, 2),
            "eta_seconds": None if self.eta_seconds is None else round(self.eta_seconds),
            "chunks_done": self.chunks_done,
            "chunks": self.chunks,
        }


def evaluation_progress(*, evaluation: Evaluation) -> Progress:
    done = EvaluationResult.objects.filter(evaluation=evaluation).count()
    chunks = EvaluationChunk.objects.filter(evaluation=evaluation)
    chunks_done = chunks.filter(status=EvaluationChunk.Status.DONE).count()
    rate = 0.0
    eta: float | None = None
    if evaluation.started_at is not None and done:
        end = evaluation.finished_at or timezone.now()
        elapsed = max((end - evaluation.started_at).total_seconds(), 1e-3)
        rate = done / elapsed
        if evaluation.status in (Evaluation.Status.QUEUED, Evaluation.Status.RUNNING):
            eta = (evaluation.total_pairs - done) / rate if rate else None
    return Progress(
        evaluation.pk, evaluation.status, done, evaluation.total_pairs, rate, eta, chunks_done, chunks.count()
    )


def _metrics(row: EvaluationResult, profile: EvaluationProfile) -> SessionMetrics:
    return SessionMetrics(
        source=str(row.transcript_id),
        profile=profile.name,
        runtime=profile.runtime,
        messages=0,
        calls=row.calls,
        calls_trimmed=row.calls_trimmed,
        overflow_failures=row.overflow_failures,
        messages_dropped=row.messages_dropped,
        turns_dropped=row.turns_dropped,
        turns=row.turns,
        min_kept_turn_fraction=row.min_kept_turn_fraction,
        mean_kept_turn_fraction=row.mean_kept_turn_fraction,
        kept_histogram=tuple(int(v) for v in row.kept_histogram),
        tokens_sent=row.tokens_sent,
        tokens_full=row.tokens_full,
        input_tokens=row.input_tokens,
        cache_read_tokens=row.cache_read_tokens,
        cache_write_tokens=row.cache_write_tokens,
        output_tokens=row.output_tokens,
        cost_usd=row.cost_usd,
        first_trim_call=row.first_trim_call,
        rereads=row.rereads or 0,
    )


@dataclass(frozen=True, slots=True)
class WorstSession:
    transcript_id: int
    transcript_name: str
    saved_profile_id: int | None
    metrics: SessionMetrics


@dataclass(frozen=True, slots=True)
class Rereads:
    """A profile's re-reads after forgetting over a corpus: total, mean per session, most re-read."""

    total: int
    mean: float
    most: tuple[WorstSession, ...]
    """Sessions with at least one re-read, most first (at most ``MOST_REREADS``)."""
    uncounted: int
    """Sessions stored before re-reads were counted (their count is unknown, not 0)."""


MOST_REREADS = 5


@dataclass(frozen=True, slots=True)
class ProfileReport:
    profile: EvaluationProfile
    summary: ProfileSummary
    worst: tuple[WorstSession, ...]
    errors: int
    sessions: tuple[SessionMetrics, ...]
    rereads: Rereads


def _rereads(rows: list[EvaluationResult], names: dict[int, str], profile: EvaluationProfile) -> Rereads:
    counted = [r for r in rows if r.rereads is not None]
    total = sum(r.rereads or 0 for r in counted)
    ranked = sorted((r for r in counted if r.rereads), key=lambda r: (-(r.rereads or 0), r.transcript_id))
    most = tuple(
        WorstSession(r.transcript_id, names[r.transcript_id], profile.profile_id, _metrics(r, profile))
        for r in ranked[:MOST_REREADS]
    )
    mean = total / len(counted) if counted else 0.0
    return Rereads(total, mean, most, len(rows) - len(counted))


def evaluation_report(*, evaluation: Evaluation) -> list[ProfileReport]:
    """Per profile: the summary of its stored pairs and its worst sessions."""
    reports: list[ProfileReport] = []
    for profile in evaluation.profiles.all():
        rows = list(
            EvaluationResult.objects.filter(evaluation=evaluation, profile=profile).select_related(
                "transcript"
            )
        )
        ok = [r for r in rows if not r.error]
        names = {r.transcript_id: r.transcript.name for r in rows}
        metrics = [_metrics(r, profile) for r in ok]
        summary = summarise(profile.name, profile.runtime, metrics)
        worst = tuple(
            WorstSession(int(m.source), names[int(m.source)], profile.profile_id, m)
            for m in worst_sessions(metrics, 10)
        )
        errors = len(rows) - len(ok)
        rereads = _rereads(ok, names, profile)
        reports.append(ProfileReport(profile, summary, worst, errors, tuple(metrics), rereads))
    return reports


__all__ = [
    "MOST_REREADS",
    "ProfileReport",
    "Progress",
    "Rereads",
    "WorstSession",
    "corpus_failures",
    "corpus_get",
    "corpus_list",
    "evaluation_get",
    "evaluation_list",
    "evaluation_progress",
    "evaluation_report",
    "fleet_runtime_names",
    "tune_get",
    "tune_list",
]
