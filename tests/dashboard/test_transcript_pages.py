"""The transcript page of a long session: one page of rows, o200k counts asked for after the page is drawn
and kept per transcript, the session's size and a first-replay estimate in the header."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from dashboard import memo, selectors, services
from dashboard.selectors import transcript_pages
from dashboard.selectors.transcript_pages import MESSAGES_PER_PAGE
from simulator import RUNTIMES, message_token_text, tiktoken_count
from tests.support import tool_heavy_chat

pytestmark = pytest.mark.django_db

TURNS = 60
"""1 system message + 4 per turn = 241 messages: three pages, turn 25 ([97, 101)) cut by the first."""


@pytest.fixture
def long_transcript(operator):
    memo.clear()
    return services.transcript_import(text=tool_heavy_chat(TURNS), name="long", user=operator)


def _ids(body: str) -> list[int]:
    return [int(i) for i in re.findall(r'class="msg[^"]*" id="m-(\d+)"', body)]


def test_the_first_page_draws_only_its_own_messages(operator_client, long_transcript):
    response = operator_client.get(reverse("transcript-detail", args=[long_transcript.pk]))
    body = response.content.decode()
    assert response.status_code == 200
    assert _ids(body) == list(range(MESSAGES_PER_PAGE))
    assert "page 1 of 3" in body


def test_a_later_page_draws_its_range_and_marks_the_turn_it_continues(operator_client, long_transcript):
    body = operator_client.get(reverse("transcript-detail", args=[long_transcript.pk]) + "?page=2").content
    text = body.decode()
    assert _ids(text) == list(range(100, 200))
    start = text.index('<article class="turn')
    first_turn = text[start : text.index("</header>", start)]
    assert "Turn 25" in first_turn and "continued from the previous page" in first_turn
    assert "1 of 4 messages" in re.sub(r"\s+", " ", first_turn)
    last = text[text.rindex('<article class="turn') :]
    assert "continues on the next page" in last  # turn 50 is [197, 201)


def test_a_page_past_the_end_shows_the_last_page(operator_client, long_transcript):
    body = operator_client.get(reverse("transcript-detail", args=[long_transcript.pk]) + "?page=99").content
    assert _ids(body.decode()) == list(range(200, 241))


def test_the_header_says_how_large_the_session_is_and_estimates_its_first_replay(
    operator_client, long_transcript
):
    body = operator_client.get(reverse("transcript-detail", args=[long_transcript.pk])).content.decode()
    assert re.search(r'id="size-messages">241<', body)
    assert re.search(r'id="size-calls">120<', body)  # two assistant replies per turn
    assert f'title="{long_transcript.size_bytes:,} bytes"' in body
    estimate = body[body.index('id="replay-estimate"') :][:800]
    # 241 messages at the benchmarks' rates: ZeroClaw 20 ms, OpenClaw 40 ms per 1,000 messages.
    assert "ZeroClaw about 0.0 s" in estimate and "OpenClaw about 0.0 s" in estimate
    assert (
        "at most 21 ms per 1,000 messages; OpenClaw 2026.9.6 takes far longer on a long session with images"
        in estimate
    )


def test_the_replay_estimate_uses_the_rate_this_server_measured(operator_client, long_transcript):
    for runtime in RUNTIMES:
        memo.REPLAY_RATES.record(runtime, 10_000, 5.0)  # 0.5 ms per message
        memo.PREPARE_RATES.record(runtime, 10_000, 15.0)  # 1.5 ms per message
    body = operator_client.get(reverse("transcript-detail", args=[long_transcript.pk])).content.decode()
    estimate = body[body.index('id="replay-estimate"') :][:800]
    assert "about 0.5 s" in estimate  # 241 × 2 ms: preparing and replaying
    assert "latest replay of each runtime on this server" in estimate


def test_rows_wait_for_their_o200k_count_and_the_page_asks_for_its_range(operator_client, long_transcript):
    body = operator_client.get(reverse("transcript-detail", args=[long_transcript.pk]) + "?page=2").content
    text = body.decode()
    assert text.count("… o200k") == MESSAGES_PER_PAGE
    counts_url = reverse("transcript-counts", args=[long_transcript.pk])
    assert f'hx-get="{counts_url}?from=100&amp;to=200"' in text


def test_the_counts_request_swaps_each_count_into_its_row(operator_client, long_transcript):
    parsed = selectors.transcript_parsed(transcript=long_transcript)
    url = reverse("transcript-counts", args=[long_transcript.pk])
    body = operator_client.get(url + "?from=100&to=104").content.decode()
    spans = re.findall(r'id="o200k-(\d+)" hx-swap-oob="true"[^>]*>([\d,]+) o200k', body)
    expected = [(i, tiktoken_count(message_token_text(parsed.messages[i]))) for i in range(100, 104)]
    assert [(int(i), int(n.replace(",", ""))) for i, n in spans] == expected
    assert expected[3][1] > 100  # #103, a tool result of ~2 KB: a real count, not a placeholder


def test_counted_rows_are_drawn_with_their_counts_and_ask_for_nothing(operator_client, long_transcript):
    url = reverse("transcript-counts", args=[long_transcript.pk])
    operator_client.get(url + "?from=0&to=100")
    body = operator_client.get(reverse("transcript-detail", args=[long_transcript.pk])).content.decode()
    assert "… o200k" not in body and "o200k-loader" not in body


def test_a_message_is_counted_once_per_transcript(operator_client, long_transcript, monkeypatch):
    url = reverse("transcript-counts", args=[long_transcript.pk])
    operator_client.get(url + "?from=0&to=50")
    counted: list[str] = []
    monkeypatch.setattr(
        transcript_pages, "tiktoken_counts", lambda texts, **_: counted.extend(texts) or [1] * len(texts)
    )
    operator_client.get(url + "?from=40&to=60")
    assert len(counted) == 10  # 50..59 only


def test_the_total_appears_once_every_message_is_counted(operator_client, long_transcript):
    url = reverse("transcript-counts", args=[long_transcript.pk])
    operator_client.get(url + "?from=0&to=241")
    body = operator_client.get(reverse("transcript-detail", args=[long_transcript.pk])).content.decode()
    parsed = selectors.transcript_parsed(transcript=long_transcript)
    total = sum(tiktoken_count(message_token_text(m)) for m in parsed.messages)
    assert f'id="o200k-total">{total:,}<' in body


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ("?from=5", "whole numbers"),
        ("?from=9&to=3", "whole numbers"),
        ("?from=a&to=3", "whole numbers"),
        ("?from=0&to=501", "at most 500"),
    ],
)
def test_a_bad_counts_range_is_a_400_that_names_the_problem(operator_client, long_transcript, query, problem):
    response = operator_client.get(reverse("transcript-counts", args=[long_transcript.pk]) + query)
    assert response.status_code == 400
    assert problem in response.content.decode()


def test_a_trace_match_anywhere_in_the_session_links_to_its_page(operator_client, long_transcript):
    services.demo_profiles_ensure()
    body = operator_client.get(
        reverse("transcript-detail", args=[long_transcript.pk]) + "?find=task 55"
    ).content.decode()
    assert "?page=3#m-221" in body  # "task 55" is the user message #221 = 1 + 4 × 55


def test_a_link_on_the_same_page_stays_a_fragment(operator_client, long_transcript):
    body = operator_client.get(reverse("transcript-detail", args=[long_transcript.pk])).content.decode()
    assert 'href="#m-3">→ result #3' in body


def test_the_detail_page_does_not_load_the_source_text(operator_client, long_transcript):
    selectors.transcript_parsed(transcript=long_transcript)  # kept, as after the upload
    with CaptureQueriesContext(connection) as queries:
        operator_client.get(reverse("transcript-detail", args=[long_transcript.pk]) + "?page=2")
    assert not [q["sql"] for q in queries.captured_queries if "transcriptsource" in q["sql"].lower()]


def test_the_source_text_is_read_when_the_parse_is_not_kept(operator_client, long_transcript):
    memo.clear()
    response = operator_client.get(reverse("transcript-detail", args=[long_transcript.pk]) + "?page=3")
    assert _ids(response.content.decode()) == list(range(200, 241))


def test_a_large_upload_streams_to_a_temporary_file_and_is_stored_whole(operator_client, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile, TemporaryUploadedFile

    from dashboard.models import Transcript
    from dashboard.views import transcripts as views

    seen: list[type] = []
    original = views._decoded

    def spy(upload):
        seen.append(type(upload))
        return original(upload)

    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024  # this transcript (~100 KB) is "large"
    text = tool_heavy_chat(50, user_suffix="ünïcödé")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(views, "_decoded", spy)
        patch.setattr(views, "UPLOAD_CHUNK_BYTES", 1000)  # chunks cut multi-byte characters
        response = operator_client.post(
            reverse("transcript-upload"),
            {"file": SimpleUploadedFile("long.json", text.encode("utf-8")), "name": "", "format": ""},
        )
    assert response.status_code == 302
    assert seen == [TemporaryUploadedFile]
    assert Transcript.objects.get(name="long.json").source.text == text


def test_a_file_that_is_not_utf8_names_the_byte_across_chunks(operator_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from dashboard.views import transcripts as views

    raw = ("é" * 700).encode("utf-8") + b"\xff" + b"tail"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(views, "UPLOAD_CHUNK_BYTES", 333)  # odd: every chunk ends inside a character
        response = operator_client.post(
            reverse("transcript-upload"), {"file": SimpleUploadedFile("bad.json", raw), "format": ""}
        )
    assert response.status_code == 422
    assert "file is not UTF-8 text (byte 1400)" in response.content.decode()


def test_the_upload_limit_defaults_to_200_mib_and_comes_from_the_environment():
    import subprocess
    import sys

    code = (
        "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'dashboard.settings');"
        " django.setup(); from django.conf import settings as s;"
        " print(s.TRIMSCOPE_MAX_UPLOAD_BYTES, s.FILE_UPLOAD_MAX_MEMORY_SIZE < s.TRIMSCOPE_MAX_UPLOAD_BYTES)"
    )
    env = {k: v for k, v in __import__("os").environ.items() if k != "TRIMSCOPE_MAX_UPLOAD_BYTES"}
    default = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert default.stdout.split() == [str(200 * 1024 * 1024), "True"]
    env["TRIMSCOPE_MAX_UPLOAD_BYTES"] = "5000000"
    chosen = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert chosen.stdout.split()[0] == "5000000"


def test_before_this_server_has_timed_a_replay_each_runtime_is_estimated_at_its_benchmark_rate():
    memo.clear()
    seconds = {e.runtime: round(e.seconds, 1) for e in transcript_pages.replay_estimates(messages=100_000)}
    assert seconds == {"zeroclaw": 1.5, "ai_profile": 1.2, "openclaw": 2.1, "as_recorded": 1.0}
    kept = transcript_pages.replay_estimates(messages=100_000, prepared=frozenset({"zeroclaw", "openclaw"}))
    # A kept preparation leaves the replay alone: what a knob change costs.
    assert {e.runtime: round(e.seconds, 1) for e in kept} == {
        "zeroclaw": 1.0,
        "ai_profile": 1.2,
        "openclaw": 1.5,
        "as_recorded": 1.0,
    }
    assert not any(e.measured for e in kept)


def test_a_first_replay_is_estimated_as_preparing_plus_replaying_at_the_rates_measured_apart():
    memo.clear()
    memo.REPLAY_RATES.record("zeroclaw", 10_000, 1.0)  # 0.1 ms per message
    estimates = {e.runtime: e for e in transcript_pages.replay_estimates(messages=100_000)}
    assert round(estimates["zeroclaw"].seconds, 1) == 10.5  # measured replay + the benchmarks' preparing
    assert not estimates["zeroclaw"].measured
    memo.PREPARE_RATES.record("zeroclaw", 10_000, 0.5)
    estimates = {e.runtime: e for e in transcript_pages.replay_estimates(messages=100_000)}
    assert round(estimates["zeroclaw"].seconds, 1) == 15.0 and estimates["zeroclaw"].measured
    knob = transcript_pages.replay_estimates(messages=100_000, prepared=frozenset({"zeroclaw"}))
    assert [round(e.seconds, 1) for e in knob if e.runtime == "zeroclaw"] == [10.0]
