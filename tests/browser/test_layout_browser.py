"""At 1280 px: long transcript names keep the Uploaded/Delete columns on screen, the profiles table shows
its Export/Duplicate/Delete actions, an upload error stays inside its box, and a fleet session page's
runtime name stays on one line (it used to wrap at each hyphen, onto three lines) with the table on screen."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import SimData, chat_transcript

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG_NAME = "customer-support-agent-session-2026-11-30T16-02-37Z-" + "x" * 80 + ".jsonl"


def _inside(inner, outer) -> bool:
    return inner["x"] >= outer["x"] - 1 and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 1


def test_tables_and_boxes_fit_1280_pixels(
    signed_in: Page, daphne_url: str, operator, sim_data: SimData, console_errors: list[str], artifacts
) -> None:
    from dashboard import services

    services.transcript_import(text=chat_transcript(2), name=LONG_NAME, user=operator)
    page = signed_in
    page.set_viewport_size({"width": 1280, "height": 900})

    page.goto(f"{daphne_url}/")
    row = page.locator("tr", has_text=LONG_NAME[:40])
    delete = row.get_by_role("button", name="Delete")
    expect(delete).to_be_visible()
    box = delete.bounding_box()
    assert box and box["x"] + box["width"] <= 1280
    page.screenshot(path=str(artifacts / "layout-transcripts-1280.png"), full_page=True)

    page.locator("textarea[name=text]").fill('[{"role": "user", "content": "' + "unterminated-" * 60)
    page.get_by_role("button", name="Upload").click()
    error = page.locator("#upload-form .error").first
    expect(error).to_be_visible()
    form_box, error_box = page.locator("#upload-form").bounding_box(), error.bounding_box()
    assert form_box and error_box and _inside(error_box, form_box)
    page.screenshot(path=str(artifacts / "layout-upload-error-1280.png"), full_page=True)

    page.goto(f"{daphne_url}/profiles/")
    card = page.locator(".card", has=page.locator("#profile-table")).first.bounding_box()
    assert card is not None
    for action in ("JSON", "Duplicate", "Delete"):
        control = page.locator("#profile-table").get_by_text(action, exact=True).first
        expect(control).to_be_visible()
        control_box = control.bounding_box()
        assert control_box and _inside(control_box, card), action
    page.screenshot(path=str(artifacts / "layout-profiles-1280.png"), full_page=True)

    assert console_errors == []


LINES = """(cell) => {
  // The line boxes of the name's text: one rect per line it occupies.
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  const tops = new Set();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top));
  }
  return tops.size;
}"""


@pytest.mark.parametrize("name", ["zeroclaw-production-eu-west-1", "support-agent-eu-central-1-canary-blue"])
def test_a_fleet_session_pages_runtime_name_stays_on_one_line_at_1280(
    signed_in: Page, daphne_url: str, console_errors: list[str], artifacts, name: str
) -> None:
    from django.utils import timezone

    from dashboard.models import TrimEvent
    from dashboard.services.fleet import runtime_create

    runtime, _ = runtime_create(name=name)
    for n, recovery in enumerate(("", "failed", "recovered")):
        TrimEvent.objects.create(
            runtime=runtime,
            shape=TrimEvent.Shape.ENVELOPE,
            session_id="sess-layout-1",
            reason="token budget exceeded after tool output",
            dropped_messages=14 + n,
            kept_turns=3,
            dropped_turns=2,
            occurred_at=timezone.now(),
            payload={},
            tokens_before=161_420,
            tokens_after=98_950,
            budget=128_000,
            overflow_recovery=recovery,
        )
    page = signed_in
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{daphne_url}/fleet/sessions/sess-layout-1/")
    cells = page.locator("td.runtime-name")
    expect(cells).to_have_count(3)
    for i in range(3):
        cell = cells.nth(i)
        assert cell.evaluate(LINES) == 1, cell.inner_text()
        assert cell.get_attribute("title") == name  # the whole name, also when the cell shortens it
    table = page.locator("table.session-events").bounding_box()
    assert table is not None and table["x"] + table["width"] <= 1280
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    page.screenshot(path=str(artifacts / f"layout-fleet-session-{len(name)}-1280.png"), full_page=True)
    assert console_errors == []
