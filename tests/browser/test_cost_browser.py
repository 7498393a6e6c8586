"""In a real browser at 1280 px: the simulation page's cost strip stands under the timeline, one stacked
bar per call, fits the page, a click on a bar opens that call with its cost and cache-break sentence, and
re-pricing at another model and gap says what it assumed."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import SimData

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def tight(sim_data: SimData):
    from dashboard import services

    return services.profile_create(
        name="tight-cost",
        document={
            "trimscope": {"runtime": "zeroclaw", "version": "documented"},
            "runtime_profiles": {"default": {"max_context_tokens": 3000}},
            "provider": {"model": "gpt-4o", "context_window": 128_000},
        },
    )


def test_cost_strip_fits_1280_and_opens_a_call_with_its_cache_break(
    signed_in: Page, daphne_url: str, sim_data: SimData, tight, console_errors: list[str], artifacts
) -> None:
    page = signed_in
    page.set_viewport_size({"width": 1280, "height": 900})
    transcript = sim_data.transcript
    page.goto(
        f"{daphne_url}/simulate/?transcript={transcript.pk}&profile={tight.pk}&pricing=anthropic/claude-sonnet-4-5"
    )
    body = page.locator("#sim-body")
    strip = body.locator("svg.cost-strip")
    expect(strip).to_be_visible()
    # One cost bar under each context bar, each drawn as a stack of its billed parts.
    expect(strip.locator("a.cbar")).to_have_count(body.locator("svg.timeline a.bar").count())
    expect(strip.locator("rect.part").first).to_be_visible()
    expect(body.locator("#cost-total")).to_have_text(re.compile(r"^\$\d+\.\d{4}$"))
    expect(body.locator("#cost-saving")).to_have_text(re.compile(r"^(saves|costs) \$\d+\.\d{4}( more)?$"))

    # The strip is as wide as the timeline above it and inside the 1280 px page (no sideways scroll).
    strip_box, timeline_box = strip.bounding_box(), body.locator("svg.timeline").bounding_box()
    assert strip_box is not None and timeline_box is not None
    assert abs(strip_box["x"] - timeline_box["x"]) < 1 and abs(strip_box["width"] - timeline_box["width"]) < 1
    assert strip_box["x"] + strip_box["width"] <= 1280
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280

    # A bar marked as a cache break opens its call in place, with the sentence and the call's cost.
    broke = strip.locator("a.cbar.broke").first
    expect(broke).to_be_visible()
    number = re.search(r"call (\d+)", broke.locator("title").text_content() or "")
    assert number is not None
    broke.click()
    expect(page).to_have_url(re.compile(rf"call={number.group(1)}\b"))
    expect(body.locator(".call-nav")).to_contain_text(f"Call {number.group(1)} of 24")
    expect(body.locator("#cache-break")).to_contain_text("tokens written to the cache again because")
    expect(body.locator("#call-cost")).to_contain_text("cache write")
    expect(strip.locator("a.cbar.selected")).to_have_count(1)
    page.screenshot(path=str(artifacts / "simulation-cost-1280.png"), full_page=True)

    # Re-pricing at another model and gap goes through the knob form: the page says what it assumed.
    total = body.locator("#cost-total").text_content()
    page.locator('select[name="pricing"]').select_option("openai/gpt-4o")
    page.locator('input[name="gap"]').fill("600")
    page.get_by_role("button", name="Re-price").click()
    expect(page).to_have_url(re.compile(r"pricing=openai%2Fgpt-4o.*gap=600|gap=600.*pricing=openai%2Fgpt-4o"))
    expect(page.locator("#cost-h")).to_contain_text("openai/gpt-4o")
    expect(page.locator("#cost-h")).to_contain_text("no timestamps: calls assumed 600 s apart")
    expect(page.locator("#cost-total")).not_to_have_text(total or "")

    # The cache TTL sits beside them: 1-hour writes at Anthropic prices, stated in the heading.
    page.locator('select[name="pricing"]').select_option("anthropic/claude-sonnet-4-5")
    page.locator('select[name="ttl"]').select_option("1h")
    page.get_by_role("button", name="Re-price").click()
    expect(page).to_have_url(re.compile(r"ttl=1h"))
    expect(page.locator("#cost-ttl")).to_have_text("1-hour cache writes (2× input)")
    expect(page.locator('select[name="ttl"]')).to_have_value("1h")
    assert console_errors == []
