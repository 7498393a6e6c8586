"""In a real browser: replay a transcript through a ZeroClaw profile, edit a knob in place (no reload, URL
updated), see an invalid knob refused, move between calls by mouse and keyboard, and load the o200k count."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import MAX_HISTORY_KNOB, SimData
from tests.support import SAMPLES_DIR

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _calls_trimmed(page: Page):
    return page.locator("#sim-body .stats > div", has_text="Calls trimmed").locator("dd")


def _choose(page: Page, select: str, option_text: str) -> None:
    """Pick the option whose label contains ``option_text`` (labels carry counts, so match a part)."""
    value = page.locator(f'select[name="{select}"] option', has_text=option_text).first.get_attribute("value")
    page.locator(f'select[name="{select}"]').select_option(value)


def test_knob_edits_rerun_in_place_and_calls_are_navigable(
    signed_in: Page, daphne_url: str, sim_data: SimData, console_errors: list[str], artifacts
) -> None:
    page = signed_in
    transcript, zeroclaw = sim_data.transcript, sim_data.zeroclaw
    page.goto(f"{daphne_url}/simulate/?transcript={transcript.pk}&profile={zeroclaw.pk}")

    body = page.locator("#sim-body")
    timeline = body.locator("svg.timeline")
    expect(timeline).to_be_visible()
    expect(timeline.locator("a.bar")).to_have_count(24)  # one bar per model call
    expect(body.get_by_role("heading", name=re.compile(r"Context as sent at call \d+"))).to_be_visible()
    expect(body.locator("#ctx-rows .ctx-row").first).to_be_visible()
    expect(body.locator(".call-nav")).to_contain_text("Call 24 of 24")
    # The stored profile (50 messages of history) holds this 49-message session whole.
    expect(_calls_trimmed(page)).to_have_text("0")
    expect(body.locator("#ctx-rows .fate-dropped")).to_have_count(0)

    page.evaluate("window.__marker = 1")

    # Checkbox and select knobs re-run too (only `input` triggers a re-run, so leaving a field does not).
    pruning = page.locator(
        'input[type="checkbox"][name="knob:runtime_profiles.default.history_pruning.enabled"]'
    )
    pruning.check()
    expect(page).to_have_url(re.compile(r"history_pruning\.enabled=on"))
    pruning.uncheck()
    # An unchecked box is said (its hidden "off"), so a URL that names it cannot be read as "keep stored".
    expect(page).to_have_url(re.compile(r"history_pruning\.enabled=off"))
    expect(page).not_to_have_url(re.compile(r"history_pruning\.enabled=on"))
    version = page.locator('select[name="knob:trimscope.version"]')
    version.select_option("upstream")
    expect(page).to_have_url(re.compile(r"trimscope\.version=upstream"))
    expect(body.locator(".stats")).to_contain_text("ZeroClaw released (v0.8.4)")
    version.select_option("documented")
    expect(page).to_have_url(re.compile(r"trimscope\.version=documented"))
    expect(body.locator(".stats")).to_contain_text("ZeroClaw proposed (PRs #9368, #9535)")

    # Fewer messages of history: rows are dropped and calls are trimmed, swapped in place.
    knob = page.locator(f'input[name="{MAX_HISTORY_KNOB}"]')
    knob.fill("10")
    expect(page).to_have_url(re.compile(r"max_history_messages=10(&|$)"))
    expect(body.locator(".flag", has_text="edited knobs")).to_be_visible()
    expect(_calls_trimmed(page)).not_to_have_text("0")
    expect(body.locator("#ctx-rows .fate-dropped").first).to_be_visible()
    expect(body.locator("#ctx-rows .fate-dropped").first).to_contain_text("dropped")
    trimmed_at_10 = int(_calls_trimmed(page).inner_text())

    knob.fill("6")
    expect(page).to_have_url(re.compile(r"max_history_messages=6(&|$)"))
    expect(_calls_trimmed(page)).not_to_have_text(str(trimmed_at_10))
    assert int(_calls_trimmed(page).inner_text()) > trimmed_at_10
    assert page.evaluate("window.__marker") == 1, "the knob edit reloaded the page"

    # An invalid value is not applied: the error names the knob and the stored profile is replayed.
    knob.fill("-5")
    error = page.locator("#knob-error")
    expect(error).to_contain_text("Not applied")
    expect(error).to_contain_text("max_history_messages")
    expect(error).to_contain_text("≥ 0")
    expect(_calls_trimmed(page)).to_have_text("0")
    page.screenshot(path=str(artifacts / "simulation-knob-error.png"), full_page=True)

    knob.fill("6")
    expect(error).to_have_count(0)
    expect(_calls_trimmed(page)).not_to_have_text("0")

    # Clicking a timeline bar selects that call. (Wait for htmx to wire up the swapped-in bars first; no
    # person clicks within the ~20 ms settle, and the keyboard below is exercised without such a wait.)
    expect(body).not_to_have_class(re.compile(r"\bhtmx-added\b"))
    timeline.locator("a.bar").nth(4).click()
    expect(body).to_have_attribute("data-call", "5")
    expect(body.locator(".call-nav")).to_contain_text("Call 5 of 24")
    expect(timeline.locator("a.bar.selected")).to_have_count(1)
    expect(page).to_have_url(re.compile(r"call=5(&|$)"))
    expect(page).to_have_url(re.compile(r"max_history_messages=6(&|$)"))  # the edit survives navigation

    # Keyboard: → next call, d = next call where something was dropped.
    page.keyboard.press("ArrowRight")
    expect(body).to_have_attribute("data-call", "6")
    expect(body.locator(".call-nav")).to_contain_text("Call 6 of 24")
    page.keyboard.press("ArrowLeft")
    expect(body).to_have_attribute("data-call", "5")
    next_trim = body.locator('.call-nav a[data-key="d"]')
    expected = int(re.search(r"call=(\d+)", next_trim.get_attribute("href") or "")[1])
    assert expected > 5
    page.keyboard.press("d")
    expect(body).to_have_attribute("data-call", str(expected))
    expect(timeline.locator("a.bar.selected")).to_have_class(re.compile(r"\btrimmed\b"))
    expect(body.locator("#ctx-rows .fate-dropped").first).to_be_visible()

    # The o200k count is loaded after the page.
    o200k = body.locator("dd[hx-get*='/simulate/tokens/']")
    expect(o200k).not_to_contain_text("counting")
    expect(o200k).to_have_text(re.compile(r"^\s*[\d,]+\s+of\s+[\d,]+\s*$"))

    assert page.evaluate("window.__marker") == 1, "navigating between calls reloaded the page"
    page.screenshot(path=str(artifacts / "simulation-next-trim.png"), full_page=True)
    assert console_errors == []


def test_uploaded_sample_replays_and_the_token_count_loads(
    signed_in: Page, daphne_url: str, sim_data: SimData, console_errors: list[str]
) -> None:
    page = signed_in
    page.goto(f"{daphne_url}/")
    page.set_input_files('input[name="file"]', str(SAMPLES_DIR / "claude_code_sample_session.jsonl"))
    page.get_by_role("button", name="Upload").click()
    expect(page).to_have_url(re.compile(r"/transcripts/\d+/$"))

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Simulation").click()
    _choose(page, "transcript", "claude_code_sample_session.jsonl")
    expect(page).to_have_url(re.compile(r"transcript=\d+"))
    _choose(page, "profile", "ZeroClaw")
    expect(page).to_have_url(re.compile(r"transcript=\d+&profile=\d+"))
    expect(page.locator("#sim-body svg.timeline")).to_be_visible()
    expect(page.locator("#sim-body dd[hx-get*='/simulate/tokens/']")).to_have_text(re.compile(r"\d"))
    assert console_errors == []


_COUNTS_JS = """() => {
    const line = document.querySelector('#call-counts');
    const chips = [...line.querySelectorAll('.fate-chip')]
        .map(c => [c.dataset.fate, Number(c.dataset.count)]);
    return {
        data: Object.fromEntries(Object.entries(line.dataset).map(([k, v]) => [k, Number(v)])),
        chips: Object.fromEntries(chips),
        sentence: line.querySelector('.count-sentence').textContent,
        dropHeading: [...document.querySelectorAll('.why h3')].some(h => h.textContent === 'Dropped'),
        system: Number((document.querySelector('.seg-legend li .seg-system')?.parentElement.textContent
            || '0').replace(/[^0-9]/g, '')),
    };
}"""


def test_the_counts_sentence_and_the_chips_agree_on_each_call_of_each_runtime(
    signed_in: Page, daphne_url: str, sim_data: SimData, console_errors: list[str]
) -> None:
    """Walk calls with the keyboard; at every one the sentence, its data and the chips say the same."""
    page = signed_in
    transcript = sim_data.transcript
    cases = (
        (sim_data.zeroclaw, f"&{MAX_HISTORY_KNOB}=2"),  # a turn cap: drops and the breadcrumb
        (sim_data.ai_profile, ""),
        (sim_data.openclaw, ""),
    )
    for profile, knobs in cases:
        page.goto(f"{daphne_url}/simulate/?transcript={transcript.pk}&profile={profile.pk}{knobs}&call=1")
        body = page.locator("#sim-body")
        seen_breadcrumb = False
        for number in range(1, 9):
            expect(body).to_have_attribute("data-call", str(number))
            shown = page.evaluate(_COUNTS_JS)
            data, chips = shown["data"], shown["chips"]
            assert data["sent"] + data["dropped"] == data["held"], shown
            assert sum(chips.values()) == data["listed"] == data["held"] + data["notHeld"], shown
            assert chips.get("dropped", 0) == data["dropped"], shown
            assert shown["sentence"].startswith(f"{data['sent']} of {data['held']} message"), shown
            if data["dropped"] == 0:
                assert not shown["dropHeading"], shown
            if profile is sim_data.ai_profile:
                assert shown["system"] > 0, "ai-profile's system prompt is counted as sent"
            seen_breadcrumb |= "plus the breadcrumb note" in shown["sentence"]
            page.keyboard.press("ArrowRight")
        if profile is sim_data.zeroclaw:
            assert seen_breadcrumb, "the turn cap trimmed within the first calls"
    assert console_errors == []
