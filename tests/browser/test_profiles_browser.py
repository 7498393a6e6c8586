"""In a real browser: create a ZeroClaw profile from a preset, see an invalid knob refused inline, fix it,
save it and export it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MCT = "runtime_profiles.default.max_context_tokens"
MCT_ID = "knob-runtime_profiles-default-max_context_tokens"


def test_create_from_preset_edit_with_inline_validation_save_and_export(
    page: Page, daphne_url: str, operator, console_errors: list[str], artifacts
) -> None:
    sign_in(page, daphne_url)
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Profiles").click()
    expect(page.get_by_role("heading", name="Profiles", exact=True)).to_be_visible()
    expect(page.locator("#profile-table")).to_have_count(0)  # nothing stored yet

    create = page.locator("#create-form")
    create.get_by_role(
        "radio", name=re.compile(re.escape("ZeroClaw proposed (PRs #9368, #9535) defaults"))
    ).check()
    create.get_by_label("Name").fill("zc-browser")
    create.get_by_role("button", name="Create").click()

    expect(page).to_have_url(re.compile(r"/profiles/\d+/$"))
    expect(page.get_by_role("heading", name="zc-browser")).to_be_visible()
    expect(page.locator("#budget-line")).to_contain_text("ZeroClaw")

    # An invalid knob: the error appears next to the field while typing, without a reload.
    page.evaluate("window.__marker = 1")
    knob = page.locator(f"#{MCT_ID}")
    knob.fill("-5")
    field_error = page.locator(f"#err-{MCT_ID}")
    expect(field_error).to_contain_text(MCT)
    expect(field_error).to_contain_text("-5 is below the minimum")
    expect(field_error).to_contain_text("allowed: an integer ≥ 0")
    expect(page.locator("#validation [role=alert]")).to_contain_text("Invalid")
    assert page.evaluate("window.__marker") == 1
    page.screenshot(path=str(artifacts / "profile-edit-invalid-knob.png"), full_page=True)

    # Fixed: the error clears, the TOML side follows, and saving keeps it.
    knob.fill("20000")
    expect(field_error).to_be_empty()
    expect(page.locator("#validation .ok")).to_contain_text("Valid")
    expect(page.locator("#doc-editor")).to_have_value(re.compile(r"max_context_tokens = 20000"))
    assert page.evaluate("window.__marker") == 1

    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("Saved zc-browser.")
    expect(page.locator(f"#{MCT_ID}")).to_have_value("20000")

    from dashboard.models import Profile

    stored = Profile.objects.get(name="zc-browser")
    assert stored.runtime == "zeroclaw"
    assert stored.settings["runtime_profiles"]["default"]["max_context_tokens"] == 20000

    # Export is offered, as TOML and JSON, and the file carries the saved knob.
    expect(page.get_by_role("link", name="Export JSON")).to_be_visible()
    with page.expect_download() as info:
        page.get_by_role("link", name="Export TOML").click()
    download = info.value
    assert download.suggested_filename.endswith(".toml")
    assert "max_context_tokens = 20000" in Path(download.path()).read_text(encoding="utf-8")

    assert console_errors == []


CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "configs"


def test_json5_config_through_the_import_page_choose_one_agent_and_see_its_kept_keys(
    page: Page, daphne_url: str, operator, console_errors: list[str], artifacts
) -> None:
    sign_in(page, daphne_url)
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Profiles").click()
    form = page.locator("#import-form")
    form.locator('input[name="file"]').set_input_files(str(CONFIGS / "openclaw.json5"))
    form.get_by_role("button", name="Import").click()

    # Two agents: both listed, checked, with what OpenClaw would do and what is kept.
    choose = page.locator("#import-choose")
    expect(choose).to_contain_text("OpenClaw openclaw.json (JSON5)")
    expect(choose.get_by_role("checkbox", name=re.compile("main"))).to_be_checked()
    expect(choose).to_contain_text("agents.list[1].contextPruning is not consulted")
    page.screenshot(path=str(artifacts / "profile-import-json5-choose.png"), full_page=True)

    choose.get_by_role("checkbox", name=re.compile("local")).uncheck()
    page.get_by_role("button", name="Import the chosen profiles").click()
    expect(page.get_by_role("status")).to_contain_text("Imported 1 profiles: main.")

    page.locator("#profile-table").get_by_role("link", name="main").click()
    expect(page.get_by_role("heading", name="main")).to_be_visible()
    expect(page.locator("#budget-line")).to_contain_text("window 150,000")
    page.locator(".config-kept summary").click()
    expect(page.locator(".config-kept")).to_contain_text("agents.defaults.compaction")

    from dashboard.models import Profile

    assert list(Profile.objects.values_list("name", flat=True)) == ["main"]
    assert console_errors == []
