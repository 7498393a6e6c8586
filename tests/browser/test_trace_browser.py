"""In a real browser: trace a message through the replay (search box, URL, presence strip, rule), open a
soft-trimmed tool result's before/after view, and trace from the transcript page."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import MAX_HISTORY_KNOB, SimData, chat_transcript

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_search_shows_where_a_task_left_the_context_and_why(
    signed_in: Page, daphne_url: str, sim_data: SimData, console_errors: list[str], artifacts
) -> None:
    page = signed_in
    query = urlencode(
        {"transcript": sim_data.transcript.pk, "profile": sim_data.zeroclaw.pk, MAX_HISTORY_KNOB: 3}
    )
    page.goto(f"{daphne_url}/simulate/?{query}")
    page.evaluate("window.__marker = 1")

    page.locator("#trace-find").fill("Task 0:")
    page.locator("#trace-find").press("Enter")

    expect(page).to_have_url(re.compile(r"find=Task(\+|%20)0%3A"))
    match = page.locator("#trace-m-1")
    expect(match).to_contain_text("in full at calls 1–")
    expect(match.locator(".trace-rule")).to_contain_text("turn-cap at call")
    strip = match.locator("svg.presence-strip")
    expect(strip).to_be_visible()
    expect(strip.locator("rect.present-full")).to_have_count(1)
    expect(strip.locator("rect.present-gone")).to_have_count(1)
    # The strip is drawn at the timeline's width, under it.
    timeline_box = page.locator("svg.timeline").bounding_box()
    strip_box = strip.bounding_box()
    assert timeline_box and strip_box and abs(timeline_box["width"] - strip_box["width"]) < 2
    assert page.evaluate("window.__marker") == 1  # swapped in place, no reload
    page.screenshot(path=str(artifacts / "trace-simulation.png"), full_page=True)

    page.locator("#trace-find").fill("a(b")
    page.locator('input[name="regex"]').check()
    page.locator("#trace-find").press("Enter")
    expect(page.locator("#trace-error")).to_contain_text("invalid regular expression")
    expect(page.locator("svg.timeline")).to_be_visible()
    assert console_errors == []


def test_a_soft_trimmed_result_opens_side_by_side_with_the_cut_marked(
    signed_in: Page, daphne_url: str, operator, sim_data: SimData, console_errors: list[str], artifacts
) -> None:
    from dashboard import services

    big = services.transcript_import(
        text=chat_transcript(12, tool_result_bytes=9000), name="big", user=operator
    )
    page = signed_in
    query = urlencode(
        {
            "transcript": big.pk,
            "profile": sim_data.openclaw.pk,
            "knob:agents.defaults.contextPruning.mode": "cache-ttl",
            "knob:agents.defaults.contextPruning.softTrimRatio": 0.01,
            "knob:model.contextWindow": 40000,
            "gap": 3600,  # calls an hour apart: each attempt after the first prunes
            "find": "01: def handler_1(",
        }
    )
    page.goto(f"{daphne_url}/simulate/?{query}")
    match = page.locator("#trace-m-7")
    expect(match.locator(".trace-rule")).to_contain_text("soft-trimmed at call")
    expect(match).to_contain_text("match kept in the head")
    match.get_by_role("link", name="before / after").click()
    view = page.locator("#trace-m-7 .before-after")
    expect(view).to_be_visible()
    expect(view.locator("del.cut").first).to_be_visible()
    expect(view.locator("ins.added").last).to_contain_text("Tool result trimmed")
    expect(page).to_have_url(re.compile(r"open=7"))
    before, after = view.locator("figure").nth(0).bounding_box(), view.locator("figure").nth(1).bounding_box()
    assert before and after and after["x"] > before["x"] + before["width"] - 1  # side by side
    page.screenshot(path=str(artifacts / "trace-before-after.png"), full_page=True)
    assert console_errors == []


def test_the_transcript_page_traces_a_tool_call_id(
    signed_in: Page, daphne_url: str, sim_data: SimData, console_errors: list[str]
) -> None:
    page = signed_in
    page.goto(f"{daphne_url}/transcripts/{sim_data.transcript.pk}/")
    page.locator("#trace select[name=profile]").select_option(str(sim_data.zeroclaw.pk))
    page.locator("#trace-find").fill("call_3")
    page.get_by_role("button", name="Trace").click()
    expect(page).to_have_url(re.compile(r"find=call_3"))
    expect(page.locator("#trace .trace-match")).to_have_count(2)
    expect(page.locator("#trace-m-14")).to_contain_text("assistant")
    assert console_errors == []
