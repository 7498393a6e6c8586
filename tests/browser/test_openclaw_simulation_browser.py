"""In a real browser at 1280 px: an OpenClaw session replayed through OpenClaw 2026.9.6 on a direct OpenAI
route shows history image cleanup and the provider-side compaction point where they happen (timeline mark,
the call's rows, the Why panel); switching the version to 2026.7.1 shows that pruning is not active for
OpenAI there."""

from __future__ import annotations

import datetime
import json
import re

import pytest
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

T0 = 1_780_000_000_000
IMAGE = {"type": "image", "data": "aGk=", "mimeType": "image/png"}


def _iso(ms: int) -> str:
    stamp = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def openai_session_with_images(turns: int = 10) -> str:
    """An OpenClaw session on a direct OpenAI route: each turn a user message with a screenshot, a tool call,
    an 8,000-char tool result and an answer, 20 s apart."""
    lines: list[dict[str, object]] = [
        {"type": "session", "version": 3, "id": "oc-images", "timestamp": _iso(T0), "cwd": "/srv"}
    ]

    def add(message: dict[str, object], stamp: int) -> None:
        parent = lines[-1]["id"] if len(lines) > 1 else None
        lines.append(
            {
                "type": "message",
                "id": f"e{len(lines)}",
                "parentId": parent,
                "timestamp": _iso(stamp),
                "message": {**message, "timestamp": stamp},
            }
        )

    route = {"provider": "openai", "model": "gpt-5.4", "api": "openai-responses"}
    for n in range(turns):
        at = T0 + 10_000 + n * 20_000
        add(
            {
                "role": "user",
                "content": [{"type": "text", "text": f"Turn {n}: what is on this screen?"}, IMAGE],
            },
            at,
        )
        add(
            {
                "role": "assistant",
                "content": [{"type": "toolCall", "id": f"c{n}", "name": "read", "arguments": {}}],
                **route,
                "stopReason": "toolUse",
            },
            at + 1000,
        )
        add(
            {
                "role": "toolResult",
                "toolCallId": f"c{n}",
                "toolName": "read",
                "content": [{"type": "text", "text": f"line {n}\n" * 1000}],
                "isError": False,
            },
            at + 1500,
        )
        add(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": f"Screen {n} shows a form."}],
                **route,
                "stopReason": "stop",
            },
            at + 2000,
        )
    return "\n".join(json.dumps(line) for line in lines) + "\n"


def _document() -> dict[str, object]:
    return {
        "trimscope": {"runtime": "openclaw", "version": "2026.9.6", "compactionSummaryTokens": 500},
        "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}},
        "model": {
            "provider": "openai",
            "id": "gpt-5.4",
            "api": "openai-responses",
            "baseUrl": "https://api.openai.com/v1",
            "contextWindow": 30_000,
        },
    }


@pytest.fixture
def openclaw_sim(operator):
    from dashboard import services

    transcript = services.transcript_import(
        text=openai_session_with_images(), name="oc-images", user=operator
    )
    profile = services.profile_create(name="openclaw 2026.9.6 openai", document=_document())
    return transcript, profile


def test_image_cleanup_and_the_compaction_point_show_where_they_happen(
    signed_in: Page, daphne_url: str, openclaw_sim, console_errors: list[str], artifacts
) -> None:
    page = signed_in
    page.set_viewport_size({"width": 1280, "height": 900})
    transcript, profile = openclaw_sim
    page.goto(f"{daphne_url}/simulate/?transcript={transcript.pk}&profile={profile.pk}")

    body = page.locator("#sim-body")
    expect(body.locator(".stats")).to_contain_text("OpenClaw 2026.9.6")
    timeline = body.locator("svg.timeline")
    expect(timeline.locator("rect.mark-compaction")).to_have_count(1)
    assert timeline.locator("rect.mark-images").count() >= 1
    legend = body.locator("#timeline-legend")
    expect(legend).to_contain_text("provider-side compaction")
    expect(legend).to_contain_text("history image cleanup")

    # The compaction point: its bar, its rows and the Why panel.
    timeline.locator("a.bar", has=page.locator("rect.mark-compaction")).click()
    why = body.locator("aside.why")
    expect(why.locator("#why-compaction")).to_contain_text("OpenAI Responses server compaction")
    expect(body.locator("#ctx-rows .fate-compacted").first).to_be_visible()
    point = int(body.get_attribute("data-call") or 0)
    assert point > 1

    # The call after it sends the summary instead of the compacted messages.
    body.locator(".call-nav a", has_text=f"call {point + 1}").click()
    expect(body).to_have_attribute("data-call", str(point + 1))
    expect(body.locator("#ctx-rows .fate-dropped").first).to_contain_text("compacted by the provider")
    expect(why).to_contain_text("~500-token summary")

    # An image cleanup: the first bar with the mark, its replaced images and the rule.
    timeline.locator("a.bar", has=page.locator("rect.mark-images")).first.click()
    row = body.locator("#ctx-rows .fate-image-replaced").first
    expect(row).to_be_visible()
    expect(row).to_contain_text("history image cleanup")
    expect(why).to_contain_text("image-replaced")
    page.screenshot(path=str(artifacts / "openclaw-images-compaction-1280.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280

    # 2026.7.1 does not install pruning for a direct OpenAI route, and says so.
    page.locator('select[name="knob:trimscope.version"]').select_option("2026.7.1")
    expect(page).to_have_url(re.compile(r"trimscope\.version=2026\.7\.1"))
    expect(body.locator(".stats")).to_contain_text("OpenClaw 2026.7.1")
    expect(why.locator("#why-eligibility")).to_contain_text("context pruning is not active for openai")
    assert timeline.locator("rect.mark-inactive").count() >= 1
    assert console_errors == []
