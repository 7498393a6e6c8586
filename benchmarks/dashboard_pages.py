"""How fast the dashboard's session pages answer as a session grows: 1,000 to 100,000 messages.

Runs Django in-process against a throwaway SQLite database (no server, so this is the view's own time:
replay, view model and template rendering). Each session is uploaded through the service, so its parse
is kept as after a real upload; "cold" rows clear the kept values first, as after a restart. Each knob
change uses a value not seen before, so the replay is not served from the memo. The ratio column is
the largest session's time over the smallest's (×100 would be linear in session length from 1k to 100k).

``python -m benchmarks.dashboard_pages [SIZES...]`` runs it alone and prints the table.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks.common import ms

SIZES = (1_000, 10_000)
NEWER_OPENCLAW = "openclaw-2026.9.6"
"""The preset of OpenClaw's other reproduced version (the demo profile runs the default one)."""
LONG_SIZES = (1_000, 10_000, 50_000, 100_000)
"""With ``--long-sessions``: the 50k and 100k sessions take several minutes on 2 cores."""


def _setup() -> None:
    os.environ["TRIMSCOPE_VAR_DIR"] = tempfile.mkdtemp(prefix="trimscope-bench-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dashboard.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _forget_replays() -> None:
    """Forget every replay and what was derived from one, keeping the parse and the transcript's own facts:
    the next page of a runtime is its first replay after the upload, whatever was asked before it."""
    from dashboard import memo

    for store in (memo.PREPARED, memo.REPLAYS, memo.COSTS, memo.TIMELINES, memo.REREADS, memo.ESTIMATES):
        store.clear()


def _late_call(messages: int) -> int:
    """A call 90 % of the way through a session of ``messages`` (2 messages per call)."""
    return max(1, messages // 2 * 9 // 10)


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def run_one(messages: int) -> dict[str, float]:
    """Every page at one session size (the Django setup must have run)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from dashboard import memo, services
    from dashboard.models import Profile
    from dashboard.selectors.transcript_pages import MESSAGES_PER_PAGE
    from dashboard.services.transcripts import transcript_count_all, transcript_form_store
    from simulator.presets import PRESETS_BY_KEY
    from simulator.synthetic import synthetic_openclaw_session

    memo.clear()
    gc.collect()
    user, _ = get_user_model().objects.get_or_create(username="bench")
    text = synthetic_openclaw_session(messages // 4, session_id=f"bench-{messages}")
    started = time.perf_counter()
    transcript = services.transcript_import(
        text=text, name=f"bench {messages:,}", format="openclaw", user=user, copy=True
    )
    uploaded = time.perf_counter() - started
    services.demo_profiles_ensure()
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)

    def ok(url: str, **headers: str) -> Callable[[], None]:
        return _get(client, url, headers)

    page_url = f"/transcripts/{transcript.pk}/"
    last_page = (messages + MESSAGES_PER_PAGE - 1) // MESSAGES_PER_PAGE
    counts_url = f"/transcripts/{transcript.pk}/counts/?from=0&to={MESSAGES_PER_PAGE}"
    zeroclaw = Profile.objects.filter(runtime="zeroclaw").order_by("pk").first()
    ai_profile = Profile.objects.filter(runtime="ai_profile").order_by("pk").first()
    assert zeroclaw is not None and ai_profile is not None
    sim = f"/simulate/?transcript={transcript.pk}&profile={zeroclaw.pk}"
    late = _late_call(messages)
    tokens = f"/simulate/tokens/?transcript={transcript.pk}&profile={zeroclaw.pk}&call={late}"
    knob = "knob:runtime_profiles.default.max_history_messages"
    compare = f"/compare/?transcript={transcript.pk}&profiles={zeroclaw.pk},{ai_profile.pk}"
    out: dict[str, float] = {"upload (the service: parse, page index, store; not the request)": uploaded}
    out["transcript page (parse kept from the upload)"] = _timed(ok(page_url))
    out["transcript page, last page"] = _timed(ok(f"{page_url}?page={last_page}"))
    out["transcript o200k counts of one page (htmx, after the page)"] = _timed(ok(counts_url))
    # Up to 5,000 messages the page replays; above, it is drawn at once with a progress line and its
    # body (the first replay) is asked for by htmx: both requests are timed.
    out["simulation first view: the page"] = _timed(ok(sim))
    out["simulation first view: its body (htmx; the first replay above 5k)"] = _timed(
        ok(sim, **{"HX-Request": "true", "HX-Target": "sim-body"})
    )
    cost = f"/simulate/cost/{sim[10:]}&call={late}"
    out["simulation cost panel (htmx, after the page)"] = _timed(ok(cost))
    # What the task worker does after a long session's upload (not a request), then the same panel as the
    # first one of another server process or after a restart: the stored counts read back, not counted.
    # (From 2,000 messages, TRIMSCOPE_COUNT_AFTER_UPLOAD_MESSAGES: the smaller session's upload stored
    # its parsed form itself, and this only counts.)
    out["the worker after the upload: parsed form stored, every message counted (not a request)"] = _timed(
        lambda: (
            transcript_form_store(transcript_id=transcript.pk),
            transcript_count_all(transcript_id=transcript.pk),
        )
    )
    for store in (memo.MESSAGE_COUNTS, memo.TRANSCRIPT_TOKENS, memo.COSTS):
        store.clear()
    out["simulation cost panel, counts stored by the worker (htmx, after the page)"] = _timed(ok(cost))
    out["simulation, another call (late)"] = _timed(ok(f"{sim}&call={late}"))
    out["o200k of a late call, first time"] = _timed(ok(tokens))
    out["o200k of a late call, again"] = _timed(ok(tokens))
    knob_times = [
        _timed(ok(f"{sim}&{knob}={value}", **{"HX-Request": "true", "HX-Target": "sim-body"}))
        for value in (30, 31, 32)
    ]
    out["knob re-simulation (htmx partial), median of 3"] = statistics.median(knob_times)
    # As the simulation page: above 5,000 messages the page is drawn at once and asks for its body. Both
    # replays are first replays (the ZeroClaw one above is forgotten).
    _forget_replays()
    out["compare, first view (2 profiles): the page"] = _timed(ok(compare))
    out["compare, first view: its body (htmx; the first replays above 5k)"] = _timed(
        ok(compare, **{"HX-Request": "true", "HX-Target": "compare-body"})
    )
    out["compare, another page"] = _timed(ok(f"{compare}&page=2&call={late}"))
    # The other runtimes' first replays (each prepares its own native shape; the parse is kept), and
    # OpenClaw's other version from its preset. The goal is the same for every runtime and version:
    # timeline and selected call in under a second.
    newer = Profile.objects.filter(name=NEWER_OPENCLAW).first() or services.profile_create(
        name=NEWER_OPENCLAW, document=dict(PRESETS_BY_KEY[NEWER_OPENCLAW].document)
    )
    others = (
        ("ai-profile", Profile.objects.filter(runtime="ai_profile").order_by("pk").first()),
        ("OpenClaw", Profile.objects.filter(runtime="openclaw").exclude(pk=newer.pk).order_by("pk").first()),
        ("OpenClaw 2026.9.6", newer),
    )
    for label, profile in others:
        assert profile is not None
        first = f"/simulate/?transcript={transcript.pk}&profile={profile.pk}"
        _forget_replays()  # compare replayed ai-profile: this is its first replay again
        out[f"simulation first view, {label}: its body (htmx; its first replay)"] = _timed(
            ok(first, **{"HX-Request": "true", "HX-Target": "sim-body"})
        )
        out[f"simulation cost panel, {label} (htmx, after the page)"] = _timed(
            ok(f"/simulate/cost/{first[10:]}&call={late}")
        )
    memo.clear()
    out["transcript page, cold (nothing kept: the stored parsed form read back)"] = _timed(
        ok(f"{page_url}?page=2")
    )
    transcript.delete()
    out.update(_heavy_openclaw(messages, user, client, others[1][1], newer))
    return out


HEAVY_SHAPE: dict[str, object] = {
    "screenshot_every": 4,
    "thinking": True,
    "model": "claude-3-7-sonnet-20250219",
}
"""A browser-heavy OpenClaw session: a screenshot in every fourth turn's tool result (replaced by history
image cleanup once old) and thinking in every assistant on a Claude 3.7 route (stripped from every
assistant but the latest): both transforms change old messages at every call."""

KNOBS = {
    "2026.7.1": ("agents.defaults.contextPruning.keepLastAssistants", (4, 5, 6)),
    "2026.9.6": ("agents.defaults.contextTokens", (150_000, 150_001, 150_002)),
}
"""A knob of each OpenClaw version and three values not simulated before (the memo would serve one)."""


def _heavy_openclaw(messages: int, user: Any, client: Any, *profiles: Any) -> dict[str, float]:
    """Both OpenClaw versions' first bodies and knob changes on the browser-heavy shape."""
    from dashboard import memo, services
    from dashboard.services.transcripts import transcript_count_all
    from simulator.synthetic import synthetic_openclaw_session

    memo.clear()
    gc.collect()
    text = synthetic_openclaw_session(messages // 4, session_id=f"heavy-{messages}", **HEAVY_SHAPE)  # type: ignore[arg-type]
    transcript = services.transcript_import(
        text=text, name=f"heavy {messages:,}", format="openclaw", user=user, copy=True
    )
    # As the task worker does after a long upload: every message counted and stored, so each cost panel
    # below is the pricing of its replay, not the counting (the first cost rows above count).
    transcript_count_all(transcript_id=transcript.pk)
    body = {"HX-Request": "true", "HX-Target": "sim-body"}
    late = _late_call(messages)
    out: dict[str, float] = {}
    for profile, version in zip(profiles, KNOBS, strict=True):
        sim = f"/simulate/?transcript={transcript.pk}&profile={profile.pk}"
        _forget_replays()
        label = f"OpenClaw {version}, screenshots and thinking"
        replayed = f"<dd>OpenClaw {version}"  # the summary's runtime: the version the row names
        out[f"simulation first view, {label}: its body (htmx; its first replay)"] = _timed(
            _get(client, sim, body, shows=(replayed,))
        )
        # Every call of this session sends old messages changed (screenshots cleaned, thinking stripped):
        # each is priced as sent, and a record made when read is made here.
        out[f"simulation cost panel, {label} (htmx, after the page; counts stored by the worker)"] = _timed(
            _get(client, f"/simulate/cost/{sim[10:]}&call={late}", {})
        )
        path, values = KNOBS[version]
        out[f"knob re-simulation, {label} (htmx partial), median of 3"] = statistics.median(
            _timed(
                _get(client, f"{sim}&knob:{path}={value}", body, (replayed, "edited knobs"), ("Not applied",))
            )
            for value in values
        )
    transcript.delete()
    memo.clear()
    return out


def _get(
    client: Any, url: str, headers: dict[str, str], shows: Sequence[str] = (), hides: Sequence[str] = ()
) -> Callable[[], None]:
    """A GET that must answer 200, its body showing every text of ``shows`` and none of ``hides`` (what a
    row claims to time: the runtime version replayed, the knob applied)."""

    def get() -> None:
        response = client.get(url, headers=headers)
        assert response.status_code == 200, (url, response.status_code)
        if shows or hides:
            text = response.content.decode()
            assert all(s in text for s in shows) and not any(h in text for h in hides), (url, shows, hides)

    return get


def run(sizes: Sequence[int] = SIZES) -> dict[int, dict[str, float]]:
    _setup()
    run_one(200)  # warm up: templates compiled, tokenizer ranks loaded, as in a running server
    results = {}
    for size in sizes:
        print(f"  dashboard pages at {size:,} messages …", flush=True)
        results[size] = run_one(size)
    return results


def report(results: dict[int, dict[str, float]]) -> list[str]:
    sizes = sorted(results)
    low, high = sizes[0], sizes[-1]
    head = " | ".join(f"{s:,} msgs" for s in sizes)
    lines = [
        "## Dashboard session pages",
        "",
        "In-process Django test client on a synthetic OpenClaw session, demo profiles (ZeroClaw as the "
        "simulated profile unless a row names another runtime, ZeroClaw beside ai-profile on compare). "
        "Every first view is a first replay (those asked before it forgotten, the parse kept as after the "
        "upload); above 5,000 messages the page is drawn at once and asks for its body, whose time is the "
        "row. A knob re-simulation changes one knob of the stored profile (its URL names that knob alone; "
        "the others keep their stored values) and replays the kept preparation. The last six rows are a "
        "browser-heavy session of the same length: a screenshot in every fourth turn's tool result, "
        "thinking in every assistant on a Claude 3.7 route (each body is checked to show the version its "
        "row names; its messages counted first, as the worker does after a long upload)."
        f" Ratio: {high:,} over {low:,} messages "
        f"(×{high // low} would be linear).",
        "",
        f"| request | {head} | ratio {high // 1000}k/{low // 1000}k |",
        "|---|" + "---:|" * (len(sizes) + 1),
    ]
    for name in results[low]:
        cells = " | ".join(ms(results[s][name]) for s in sizes)
        ratio = results[high][name] / max(results[low][name], 1e-9)
        lines.append(f"| {name} | {cells} | ×{ratio:,.1f} |")
    return lines


def main(argv: Sequence[str]) -> None:
    """``[--json] SIZES...``: the table, or (``--json``) the results as one JSON line last."""
    as_json = "--json" in argv
    sizes = tuple(int(a.replace("_", "").replace(",", "")) for a in argv if a != "--json") or SIZES
    results = run(sizes)
    if as_json:
        from simulator.replay import COMPILED

        by_size = {str(size): rows for size, rows in results.items()}
        print(json.dumps({"compiled": COMPILED.active, **by_size}))
    else:
        print("\n".join(report(results)))


def run_apart(sizes: Sequence[int], cwd: str) -> dict[int, dict[str, float]]:
    """:func:`run` in a process of its own: a fresh heap, as a server process has. Run after the replay
    benchmarks in their process, the 100,000-message pages read up to twice as slow (their leftovers weigh on
    every collection)."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.dashboard_pages", "--json", *map(str, sizes)],
        capture_output=True,
        text=True,
        check=True,
        cwd=cwd,
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    from simulator.replay import COMPILED

    if found.pop("compiled") != COMPILED.active:  # a build made or spoilt while it ran: not this run's
        raise RuntimeError(f"the pages ran with another build of the hot modules than this one ({COMPILED})")
    return {int(size): rows for size, rows in found.items()}


if __name__ == "__main__":
    main(sys.argv[1:])
