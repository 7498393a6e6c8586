"""In a real browser: page through a long transcript, see each page's o200k counts fill in after it is
drawn, follow a trace match to the page that holds it, and watch a knob change re-simulate with progress."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import MAX_HISTORY_KNOB, chat_transcript

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TURNS = 60  # 1 + 4 × 60 = 241 messages: three pages of 100


@pytest.fixture
def long_transcript(operator):
    from dashboard import memo, services

    memo.clear()
    transcript = services.transcript_import(text=chat_transcript(TURNS), name="sixty-turns", user=operator)
    services.demo_profiles_ensure()
    return transcript


def test_paging_through_a_long_transcript_fills_in_each_pages_counts(
    signed_in: Page, daphne_url: str, long_transcript, console_errors: list[str], artifacts
) -> None:
    page = signed_in
    page.goto(f"{daphne_url}/transcripts/{long_transcript.pk}/")
    expect(page.locator("#size-messages")).to_have_text("241")
    expect(page.locator("#size-calls")).to_have_text("120")
    expect(page.locator("#replay-estimate")).to_contain_text("First replay (an estimate)")
    expect(page.locator(".msg")).to_have_count(100)
    # Counted after the page is drawn: every placeholder is replaced by a number.
    expect(page.locator(".o200k.pending")).to_have_count(0)
    expect(page.locator("#o200k-3")).to_have_text(re.compile(r"^[\d,]+ o200k$"))
    assert int(page.locator("#o200k-3").inner_text().split()[0].replace(",", "")) > 100  # a 2 KB result

    page.locator("#pager-bottom").get_by_role("link", name="next →").click()
    expect(page).to_have_url(re.compile(r"\?page=2$"))
    expect(page.locator(".msg").first).to_have_attribute("id", "m-100")
    first_turn = page.locator("article.turn").first
    expect(first_turn.locator(".turn-label")).to_contain_text("Turn 25")
    expect(first_turn.locator(".turn-label")).to_contain_text("continued from the previous page")
    expect(page.locator(".o200k.pending")).to_have_count(0)
    expect(page.locator("#o200k-150")).to_have_text(re.compile(r"^[\d,]+ o200k$"))
    page.screenshot(path=str(artifacts / "transcript-long-page-2.png"), full_page=False)

    page.go_back()  # counted once: page 1 is drawn with its counts, nothing left to ask for
    expect(page.locator(".msg").first).to_have_attribute("id", "m-0")
    expect(page.locator(".o200k.pending")).to_have_count(0)
    expect(page.locator("#o200k-loader")).to_have_count(0)

    page.locator("#pager-top").get_by_label("Go to page").fill("3")
    page.locator("#pager-top").get_by_role("button", name="go").click()
    expect(page.locator(".msg")).to_have_count(41)
    assert console_errors == []


def test_a_trace_match_on_a_later_page_opens_that_page(
    signed_in: Page, daphne_url: str, long_transcript, console_errors: list[str]
) -> None:
    page = signed_in
    page.goto(f"{daphne_url}/transcripts/{long_transcript.pk}/")
    page.locator("#trace-find").fill("Task 55:")
    page.locator("#trace-find").press("Enter")
    match = page.locator("#trace-m-221 a.idx")
    expect(match).to_have_attribute("href", re.compile(r"\?page=3#m-221$"))
    match.click()
    expect(page).to_have_url(re.compile(r"\?page=3#m-221$"))
    expect(page.locator("#m-221")).to_be_in_viewport()
    assert console_errors == []


def test_a_knob_change_shows_progress_until_the_new_replay_arrives(
    signed_in: Page, daphne_url: str, long_transcript, console_errors: list[str]
) -> None:
    from dashboard.models import Profile

    page = signed_in
    zeroclaw = Profile.objects.filter(runtime="zeroclaw").first()
    assert zeroclaw is not None
    page.goto(
        f"{daphne_url}/simulate/?{urlencode({'transcript': long_transcript.pk, 'profile': zeroclaw.pk})}"
    )
    progress = page.locator("#sim-progress")
    expect(progress).to_be_hidden()
    # Hold the replay's answer back so the progress line can be seen while it is pending.
    release: list[object] = []
    page.route("**/simulate/?*knob*", lambda route: release.append(route))
    page.locator(f'input[name="{MAX_HISTORY_KNOB}"]').fill("7")
    expect(progress).to_be_visible()
    expect(progress).to_contain_text("Re-simulating 241 messages")
    expect(page.locator("#sim-progress-elapsed")).to_have_text(re.compile(r"^\d+\.\d s$"))
    assert len(release) == 1
    release[0].continue_()  # type: ignore[attr-defined]
    expect(page).to_have_url(re.compile(r"max_history_messages=7"))
    expect(progress).to_be_hidden()
    assert console_errors == []


def _long_session(operator):
    """Over 5,000 messages (the page is drawn before the replay, which htmx then asks for) and the demo
    profiles."""
    from dashboard import services
    from dashboard.models import Profile

    transcript = services.transcript_import(
        text=chat_transcript(1_300, tool_result_bytes=200), name="long", user=operator
    )
    services.demo_profiles_ensure()
    zeroclaw = Profile.objects.filter(runtime="zeroclaw").first()
    ai_profile = Profile.objects.filter(runtime="ai_profile").first()
    assert zeroclaw is not None and ai_profile is not None
    return transcript, zeroclaw, ai_profile


def _hold_body_request(page: Page, pattern: str) -> list[object]:
    """Hold the htmx requests to ``pattern`` (the page's own load goes through) until released."""
    held: list[object] = []
    page.route(
        pattern,
        lambda route: held.append(route) if route.request.headers.get("hx-request") else route.continue_(),
    )
    return held


def _release_body_request(page: Page, held: list[object]) -> None:
    for _ in range(50):  # the body's request is made on load
        if held:
            break
        page.wait_for_timeout(100)
    assert len(held) == 1
    held[0].continue_()  # type: ignore[attr-defined]


def test_a_long_sessions_first_replay_shows_progress_then_the_timeline(
    signed_in: Page, daphne_url: str, operator, console_errors: list[str]
) -> None:
    transcript, zeroclaw, _ = _long_session(operator)
    page = signed_in
    held = _hold_body_request(page, "**/simulate/?*")
    page.goto(f"{daphne_url}/simulate/?{urlencode({'transcript': transcript.pk, 'profile': zeroclaw.pk})}")
    expect(page.locator("#sim-first-replay")).to_contain_text("Replaying 5,201 messages")
    expect(page.locator("#sim-controls")).to_be_visible()
    _release_body_request(page, held)
    expect(page.locator("#sim-body svg.timeline")).to_be_visible(timeout=30_000)
    expect(page.locator("#sim-first-replay")).to_have_count(0)
    assert console_errors == []


def test_a_long_sessions_first_comparison_shows_progress_then_the_comparison(
    signed_in: Page, daphne_url: str, operator, console_errors: list[str]
) -> None:
    transcript, zeroclaw, ai_profile = _long_session(operator)
    page = signed_in
    held = _hold_body_request(page, "**/compare/?*")
    query = urlencode({"transcript": transcript.pk, "profiles": f"{zeroclaw.pk},{ai_profile.pk}"})
    page.goto(f"{daphne_url}/compare/?{query}")
    status = page.locator("#compare-first-replay")
    expect(status).to_contain_text("Replaying 5,201 messages through 2 profiles")
    expect(page.locator("select[name=transcript]")).to_be_visible()
    _release_body_request(page, held)
    expect(page.locator("#compare-body #sum-h")).to_be_visible(timeout=30_000)
    expect(page.locator("#compare-first-replay")).to_have_count(0)
    expect(page.locator("select[name=transcript]")).to_have_count(1)
    assert console_errors == []
