"""Every main screen at two desktop sizes: no console errors, no horizontal overflow, and a screenshot of each
in test-artifacts/<screen>-<width>.png for a human to look at."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import SimData

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OVERFLOW = "() => [document.documentElement.scrollWidth, window.innerWidth]"


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (1920, 1080)])
def test_main_screens_load_cleanly_and_fit_the_width(
    signed_in: Page,
    daphne_url: str,
    sim_data: SimData,
    console_errors: list[str],
    artifacts,
    width: int,
    height: int,
) -> None:
    from dashboard import services

    # A ZeroClaw profile tight enough to drop messages, so the simulation and compare screens show fates.
    document = copy.deepcopy(sim_data.zeroclaw.settings)
    document["runtime_profiles"]["default"]["max_history_messages"] = 10
    tight = services.profile_create(name="ZeroClaw, 10 messages", document=document)
    t = sim_data.transcript.pk

    page = signed_in
    page.set_viewport_size({"width": width, "height": height})

    def ready_heading(name: str) -> Callable[[], None]:
        return lambda: expect(page.get_by_role("heading", name=name, exact=True)).to_be_visible()

    def simulation_ready() -> None:
        expect(page.locator("#sim-body svg.timeline")).to_be_visible()
        expect(page.locator("#sim-body .fate-dropped").first).to_be_visible()
        expect(page.locator("#sim-body dd[hx-get*='/simulate/tokens/']")).not_to_contain_text("counting")

    def compare_ready() -> None:
        expect(page.locator("tr.first-diff")).to_be_visible()

    screens: list[tuple[str, str, Callable[[], None]]] = [
        ("transcripts", "/", ready_heading("Transcripts")),
        ("transcript-detail", f"/transcripts/{t}/", ready_heading("twelve-turns")),
        ("profiles", "/profiles/", ready_heading("Profiles")),
        ("profile-edit", f"/profiles/{tight.pk}/", ready_heading("ZeroClaw, 10 messages")),
        ("simulation", f"/simulate/?transcript={t}&profile={tight.pk}", simulation_ready),
        (
            "compare",
            f"/compare/?transcript={t}&profiles={tight.pk},{sim_data.openclaw.pk},{sim_data.ai_profile.pk}",
            compare_ready,
        ),
    ]
    problems: list[str] = []
    for screen, path, ready in screens:
        console_errors.clear()
        response = page.goto(f"{daphne_url}{path}")
        assert response is not None and response.ok, f"{screen}: HTTP {response and response.status}"
        ready()
        scroll_width, inner_width = page.evaluate(OVERFLOW)
        if scroll_width > inner_width:
            problems.append(f"{screen}: horizontal overflow, {scroll_width}px in a {inner_width}px window")
        problems += [f"{screen}: {e}" for e in console_errors]
        page.screenshot(path=str(artifacts / f"{screen}-{width}.png"), full_page=True)
    assert problems == []
