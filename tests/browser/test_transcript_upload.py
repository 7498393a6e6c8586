"""In a real browser against daphne: sign in, upload a sample, see its turns; a bad upload is refused."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import OPERATOR_PASSWORD
from tests.support import REPO_DIR, SAMPLES_DIR

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = REPO_DIR / "test-artifacts"


def sign_in(page: Page, base: str) -> None:
    page.goto(f"{base}/login/")
    page.get_by_label("Username").fill("op")
    page.get_by_label("Password").fill(OPERATOR_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Transcripts")).to_be_visible()


def test_upload_a_sample_and_see_its_turns(page: Page, daphne_url: str, operator) -> None:
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    sign_in(page, daphne_url)
    page.set_input_files('input[name="file"]', str(SAMPLES_DIR / "claude_code_sample_session.jsonl"))
    page.get_by_role("button", name="Upload").click()
    expect(page).to_have_url(re.compile(r"/transcripts/\d+/$"))
    expect(page.get_by_role("heading", name="claude_code_sample_session.jsonl")).to_be_visible()
    expect(page.locator(".turn-label", has_text="Turn 2")).to_be_visible()
    expect(page.locator(".tool-call").first).to_contain_text("toolu_001")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "transcript-detail.png"), full_page=True)
    assert errors == []


def test_malformed_upload_is_rejected_with_the_place_shown(page: Page, daphne_url: str, operator) -> None:
    sign_in(page, daphne_url)
    page.get_by_label("…or paste").fill('[{"role": "user", "content": "hi"}, {"role": 7}]')
    page.get_by_role("button", name="Upload").click()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Not stored")
    expect(alert).to_contain_text("1")  # message index of the bad record
    expect(page.locator("#transcript-table")).to_have_count(0)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "upload-rejected.png"), full_page=True)


def test_upload_a_swe_agent_yaml_demo_then_the_same_file_links_to_it(
    page: Page, daphne_url: str, operator
) -> None:
    demo = REPO_DIR / "tests" / "fixtures" / "transcripts" / "swe_agent_demo.yaml"
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    sign_in(page, daphne_url)
    page.set_input_files('input[name="file"]', str(demo))
    page.get_by_role("button", name="Upload").click()
    expect(page).to_have_url(re.compile(r"/transcripts/\d+/$"))
    detail_url = page.url
    expect(page.get_by_role("heading", name="swe_agent_demo.yaml")).to_be_visible()
    expect(page.locator(".stats")).to_contain_text("swe-agent")
    expect(page.locator(".tool-call").first).to_contain_text("call_ls_1")
    page.goto(f"{daphne_url}/")
    page.set_input_files('input[name="file"]', str(demo))
    page.get_by_role("button", name="Upload").click()
    notice = page.locator("#upload-duplicate")
    expect(notice).to_contain_text("already stored as")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "upload-duplicate.png"), full_page=True)
    notice.get_by_role("link", name="swe_agent_demo.yaml").click()
    expect(page).to_have_url(detail_url)
    assert errors == []
