"""In a real browser: one transcript through ZeroClaw, OpenClaw and ai-profile profiles side by side; the
first call where they differ is highlighted (or the page says they never differ) and each cell opens the
simulation at that call."""

from __future__ import annotations

import copy
import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import SimData

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _choose(page: Page, label: str, option_text: str) -> None:
    select = page.locator("form.pickers label", has_text=label).locator("select")
    value = select.locator("option", has_text=option_text).first.get_attribute("value")
    select.select_option(value)


def _compare_in_the_form(page: Page, base: str, transcript: str, *profiles: str) -> None:
    page.goto(f"{base}/compare/")
    expect(page.get_by_text("Choose a transcript and at least two profiles.")).to_be_visible()
    _choose(page, "Transcript", transcript)
    for n, name in enumerate(profiles, start=1):
        _choose(page, f"Profile {n}", name)
    page.get_by_role("button", name="Compare").click()
    expect(page.get_by_role("heading", name="Per call")).to_be_visible()


def test_first_difference_is_highlighted_and_cells_open_the_simulation(
    signed_in: Page, daphne_url: str, sim_data: SimData, console_errors: list[str], artifacts
) -> None:
    from dashboard import services

    # A ZeroClaw profile that keeps only 10 messages of history parts ways with the others mid-session.
    document = copy.deepcopy(sim_data.zeroclaw.settings)
    document["runtime_profiles"]["default"]["max_history_messages"] = 10
    tight = services.profile_create(name="ZeroClaw, 10 messages", document=document)

    page = signed_in
    _compare_in_the_form(
        page, daphne_url, "twelve-turns", "ZeroClaw, 10 messages", "Demo · OpenClaw", "Demo · ai-profile"
    )
    expect(page.locator(".compare-table thead th")).to_have_count(5)  # call, reply, three profiles

    summary = page.locator("#sum-h").locator("..")
    expect(summary).to_contain_text(re.compile(r"First difference at call \d+\."))
    first = int(re.search(r"First difference at call (\d+)", summary.inner_text())[1])

    row = page.locator("tr.first-diff")
    expect(row).to_have_count(1)
    expect(row).to_have_id(f"call-{first}")
    expect(row).to_have_class(re.compile(r"\bdiffers\b"))
    expect(row).to_contain_text("first difference")
    expect(row.locator(".flag", has_text="✂")).to_have_count(1)  # only the tight profile trimmed here
    # Highlighted: its cells' background differs from an unremarkable row's.
    background = "e => getComputedStyle(e).backgroundColor"
    plain = page.locator("#call-1 td").first
    assert row.locator("td").first.evaluate(background) != plain.evaluate(background)
    page.screenshot(path=str(artifacts / "compare-first-difference.png"), full_page=True)

    # The tight profile's cell opens its simulation at that very call.
    cell = row.locator("a.cell-link").first
    expect(cell).to_have_attribute("href", re.compile(rf"profile={tight.pk}&call={first}$"))
    cell.click()
    expect(page).to_have_url(re.compile(rf"/simulate/\?.*profile={tight.pk}&call={first}$"))
    expect(page.locator("#sim-body")).to_have_attribute("data-call", str(first))
    expect(page.locator("select[name=profile] option:checked")).to_contain_text("ZeroClaw, 10 messages")
    expect(page.locator("#sim-body .call-nav")).to_contain_text(f"Call {first} of 24")

    assert console_errors == []


def test_profiles_that_never_differ_say_so(
    signed_in: Page, daphne_url: str, sim_data: SimData, console_errors: list[str]
) -> None:
    # The demo profiles hold this short session whole: every runtime sends the same context.
    page = signed_in
    _compare_in_the_form(page, daphne_url, "twelve-turns", "Demo · ZeroClaw", "Demo · OpenClaw")
    expect(page.get_by_text("The profiles send the same context at every call.")).to_be_visible()
    expect(page.locator("tr.first-diff")).to_have_count(0)
    expect(page.locator(".compare-table tbody tr")).to_have_count(24)

    cell = page.locator("#call-7 a.cell-link").nth(1)
    expect(cell).to_have_attribute("href", re.compile(rf"profile={sim_data.openclaw.pk}&call=7$"))
    cell.click()
    expect(page.locator("#sim-body")).to_have_attribute("data-call", "7")
    assert console_errors == []


def test_compare_reprices_with_pricing_gap_and_cache_ttl_in_place_of_the_defaults(
    signed_in: Page, daphne_url: str, sim_data: SimData, console_errors: list[str]
) -> None:
    page = signed_in
    page.set_viewport_size({"width": 1280, "height": 900})
    _compare_in_the_form(page, daphne_url, "twelve-turns", "Demo · ZeroClaw", "Demo · OpenClaw")
    heading = page.locator("#compare-cost h2")
    expect(heading).to_contain_text("no timestamps: calls assumed 30 s apart (the default) — change")
    heading.get_by_role("link", name="change").click()
    expect(page.locator("#cost-gap-input")).to_be_in_viewport()
    controls = page.locator("#compare-cost-controls")
    controls.locator('select[name="pricing"]').select_option("anthropic/claude-sonnet-4-5")
    page.locator("#cost-gap-input").fill("900")
    controls.locator('select[name="ttl"]').select_option("1h")
    controls.get_by_role("button", name="Re-price").click()
    expect(page).to_have_url(re.compile(r"gap=900"))
    expect(heading).to_contain_text("anthropic/claude-sonnet-4-5")
    expect(heading).to_contain_text("no timestamps: calls assumed 900 s apart")
    expect(page.locator("#cost-ttl")).to_have_text("1-hour cache writes (2× input)")
    box = controls.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 1280
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    assert console_errors == []
