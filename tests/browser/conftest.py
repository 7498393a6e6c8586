"""Shared pieces of the browser tests: signing in, console error capture, a transcript long enough to trim."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect

from tests.conftest import OPERATOR_PASSWORD
from tests.support import REPO_DIR

ARTIFACTS = REPO_DIR / "test-artifacts"

# The simulation knob bar names each input after the knob's path in the profile document.
MAX_HISTORY_KNOB = "knob:runtime_profiles.default.max_history_messages"


def sign_in(page: Page, base: str) -> None:
    page.goto(f"{base}/login/")
    page.get_by_label("Username").fill("op")
    page.get_by_label("Password").fill(OPERATOR_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Transcripts")).to_be_visible()


def chat_transcript(turns: int = 12, tool_result_bytes: int = 2048) -> str:
    """An OpenAI-chat session: each turn is a user task, a tool call, a ~2 KB tool result and a reply."""
    messages: list[dict[str, object]] = [{"role": "system", "content": "You are a careful coding agent."}]
    for t in range(turns):
        line = f"{t:02d}: def handler_{t}(request): return respond(request, status=200)\n"
        messages += [
            {"role": "user", "content": f"Task {t}: read m{t}.py and summarise it."},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{t}",
                        "type": "function",
                        "function": {"name": "read_file", "arguments": json.dumps({"path": f"m{t}.py"})},
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": f"call_{t}",
                "content": (line * (tool_result_bytes // len(line) + 1))[:tool_result_bytes],
            },
            {"role": "assistant", "content": f"m{t}.py defines one handler that answers 200."},
        ]
    return json.dumps(messages)


@dataclass(frozen=True)
class SimData:
    transcript: object
    zeroclaw: object
    ai_profile: object
    openclaw: object


@pytest.fixture
def sim_data(operator) -> SimData:
    """A 12-turn transcript and the demo's ready profile per runtime, committed so daphne sees them."""
    from dashboard import services
    from dashboard.models import Profile

    transcript = services.transcript_import(text=chat_transcript(), name="twelve-turns", user=operator)
    services.demo_profiles_ensure()
    return SimData(
        transcript=transcript,
        zeroclaw=Profile.objects.get(runtime="zeroclaw"),
        ai_profile=Profile.objects.get(runtime="ai_profile"),
        openclaw=Profile.objects.get(runtime="openclaw"),
    )


@pytest.fixture
def console_errors(page: Page) -> list[str]:
    """Every console error and uncaught page exception, in order, for the test to assert on."""
    errors: list[str] = []

    def on_console(msg: ConsoleMessage) -> None:
        if msg.type == "error":
            errors.append(f"console: {msg.text} ({msg.location.get('url', '')})")

    page.on("console", on_console)
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    return errors


@pytest.fixture
def signed_in(page: Page, daphne_url: str, operator, console_errors: list[str]) -> Page:
    """The operator's session cookie in the browser (the sign-in form itself is covered where it matters:
    skipping it saves a password hash per test)."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(operator)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": daphne_url}])
    page.set_default_timeout(10_000)  # fail fast; expect() keeps its own 5 s
    return page


@pytest.fixture(scope="session")
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
