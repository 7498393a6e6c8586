"""In a real browser: edit knobs on the simulation screen, see an invalid knob named beside it while the
other edits stay applied, carry the edits into Compare, and save them as a new profile."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import MAX_HISTORY_KNOB, SimData

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BUDGET_KNOB = "knob:runtime_profiles.default.max_context_tokens"


def test_edits_survive_an_invalid_knob_carry_into_compare_and_save_as_a_profile(
    signed_in: Page, daphne_url: str, sim_data: SimData, console_errors: list[str], artifacts
) -> None:
    page = signed_in
    page.goto(f"{daphne_url}/simulate/?transcript={sim_data.transcript.pk}&profile={sim_data.zeroclaw.pk}")
    trimmed = page.locator("#sim-body .stats > div", has_text="Calls trimmed").locator("dd")
    expect(trimmed).to_have_text("0")

    page.locator(f'input[name="{MAX_HISTORY_KNOB}"]').fill("2")
    expect(page.locator("#sim-body")).to_contain_text("edited knobs")
    expect(trimmed).not_to_have_text("0")
    capped = trimmed.inner_text()

    page.locator(f'input[name="{BUDGET_KNOB}"]').fill("-5")
    expect(page.locator("#knob-error")).to_contain_text("your other edits are applied")
    beside = page.locator("label", has=page.locator(f'input[name="{BUDGET_KNOB}"]')).locator(".knob-error")
    expect(beside).to_have_text(re.compile(r"-5 is below the minimum"))
    expect(trimmed).to_have_text(capped)  # the cap still applies
    page.screenshot(path=str(artifacts / "tuning-invalid-knob.png"), full_page=True)

    compare = page.locator("#compare-link")
    expect(compare).to_have_attribute("href", re.compile(r"max_history_messages=2"))
    href = compare.get_attribute("href")
    other = page.context.new_page()
    other.goto(f"{daphne_url}{href}&profiles={sim_data.openclaw.pk}")
    expect(other.locator("#carried-edits")).to_be_visible()
    other.close()

    page.locator(f'input[name="{BUDGET_KNOB}"]').fill("16000")
    expect(page.locator("#knob-error")).to_have_count(0)
    page.locator('#save-edits input[name="name"]').fill("capped at two")
    page.get_by_role("button", name="Save as profile").click()
    expect(page.locator('select[name="profile"] option[selected]')).to_have_text(
        re.compile(r"^capped at two")
    )
    expect(trimmed).to_have_text(capped)
    expect(page.locator("#sim-body")).not_to_contain_text("edited knobs")
    assert console_errors == []
