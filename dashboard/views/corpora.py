"""Corpus pages: the list with a create form, a corpus with its transcripts, failures, evaluations and
profile searches; the evaluation page (live progress, distributions, profiles side by side, worst
sessions); the tune page (Pareto front, recommendation, export or save)."""

from __future__ import annotations

import json5
from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from dashboard import selectors
from dashboard.errors import get_or_404
from dashboard.models import Corpus, Evaluation, TuneRun
from dashboard.presenters import charts
from dashboard.presenters import evaluations as evaluations_presenter
from dashboard.selectors import evaluations as eval_selectors
from dashboard.services import corpora as corpus_services
from dashboard.services import evaluations as eval_services
from dashboard.views.common import HtmxHttpRequest
from simulator import (
    OBJECTIVES,
    RUNTIMES,
    SimulatorError,
    cdf_of,
    profile_from_document,
    profile_to_document,
    profile_to_json,
    profile_to_toml,
)

ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")


def _corpus(corpus_id: int) -> Corpus:
    return get_or_404(eval_selectors.corpus_get(corpus_id=corpus_id), "corpus", corpus_id)


def _evaluation(evaluation_id: int) -> Evaluation:
    return get_or_404(eval_selectors.evaluation_get(evaluation_id=evaluation_id), "evaluation", evaluation_id)


def _tune(tune_id: int) -> TuneRun:
    return get_or_404(eval_selectors.tune_get(tune_id=tune_id), "profile search", tune_id)


def _fill(request: HtmxHttpRequest, corpus: Corpus) -> tuple[int, int]:
    """Add the request's files, archive and fleet runtime to ``corpus``; (added, failed)."""
    added = failed = 0
    files = [(f.name or "upload", bytes(f.read())) for f in request.FILES.getlist("files")]
    if files:
        result = corpus_services.corpus_add_files(corpus=corpus, files=files, user=request.user)
        added, failed = added + result.added, failed + result.failed
    archive = request.FILES.get("archive")
    if archive is not None:
        limit: int = settings.TRIMSCOPE_CORPUS_ARCHIVE_MAX_BYTES
        if archive.size is not None and archive.size > limit:
            raise corpus_services.CorpusError(f"{archive.name}: the archive is over {limit:,} bytes")
        result = corpus_services.corpus_add_archive(
            corpus=corpus, filename=archive.name or "archive", data=archive.read(), user=request.user
        )
        added, failed = added + result.added, failed + result.failed
    runtime = request.POST.get("runtime", "").strip()
    if runtime:
        result = corpus_services.corpus_add_runtime_sessions(corpus=corpus, runtime_name=runtime)
        added += result.added
    return added, failed


def _list_context(**extra: object) -> dict[str, object]:
    return {
        "nav": "corpora",
        "corpora": eval_selectors.corpus_list(),
        "fleet_runtimes": eval_selectors.fleet_runtime_names(),
        **extra,
    }


@require_GET
def corpus_list(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "dashboard/corpus-list.html", _list_context())


@require_POST
def corpus_create(request: HtmxHttpRequest) -> HttpResponse:
    try:
        corpus = corpus_services.corpus_create(
            name=request.POST.get("name", ""),
            description=request.POST.get("description", ""),
            user=request.user,
        )
        added, failed = _fill(request, corpus)
    except SimulatorError as exc:
        return render(request, "dashboard/corpus-list.html", _list_context(error=exc.message), status=422)
    messages.success(request, f"Corpus “{corpus.name}”: {added} transcripts added, {failed} unreadable.")
    return HttpResponseRedirect(reverse("corpus-detail", args=[corpus.pk]))


@require_POST
def corpus_add(request: HtmxHttpRequest, corpus_id: int) -> HttpResponse:
    corpus = _corpus(corpus_id)
    try:
        added, failed = _fill(request, corpus)
    except SimulatorError as exc:
        messages.error(request, exc.message)
        return HttpResponseRedirect(reverse("corpus-detail", args=[corpus.pk]))
    messages.success(request, f"{added} transcripts added, {failed} unreadable.")
    return HttpResponseRedirect(reverse("corpus-detail", args=[corpus.pk]))


@require_GET
def corpus_detail(request: HtmxHttpRequest, corpus_id: int) -> HttpResponse:
    corpus = _corpus(corpus_id)
    return render(
        request,
        "dashboard/corpus-detail.html",
        {
            "nav": "corpora",
            "corpus": corpus,
            "transcripts": corpus.transcripts.order_by("name")[:500],
            "transcript_count": corpus.transcripts.count(),
            "failures": eval_selectors.corpus_failures(corpus=corpus),
            "evaluations": eval_selectors.evaluation_list(corpus=corpus),
            "tunes": eval_selectors.tune_list(corpus=corpus),
            "profiles": selectors.profile_list(),
            "fleet_runtimes": eval_selectors.fleet_runtime_names(),
            "runtimes": RUNTIMES,
            "objectives": OBJECTIVES,
        },
    )


@require_POST
def evaluation_create(request: HtmxHttpRequest, corpus_id: int) -> HttpResponse:
    corpus = _corpus(corpus_id)
    ids = [int(v) for v in request.POST.getlist("profiles") if v.isdigit()]
    profiles = list(selectors.profile_list().filter(pk__in=ids))
    try:
        evaluation = eval_services.evaluation_start(corpus=corpus, profiles=profiles, user=request.user)
    except SimulatorError as exc:
        messages.error(request, exc.message)
        return HttpResponseRedirect(reverse("corpus-detail", args=[corpus.pk]))
    return HttpResponseRedirect(reverse("evaluation-detail", args=[evaluation.pk]))


_CHARTED = (
    ("mean_kept_turn_fraction", "mean share of turns kept per session"),
    ("calls_trimmed", "trims per session"),
    ("tokens_sent", "tokens sent per session"),
    ("cost_usd", "cost per session (USD)"),
)


@require_GET
def evaluation_detail(request: HtmxHttpRequest, evaluation_id: int) -> HttpResponse:
    evaluation = _evaluation(evaluation_id)
    reports = eval_selectors.evaluation_report(evaluation=evaluation)
    histograms = [
        (r, [charts.histogram_svg(r.summary.histogram(name), title=title) for name, title in _CHARTED])
        for r in reports
    ]
    cdfs = [
        charts.cdf_svg(
            [(r.profile.name, cdf_of([float(getattr(m, name)) for m in r.sessions])) for r in reports],
            title=title,
        )
        for name, title in _CHARTED
    ]
    return render(
        request,
        "dashboard/evaluation.html",
        {
            "nav": "corpora",
            "evaluation": evaluation,
            "progress": eval_selectors.evaluation_progress(evaluation=evaluation),
            "reports": reports,
            "histograms": histograms,
            "cdfs": cdfs,
            "comparison": evaluations_presenter.evaluation_comparison(summaries=[r.summary for r in reports]),
        },
    )


@require_POST
def evaluation_cancel(request: HtmxHttpRequest, evaluation_id: int) -> HttpResponse:
    evaluation = eval_services.evaluation_cancel(evaluation=_evaluation(evaluation_id))
    messages.success(request, f"Evaluation {evaluation.pk} cancelled; results already stored are kept.")
    return HttpResponseRedirect(reverse("evaluation-detail", args=[evaluation.pk]))


@require_POST
def evaluation_rerun(request: HtmxHttpRequest, evaluation_id: int) -> HttpResponse:
    fresh = eval_services.evaluation_rerun(evaluation=_evaluation(evaluation_id), user=request.user)
    return HttpResponseRedirect(reverse("evaluation-detail", args=[fresh.pk]))


def _int_or_none(raw: str) -> int | None:
    raw = raw.strip()
    return int(raw) if raw.isdigit() else None


@require_POST
def tune_create(request: HtmxHttpRequest, corpus_id: int) -> HttpResponse:
    corpus = _corpus(corpus_id)
    post = request.POST
    try:
        kept = float(post.get("min_kept_turns", "0") or 0) / (100 if post.get("kept_percent") else 1)
        run = eval_services.tune_start(
            corpus=corpus,
            runtime=post.get("runtime", ""),
            objective=post.get("objective", "cost"),
            max_overflow=_int_or_none(post.get("max_overflow", "0")) or 0,
            min_kept_turns=kept,
            kept_at=post.get("kept_at", "every"),
            max_trims_per_session=_int_or_none(post.get("max_trims", "")),
            user=request.user,
        )
    except ValueError:
        messages.error(request, "min_kept_turns must be a number")
        return HttpResponseRedirect(reverse("corpus-detail", args=[corpus.pk]))
    except SimulatorError as exc:
        messages.error(request, exc.message)
        return HttpResponseRedirect(reverse("corpus-detail", args=[corpus.pk]))
    return HttpResponseRedirect(reverse("tune-detail", args=[run.pk]))


@require_GET
def tune_detail(request: HtmxHttpRequest, tune_id: int) -> HttpResponse:
    run = _tune(tune_id)
    result = run.result if isinstance(run.result, dict) else None
    chart = None
    best_name = None
    if result is not None:
        best = result.get("best")
        best_name = best["metrics"]["profile"] if isinstance(best, dict) else None
        front_names = {f["metrics"]["profile"] for f in result.get("front", [])}
        chart = charts.pareto_svg(
            [
                (
                    c["name"],
                    float(c["metrics"]["cost_usd"] or 0.0),
                    float(c["metrics"]["mean_kept_turn_fraction"]),
                    c["name"] in front_names,
                    c["name"] == best_name,
                )
                for c in result.get("candidates", [])
            ]
        )
    document = eval_services.tune_best_document(run=run)
    return render(
        request,
        "dashboard/tune.html",
        {
            "nav": "corpora",
            "run": run,
            "result": result,
            "chart": chart,
            "best_name": best_name,
            "document_toml": None
            if document is None
            else profile_to_toml(profile_from_document(document, name=best_name or "recommended")),
        },
    )


@require_GET
def tune_export(request: HtmxHttpRequest, tune_id: int, fmt: str) -> HttpResponse:
    run = _tune(tune_id)
    document = eval_services.tune_best_document(run=run)
    if document is None:
        raise Http404("this search has no recommendation")
    profile = profile_from_document(document, name=f"tuned-{run.runtime}-{run.pk}")
    if fmt == "toml":
        body, kind = profile_to_toml(profile), "application/toml; charset=utf-8"
    elif fmt == "json":
        body, kind = profile_to_json(profile), "application/json; charset=utf-8"
    elif fmt == "json5":
        # OpenClaw's own config file (openclaw.json) is JSON5: keys unquoted, as operators write it.
        text = json5.dumps(profile_to_document(profile), indent=2, quote_keys=False, trailing_commas=False)
        body, kind = text + "\n", "application/json5; charset=utf-8"
    else:
        raise Http404("export as toml, json or json5")
    response = HttpResponse(body, content_type=kind)
    response["Content-Disposition"] = f'attachment; filename="tuned-{run.runtime}-{run.pk}.{fmt}"'
    return response


@require_POST
def tune_save(request: HtmxHttpRequest, tune_id: int) -> HttpResponse:
    from dashboard import services

    run = _tune(tune_id)
    document = eval_services.tune_best_document(run=run)
    if document is None:
        raise Http404("this search has no recommendation")
    name = request.POST.get("name", "").strip() or f"tuned {run.runtime} {run.pk}"
    try:
        profile = services.profile_create(name=name, document=document)
    except SimulatorError as exc:
        messages.error(request, exc.message)
        return HttpResponseRedirect(reverse("tune-detail", args=[run.pk]))
    messages.success(request, f"Saved as profile “{profile.name}”.")
    return HttpResponseRedirect(reverse("profile-edit", args=[profile.pk]))
