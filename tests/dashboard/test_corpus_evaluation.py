"""Corpora and evaluations in the dashboard: filling a corpus (files, archives, a folder), evaluations in
chunks run as tasks where a retried chunk counts once, the pages and the API."""

from __future__ import annotations

import io
import json
import re
import tarfile
import zipfile
from datetime import timedelta

import json5
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from dashboard import services
from dashboard.models import Corpus, Evaluation, EvaluationChunk, EvaluationResult, Transcript, TuneRun
from dashboard.services import corpora as corpus_services
from dashboard.services import evaluations as eval_services
from simulator.synthetic import synthetic_openclaw_session

pytestmark = pytest.mark.django_db


def session(turns: int, name: str) -> bytes:
    return synthetic_openclaw_session(turns, session_id=name).encode()


@pytest.fixture
def corpus():
    c = corpus_services.corpus_create(name="c1")
    corpus_services.corpus_add_files(
        corpus=c, files=[(f"s{i}.jsonl", session(4 + 3 * i, f"s{i}")) for i in range(4)]
    )
    return c


@pytest.fixture
def profiles():
    return services.demo_profiles_ensure()[:2]


def run_all_chunks(evaluation: Evaluation) -> None:
    for chunk in evaluation.chunks.order_by("number"):
        eval_services.evaluation_chunk_run(chunk_id=chunk.pk)


# -- filling a corpus ---------------------------------------------------------------------------------------


def test_files_are_added_and_an_unreadable_one_is_listed_with_its_error():
    c = corpus_services.corpus_create(name="mixed")
    added = corpus_services.corpus_add_files(
        corpus=c,
        files=[("good.jsonl", session(3, "g")), ("bad.json", b'{"messages": [}'), ("bin.json", b"\xff\xfe")],
    )
    assert (added.added, added.failed) == (1, 2)
    failures = {f.file: f.error for f in c.failures.all()}
    assert "invalid JSON" in failures["bad.json"]
    assert failures["bin.json"].startswith("not UTF-8 text")
    assert c.transcripts.count() == 1


def test_an_identical_text_is_stored_once_and_shared():
    a, b = corpus_services.corpus_create(name="a"), corpus_services.corpus_create(name="b")
    corpus_services.corpus_add_files(corpus=a, files=[("x.jsonl", session(3, "x"))])
    corpus_services.corpus_add_files(corpus=b, files=[("copy.jsonl", session(3, "x"))])
    assert Transcript.objects.count() == 1
    assert a.transcripts.get() == b.transcripts.get()


def test_a_corpus_name_is_required_and_unique():
    corpus_services.corpus_create(name="taken")
    with pytest.raises(corpus_services.CorpusError, match="already exists"):
        corpus_services.corpus_create(name=" taken ")
    with pytest.raises(corpus_services.CorpusError, match="needs a name"):
        corpus_services.corpus_create(name="  ")


def zip_of(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_zip_members_that_climb_out_or_are_absolute_are_refused_and_the_rest_added():
    c = corpus_services.corpus_create(name="zip")
    data = zip_of(
        {
            "ok/a.jsonl": session(3, "a"),
            "../evil.jsonl": session(3, "evil"),
            "/abs.jsonl": session(3, "abs"),
            "notes.txt": b"ignored",
        }
    )
    added = corpus_services.corpus_add_archive(corpus=c, filename="up.zip", data=data)
    assert (added.added, added.failed) == (1, 2)
    assert sorted(f.file for f in c.failures.all()) == ["up.zip/../evil.jsonl", "up.zip//abs.jsonl"]
    assert all("refused" in f.error for f in c.failures.all())


def test_a_tar_gz_archive_adds_its_files_and_never_follows_links():
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in {"dir/a.jsonl": session(3, "ta"), "b.json": b'{"messages": [}'}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("link.jsonl")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        archive.addfile(link)
    c = corpus_services.corpus_create(name="tar")
    added = corpus_services.corpus_add_archive(corpus=c, filename="up.tar.gz", data=buffer.getvalue())
    assert added.added == 1 and c.transcripts.get().session_id == "ta"
    assert [f.file for f in c.failures.all()] == ["up.tar.gz/b.json"]


def test_an_archive_over_its_limits_or_not_an_archive_is_refused(settings):
    settings.TRIMSCOPE_CORPUS_ARCHIVE_MAX_FILES = 1
    c = corpus_services.corpus_create(name="limits")
    data = zip_of({"a.jsonl": session(3, "a"), "b.jsonl": session(3, "b")})
    with pytest.raises(corpus_services.CorpusError, match="more than 1 files"):
        corpus_services.corpus_add_archive(corpus=c, filename="up.zip", data=data)
    with pytest.raises(corpus_services.CorpusError, match="not a zip archive"):
        corpus_services.corpus_add_archive(corpus=c, filename="up.zip", data=b"plain text")
    with pytest.raises(corpus_services.CorpusError, match="must be .zip"):
        corpus_services.corpus_add_archive(corpus=c, filename="up.rar", data=b"x")


def test_import_corpus_walks_a_folder_and_lists_what_it_cannot_read(tmp_path, capsys):
    (tmp_path / "deep" / "er").mkdir(parents=True)
    (tmp_path / "deep" / "er" / "one.jsonl").write_bytes(session(3, "one"))
    (tmp_path / "two.jsonl").write_bytes(session(4, "two"))
    (tmp_path / "broken.json").write_text('{"messages": [}')
    (tmp_path / "readme.md").write_text("not a transcript")
    call_command("import_corpus", str(tmp_path), "--name", "from-disk", "--no-progress")
    out, err = capsys.readouterr()
    assert "2 added, 1 unreadable" in out
    assert "broken.json" in err and "invalid JSON" in err
    assert Corpus.objects.get(name="from-disk").transcripts.count() == 2


def test_import_corpus_on_a_missing_folder_exits_2(tmp_path):
    with pytest.raises(CommandError) as info:
        call_command("import_corpus", str(tmp_path / "missing"), "--name", "x")
    assert info.value.returncode == 2 and "no such file or folder" in str(info.value)


def test_every_uploaded_session_of_a_fleet_runtime_can_join_a_corpus():
    runtime, _ = services.runtime_create(name="edge-1", kind="zeroclaw")
    services.transcript_import(text=session(3, "fleet-s1").decode(), name="fleet-s1")
    services.transcript_import(text=session(3, "other").decode(), name="other")
    runtime.events.create(
        shape="ws", session_id="fleet-s1", reason="budget", dropped_messages=1, kept_turns=1,
        occurred_at=timezone.now(), payload={},
    )  # fmt: skip
    c = corpus_services.corpus_create(name="fleet")
    assert corpus_services.corpus_add_runtime_sessions(corpus=c, runtime_name="edge-1").added == 1
    assert c.transcripts.get().session_id == "fleet-s1"


# -- evaluations --------------------------------------------------------------------------------------------


def test_an_evaluation_is_split_into_chunks_that_cover_every_transcript(corpus, profiles, settings):
    settings.TRIMSCOPE_EVALUATION_CHUNK_MESSAGES = 60
    evaluation = eval_services.evaluation_start(corpus=corpus, profiles=profiles)
    chunks = list(evaluation.chunks.all())
    assert len(chunks) > 1
    covered = sorted(pk for c in chunks for pk in c.transcript_ids)
    assert covered == sorted(corpus.transcripts.values_list("pk", flat=True))
    assert evaluation.total_pairs == 4 * 2


def test_chunks_are_enqueued_as_tasks_after_the_commit(corpus, profiles, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        evaluation = eval_services.evaluation_start(corpus=corpus, profiles=profiles)
    chunk_tasks = DBTaskResult.objects.filter(task_path="dashboard.tasks.evaluation_chunk_task")
    assert chunk_tasks.count() == evaluation.chunks.count()
    assert DBTaskResult.objects.filter(task_path="dashboard.tasks.evaluation_watch_task").count() == 1


def test_a_chunk_run_twice_counts_each_pair_once(corpus, profiles, settings):
    settings.TRIMSCOPE_EVALUATION_CHUNK_MESSAGES = 60
    evaluation = eval_services.evaluation_start(corpus=corpus, profiles=profiles)
    run_all_chunks(evaluation)
    first = list(
        EvaluationResult.objects.filter(evaluation=evaluation).values_list("transcript", "profile", "calls")
    )
    # A worker that died after storing its results but before marking its chunk done: the chunk runs again.
    retried = evaluation.chunks.first()
    EvaluationChunk.objects.filter(pk=retried.pk).update(status="running")
    Evaluation.objects.filter(pk=evaluation.pk).update(status="running")
    assert eval_services.evaluation_chunk_run(chunk_id=retried.pk) == 0
    again = list(
        EvaluationResult.objects.filter(evaluation=evaluation).values_list("transcript", "profile", "calls")
    )
    assert sorted(again) == sorted(first) and len(again) == evaluation.total_pairs == 8
    evaluation.refresh_from_db()
    assert evaluation.status == "done"
    retried.refresh_from_db()
    assert retried.attempts == 2


def test_a_chunk_whose_lease_ran_out_is_enqueued_again(corpus, profiles):
    evaluation = eval_services.evaluation_start(corpus=corpus, profiles=profiles)
    Evaluation.objects.filter(pk=evaluation.pk).update(status="running")
    evaluation.refresh_from_db()
    chunk = evaluation.chunks.first()
    EvaluationChunk.objects.filter(pk=chunk.pk).update(
        status="running", attempts=1, lease_until=timezone.now() - timedelta(seconds=1)
    )
    before = DBTaskResult.objects.filter(task_path="dashboard.tasks.evaluation_chunk_task").count()
    assert eval_services.evaluation_sweep(evaluation=evaluation) == 1
    chunk.refresh_from_db()
    assert chunk.status == "pending" and chunk.task_id
    assert (
        DBTaskResult.objects.filter(task_path="dashboard.tasks.evaluation_chunk_task").count() == before + 1
    )
    # Its new task is waiting, not dead: nothing more to do.
    assert eval_services.evaluation_sweep(evaluation=evaluation) == 0


def test_a_pending_chunk_whose_task_failed_before_claiming_it_is_enqueued_again(
    corpus, profiles, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        evaluation = eval_services.evaluation_start(corpus=corpus, profiles=profiles)
    chunk = evaluation.chunks.first()
    DBTaskResult.objects.filter(id=chunk.task_id).update(status="FAILED")
    assert eval_services.evaluation_sweep(evaluation=evaluation) == 1
    fresh = EvaluationChunk.objects.get(pk=chunk.pk)
    assert fresh.status == "pending" and fresh.task_id and fresh.task_id != chunk.task_id


def test_a_chunk_whose_workers_keep_dying_is_recorded_as_failed(corpus, profiles):
    evaluation = eval_services.evaluation_start(corpus=corpus, profiles=profiles)
    chunk = evaluation.chunks.first()
    EvaluationChunk.objects.filter(pk=chunk.pk).update(attempts=eval_services.MAX_ATTEMPTS)
    eval_services.evaluation_chunk_run(chunk_id=chunk.pk)
    errors = EvaluationResult.objects.filter(evaluation=evaluation).exclude(error="")
    assert errors.count() == len(chunk.transcript_ids) * 2
    assert all("stopped 5 times" in e.error for e in errors)


def test_a_cancelled_evaluation_skips_the_chunks_not_started(corpus, profiles, settings):
    settings.TRIMSCOPE_EVALUATION_CHUNK_MESSAGES = 60
    evaluation = eval_services.evaluation_start(corpus=corpus, profiles=profiles)
    first, *rest = evaluation.chunks.order_by("number")
    eval_services.evaluation_chunk_run(chunk_id=first.pk)
    eval_services.evaluation_cancel(evaluation=evaluation)
    for chunk in rest:
        assert eval_services.evaluation_chunk_run(chunk_id=chunk.pk) == 0
    evaluation.refresh_from_db()
    assert evaluation.status == "cancelled"
    assert EvaluationResult.objects.filter(evaluation=evaluation).count() == len(first.transcript_ids) * 2


def test_a_rerun_evaluates_the_same_documents_again(corpus, profiles):
    evaluation = eval_services.evaluation_start(corpus=corpus, profiles=profiles)
    profiles[0].settings = {"trimscope": {"runtime": "zeroclaw"}, "runtime_profiles": {"x": {}}}
    profiles[0].save()
    fresh = eval_services.evaluation_rerun(evaluation=evaluation)
    assert fresh.pk != evaluation.pk
    assert [p.document for p in fresh.profiles.all()] == [p.document for p in evaluation.profiles.all()]


@pytest.mark.django_db(transaction=True)
def test_the_db_worker_runs_an_evaluation_to_the_end():
    c = corpus_services.corpus_create(name="worker")
    corpus_services.corpus_add_files(
        corpus=c, files=[(f"w{i}.jsonl", session(3 + i, f"w{i}")) for i in range(3)]
    )
    evaluation = eval_services.evaluation_start(corpus=c, profiles=services.demo_profiles_ensure())
    call_command("db_worker", "--batch", "--no-startup-delay", "--interval", "0", "--no-reload")
    evaluation.refresh_from_db()
    assert evaluation.status == "done"
    assert EvaluationResult.objects.filter(evaluation=evaluation).count() == evaluation.total_pairs == 9


# -- pages and API -----------------------------------------------------------------------------------------


@pytest.fixture
def evaluated(corpus, profiles):
    evaluation = eval_services.evaluation_start(corpus=corpus, profiles=profiles)
    run_all_chunks(evaluation)
    return evaluation


def test_the_evaluation_page_draws_distributions_and_compares_profiles(operator_client, evaluated):
    html = operator_client.get(reverse("evaluation-detail", args=[evaluated.pk])).content.decode()
    assert html.count('<svg class="chart"') >= 4 * 3
    assert 'id="comparison"' in html and 'class="differs"' in html
    assert "/simulate/?transcript=" in html and "profile=" in html
    assert "Worst sessions" in html


def test_the_corpus_pages_list_and_fill_a_corpus(operator_client):
    response = operator_client.post(
        reverse("corpus-create"),
        {
            "name": "uploaded",
            "files": [io.BytesIO(session(3, "u1")), io.BytesIO(b'{"messages": [}')],
        },
    )
    assert response.status_code == 302
    corpus = Corpus.objects.get(name="uploaded")
    page = operator_client.get(reverse("corpus-detail", args=[corpus.pk])).content.decode()
    assert 'id="failure-list"' in page and "invalid JSON" in page
    assert "uploaded" in operator_client.get(reverse("corpus-list")).content.decode()


def test_a_profile_search_recommends_exports_and_saves_a_profile(operator_client, corpus):
    run = eval_services.tune_start(corpus=corpus, runtime="zeroclaw", min_kept_turns=0.2)
    eval_services.tune_execute(tune_id=run.pk)
    run.refresh_from_db()
    assert run.status == "done" and run.result["best"] is not None
    page = operator_client.get(reverse("tune-detail", args=[run.pk])).content.decode()
    assert 'class="chart pareto"' in page and 'id="reasons"' in page
    toml = operator_client.get(reverse("tune-export", args=[run.pk, "toml"])).content.decode()
    assert "[runtime_profiles.default]" in toml and "max_context_tokens" in toml
    saved = operator_client.post(reverse("tune-save", args=[run.pk]), {"name": "shipped"})
    assert saved.status_code == 302
    from dashboard.models import Profile

    profile = Profile.objects.get(name="shipped")
    assert profile.runtime == "zeroclaw"
    best = run.result["best"]["profile"]["runtime_profiles"]["default"]
    assert profile.settings["runtime_profiles"]["default"]["max_context_tokens"] == best["max_context_tokens"]


def test_an_openclaw_recommendation_exports_as_json5_in_its_own_keys(operator_client, corpus):
    run = eval_services.tune_start(corpus=corpus, runtime="openclaw")
    eval_services.tune_execute(tune_id=run.pk)
    text = operator_client.get(reverse("tune-export", args=[run.pk, "json5"])).content.decode()
    assert "contextPruning: {" in text and '"contextPruning"' not in text
    document = json5.loads(text)
    assert document["agents"]["defaults"]["contextPruning"]["softTrimRatio"] in (
        0.2,
        0.3,
        0.4,
        0.5,
        0.25,
        0.35,
    )


def test_api_corpora_and_evaluations_share_the_error_shape(operator_client, corpus, profiles):
    created = operator_client.post("/api/corpora", {"name": "api"}, content_type="application/json")
    assert created.status_code == 201 and created.json()["transcripts"] == 0
    taken = operator_client.post("/api/corpora", {"name": "api"}, content_type="application/json")
    assert taken.status_code == 422 and set(taken.json()) == {"message", "extra"}
    missing = operator_client.get("/api/evaluations/999")
    assert missing.status_code == 404 and missing.json()["message"] == "no evaluation with id 999"
    bad = operator_client.post(
        "/api/evaluations", {"corpus_id": corpus.pk, "profile_ids": [999]}, content_type="application/json"
    )
    assert bad.status_code == 422 and "999" in bad.json()["message"]
    started = operator_client.post(
        "/api/evaluations",
        {"corpus_id": corpus.pk, "profile_ids": [p.pk for p in profiles]},
        content_type="application/json",
    )
    assert started.status_code == 201 and started.json()["total"] == 8
    run_all_chunks(Evaluation.objects.get(pk=started.json()["id"]))
    body = operator_client.get(f"/api/evaluations/{started.json()['id']}").json()
    assert body["status"] == "done" and body["done"] == 8
    assert [row["profile"] for row in body["profiles"]] == [p.name for p in profiles]
    assert all(row["sessions"] == 4 for row in body["profiles"])


def test_api_tune_validates_its_limits(operator_client, corpus):
    bad = operator_client.post(
        "/api/tune", {"corpus_id": corpus.pk, "runtime": "nope"}, content_type="application/json"
    )
    assert bad.status_code == 422 and "runtime must be one of" in bad.json()["message"]
    ok = operator_client.post(
        "/api/tune",
        {"corpus_id": corpus.pk, "runtime": "openclaw", "min_kept_turns": 0.5},
        content_type="application/json",
    )
    assert ok.status_code == 201 and ok.json()["status"] == "queued"
    assert TuneRun.objects.get(pk=ok.json()["id"]).min_kept_turns == 0.5
    assert json.loads(operator_client.get(f"/api/tune/{ok.json()['id']}").content)["best"] is None


# -- re-reads after forgetting -------------------------------------------------------------------------------


@pytest.fixture
def reread_evaluation():
    from tests.simulator.test_trace import _chat

    corpus = corpus_services.corpus_create(name="rereads")
    corpus_services.corpus_add_files(
        corpus=corpus,
        files=[
            ("config.json", _chat(10, reread_path="config.toml").encode()),
            ("setup.json", _chat(14, reread_path="setup.py").encode()),
            ("plain.json", _chat(6).encode()),
        ],
    )
    tight = services.profile_create(
        name="tight",
        document={
            "trimscope": {"runtime": "zeroclaw", "version": "documented"},
            "runtime_profiles": {"default": {"max_context_tokens": 4000}},
        },
    )
    loose = services.profile_create(
        name="loose",
        document={
            "trimscope": {"runtime": "zeroclaw", "version": "documented"},
            "runtime_profiles": {"default": {"max_context_tokens": 0}},
        },
    )
    evaluation = eval_services.evaluation_start(corpus=corpus, profiles=[tight, loose])
    run_all_chunks(evaluation)
    return evaluation


def test_the_worker_stores_each_pairs_rereads_as_the_trace_counts_them(reread_evaluation):
    from simulator import parse_transcript, profile_from_document, simulate
    from simulator.trace import rereads

    rows = EvaluationResult.objects.filter(evaluation=reread_evaluation).select_related(
        "transcript", "profile"
    )
    counted = {}
    for row in rows:
        parsed = parse_transcript(row.transcript.source.text)
        profile = profile_from_document(row.profile.document, name=row.profile.name)
        assert row.rereads == len(rereads(parsed, simulate(parsed, profile)))
        counted[(row.transcript.name, row.profile.name)] = row.rereads
    assert counted[("config.json", "tight")] > 0 and counted[("setup.json", "tight")] > 0
    assert counted[("plain.json", "tight")] == 0
    assert {v for (_, p), v in counted.items() if p == "loose"} == {0}


def test_the_evaluation_page_shows_rereads_per_profile_total_mean_and_worst(
    operator_client, reread_evaluation
):
    rows = EvaluationResult.objects.filter(evaluation=reread_evaluation, profile__name="tight")
    total = sum(r.rereads for r in rows)
    html = operator_client.get(reverse("evaluation-detail", args=[reread_evaluation.pk])).content.decode()
    section = html[html.index('id="rereads"') : html.index('id="worst-h"')]
    tight = re.search(r'id="rereads-0">(.*?)</p>', section, re.S)
    loose = re.search(r'id="rereads-1">(.*?)</p>', section, re.S)
    assert tight is not None and loose is not None
    assert f'<strong class="reread-total">{total}</strong>' in tight.group(1)
    assert f'<span class="reread-mean">{total / 3:.2f}</span> per session' in tight.group(1)
    assert '<strong class="reread-total">0</strong>' in loose.group(1)
    # The sessions with the most re-reads, most first (ties by upload), open the simulation; none: not listed.
    most = re.findall(
        r'transcript=\d+&amp;profile=\d+">([^<]+)</a></td>\s*<td class="num">(\d+)</td>', section
    )
    ranked = sorted(
        (r for r in rows.select_related("transcript") if r.rereads),
        key=lambda r: (-r.rereads, r.transcript_id),
    )
    expected = [(r.transcript.name, r.rereads) for r in ranked]
    assert len(expected) == 2
    assert [(n, int(c)) for n, c in most] == expected
    comparison = re.search(r"<td>re-reads after forgetting</td>(.*?)</tr>", html, re.S)
    assert comparison is not None and "<strong>0</strong>" in comparison.group(1)  # loose is the best
    mean = re.search(r"<td>re-reads per session \(mean\)</td>(.*?)</tr>", html, re.S)
    assert mean is not None and f"{total / 3:.2f}" in mean.group(1)
    assert "<strong>0.00</strong>" in mean.group(1)


def test_results_stored_before_rereads_were_counted_are_not_shown_as_zero(operator_client, reread_evaluation):
    EvaluationResult.objects.filter(evaluation=reread_evaluation).update(rereads=None)
    html = operator_client.get(reverse("evaluation-detail", args=[reread_evaluation.pk])).content.decode()
    assert "3 sessions evaluated before re-reads were counted: re-run to count them" in html


def test_the_evaluation_api_gives_each_profiles_rereads(operator_client, reread_evaluation):
    body = operator_client.get(f"/api/evaluations/{reread_evaluation.pk}").json()
    rows = {row["profile"]: row for row in body["profiles"]}
    stored = sum(
        r.rereads
        for r in EvaluationResult.objects.filter(evaluation=reread_evaluation, profile__name="tight")
    )
    assert (rows["tight"]["rereads"], rows["tight"]["rereads_uncounted"]) == (stored, 0)
    assert rows["tight"]["rereads_per_session"] == pytest.approx(stored / 3)
    assert (rows["loose"]["rereads"], rows["loose"]["rereads_per_session"]) == (0, 0)
