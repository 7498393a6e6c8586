"""How fast the dashboard serves the simulation of a 5,000-message transcript, and re-simulates a knob change.

Runs Django in-process against a throwaway SQLite database (no server, so this is the view's own
time: replay, view model and template rendering). Each knob change uses a value not seen before,
so the replay is not served from the memo.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time

from benchmarks.common import ms


def run(messages: int = 5_000) -> dict[str, float]:
    os.environ["TRIMSCOPE_VAR_DIR"] = tempfile.mkdtemp(prefix="trimscope-bench-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dashboard.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from dashboard import services
    from dashboard.models import Profile
    from simulator.synthetic import synthetic_openclaw_session

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("bench", password="bench-password")
    transcript = services.transcript_import(
        text=synthetic_openclaw_session(messages // 4), name="bench", format="openclaw", user=user
    )
    services.demo_profiles_ensure()
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    out: dict[str, float] = {}
    for profile in Profile.objects.all():
        base = f"/simulate/?transcript={transcript.pk}&profile={profile.pk}"
        start = time.perf_counter()
        assert client.get(base).status_code == 200
        out[f"{profile.runtime} page, first view"] = time.perf_counter() - start
        start = time.perf_counter()
        assert client.get(base + "&call=7").status_code == 200
        out[f"{profile.runtime} page, another call"] = time.perf_counter() - start
    zeroclaw = Profile.objects.get(runtime="zeroclaw")
    knob = "knob:runtime_profiles.default.max_history_messages"
    times = []
    for value in (30, 31, 32, 33, 34):
        start = time.perf_counter()
        response = client.get(
            f"/simulate/?transcript={transcript.pk}&profile={zeroclaw.pk}&{knob}={value}",
            headers={"HX-Request": "true", "HX-Target": "sim-body"},
        )
        assert response.status_code == 200
        times.append(time.perf_counter() - start)
    out["zeroclaw knob change (re-simulate, htmx partial), median of 5"] = statistics.median(times)
    start = time.perf_counter()
    assert client.get(f"/transcripts/{transcript.pk}/").status_code == 200
    out["transcript page"] = time.perf_counter() - start
    return out


def report(numbers: dict[str, float], messages: int = 5_000) -> list[str]:
    lines = [
        "## Dashboard",
        "",
        f"In-process Django test client, a {messages:,}-message transcript (synthetic session), "
        "demo profiles:",
        "",
        "| request | time |",
        "|---|---:|",
    ]
    lines += [f"| {name} | {ms(seconds)} |" for name, seconds in numbers.items()]
    return lines
