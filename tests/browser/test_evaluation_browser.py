"""The corpus screens in a browser: a corpus created from uploaded files, an evaluation's page with its
charts and side-by-side table, cancel; no console errors; a screenshot for a human to look at."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from simulator.synthetic import synthetic_openclaw_session

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_corpus_is_created_from_files_and_its_evaluation_page_draws_its_charts(
    signed_in: Page, daphne_url: str, console_errors: list[str], artifacts, tmp_path
) -> None:
    from dashboard import services
    from dashboard.models import Corpus
    from dashboard.services import evaluations as eval_services

    files = []
    for i in range(3):
        path = tmp_path / f"s{i}.jsonl"
        path.write_text(synthetic_openclaw_session(6 + 4 * i, session_id=f"b{i}"))
        files.append(str(path))
    (tmp_path / "bad.json").write_text('{"messages": [}')
    files.append(str(tmp_path / "bad.json"))

    page = signed_in
    page.set_viewport_size({"width": 1440, "height": 1000})
    page.goto(f"{daphne_url}/corpora/")
    page.get_by_label("Name").fill("browser corpus")
    page.get_by_label("Transcript files").set_input_files(files)
    page.get_by_role("button", name="Create").click()
    expect(page.get_by_role("heading", name="Corpus “browser corpus”")).to_be_visible()
    expect(page.locator("#failure-list")).to_contain_text("bad.json")

    corpus = Corpus.objects.get(name="browser corpus")
    assert corpus.transcripts.count() == 3
    evaluation = eval_services.evaluation_start(corpus=corpus, profiles=services.demo_profiles_ensure()[:2])
    for chunk in evaluation.chunks.all():
        eval_services.evaluation_chunk_run(chunk_id=chunk.pk)

    page.goto(f"{daphne_url}/evaluations/{evaluation.pk}/")
    expect(page.locator("#progress-status")).to_have_text("done")
    expect(page.locator("#progress-done")).to_have_text("6")
    expect(page.locator("#comparison tr.differs").first).to_be_visible()
    assert page.locator("svg.chart").count() >= 12
    expect(page.locator("table.worst a").first).to_have_attribute(
        "href", re.compile(r"/simulate/\?transcript=\d+")
    )
    page.screenshot(path=str(artifacts / "evaluation-1440.png"), full_page=True)
    assert console_errors == []
