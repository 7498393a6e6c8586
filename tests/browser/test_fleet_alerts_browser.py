"""The alert strip at 1280 px: a few grouped rows above the heading's fold, failures first, "N more",
and Acknowledge / Mute acting through the page's own forms (CSRF on)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _fleet_with_alerts():
    from django.utils import timezone

    from dashboard import services
    from dashboard.models import TrimEvent

    alpha = services.runtime_create(name="edge-alpha")[0]
    beta = services.runtime_create(name="edge-beta")[0]
    now = timezone.now()
    rows = []
    for i in range(7):  # seven sessions with failed recoveries, one of them failing twelve times
        for _ in range(12 if i == 0 else 1):
            rows.append((alpha if i % 2 else beta, f"sess-failed-{i}", "failed"))
    rows += [(alpha, "sess-busy", "")] * 8
    TrimEvent.objects.bulk_create(
        TrimEvent(
            runtime=runtime,
            shape="envelope",
            session_id=session,
            reason="context token budget exceeded",
            dropped_messages=4,
            kept_turns=3,
            overflow_recovery=recovery,
            occurred_at=now - timedelta(seconds=n),
            payload={},
        )
        for n, (runtime, session, recovery) in enumerate(rows)
    )
    services.trim_rollups_rebuild()


def test_alert_strip_is_short_grouped_and_its_actions_work(
    signed_in: Page, daphne_url: str, console_errors: list[str], artifacts
):
    _fleet_with_alerts()
    page = signed_in
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(daphne_url + "/fleet/")
    heading = page.get_by_role("heading", name="Fleet", exact=True)
    expect(heading).to_be_visible()
    strip = page.locator("#fleet-alerts")
    shown = strip.locator(":scope > ul > li.alert")
    expect(shown).to_have_count(5)
    # One row per session: the session that failed twelve times is one row with its count.
    expect(strip.get_by_text("Overflow recovery failed 12 times in session sess-failed-0")).to_have_count(1)
    kinds = shown.locator(".alert-kind").all_inner_texts()
    assert kinds == ["Overflow failed"] * 5
    # 2 more failures, and 2 busy sessions (sess-failed-0's twelve trims in a minute make it busy too).
    expect(strip.locator("details.alert-more > summary")).to_have_text("4 more")
    box = heading.bounding_box()
    assert box is not None and box["y"] < 600, box  # the heading is no longer pushed far down
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1]
    page.screenshot(path=str(artifacts / "fleet-alerts-1280.png"))

    # The busy sessions are behind "N more", after every failure.
    strip.locator("details.alert-more > summary").click()
    more = strip.locator("details.alert-more li.alert .alert-kind").all_inner_texts()
    assert more == ["Overflow failed"] * 2 + ["Busy session"] * 2
    # The 5-second refresh replaces the strip and keeps the opened list open.
    page.locator("h1").click()  # focus out of the strip: the refresh is held while it has the focus
    with page.expect_response(lambda r: "/fleet/" in r.url and r.request.headers.get("hx-request") == "true"):
        pass
    page.wait_for_timeout(500)  # the swap follows the response
    expect(strip.locator("details.alert-more")).to_have_attribute("open", "")

    # Acknowledge sess-failed-0's failures: that row goes (its busy row stays), the page keeps its URL.
    failed_0 = strip.get_by_text("Overflow recovery failed 12 times in session sess-failed-0")
    text = "Overflow recovery failed 12 times in session sess-failed-0"
    strip.locator("li.alert", has_text=text).get_by_role("button", name="Acknowledge").click()
    page.wait_for_url("**/fleet/")
    expect(failed_0).to_have_count(0)
    expect(strip.locator("li.alert", has_text="sess-failed-0")).to_have_count(1)

    # Mute a runtime's failures: its rows go, and the mute is listed with Unmute.
    row = strip.locator("li.alert", has_text="edge-alpha").first
    row.locator("select[name=scope]").select_option("runtime")
    row.get_by_role("button", name="Mute").click()
    expect(
        strip.locator("li.alert", has_text="Overflow recovery failed").filter(has_text="edge-alpha")
    ).to_have_count(0)
    expect(page.locator("#alert-settings")).to_contain_text("runtime edge-alpha")
    assert console_errors == []
