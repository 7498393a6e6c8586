"""The simulation page of a long session: the timeline and the selected call first, the cost after them;
values derived from a whole replay are kept beside it, and no page reads the transcript's source text."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from dashboard import memo, selectors, services
from dashboard.selectors import trace as trace_selectors
from dashboard.selectors import transcript_pages
from dashboard.views import costs, simulations
from tests.support import tool_heavy_chat

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(operator):
    memo.clear()
    transcript = services.transcript_import(text=tool_heavy_chat(40), name="chat", user=operator)
    tight = services.profile_create(
        name="tight",
        document={
            "trimscope": {"runtime": "zeroclaw", "version": "documented"},
            "runtime_profiles": {"default": {"max_context_tokens": 1500}},
            "provider": {"model": "gpt-4o", "context_window": 128_000},
        },
    )
    return transcript, tight


def _sim(transcript, profile, **params):
    query = "".join(f"&{k}={v}" for k, v in params.items())
    return f"{reverse('simulation')}?transcript={transcript.pk}&profile={profile.pk}{query}"


def test_a_long_sessions_page_asks_for_its_cost_after_it_is_drawn(operator_client, setup, monkeypatch):
    transcript, tight = setup
    monkeypatch.setattr(simulations, "COST_INLINE_MESSAGES", 10)  # this session counts as long
    operator_client.get(_sim(transcript, tight, call=30), headers={"HX-Request": "true"})  # replayed
    body = operator_client.get(_sim(transcript, tight, call=30)).content.decode()
    assert 'id="cost-pending"' in body and 'class="cost-strip"' not in body
    loader = re.search(r'<section class="card cost" id="cost"[^>]*hx-get="([^"]+)"', body)
    assert loader is not None and "call=30" in loader.group(1)
    assert re.search(r'id="timeline-h"', body) and "Context as sent at call 30" in body
    assert re.search(r'<dd id="reread-count"><span class="muted small">counting…', body)


def test_the_cost_asked_for_later_is_the_cost_drawn_inline_for_a_short_session(
    operator_client, setup, monkeypatch
):
    transcript, tight = setup
    inline = operator_client.get(_sim(transcript, tight, call=30)).content.decode()
    total = re.search(r'id="cost-total">(\$[\d.]+)<', inline)
    call_price = re.search(r'id="call-cost">\s*<dt>price</dt><dd class="num">(\$[\d.]+)<', inline)
    assert total is not None and call_price is not None
    # The panel reads the call's record, not its view (tens of thousands of rows for a late call).
    monkeypatch.setattr("dashboard.selectors.simulations.call_view", lambda *a, **k: pytest.fail("call view"))
    later = operator_client.get(
        f"{reverse('simulation-cost')}?transcript={transcript.pk}&profile={tight.pk}&call=30",
        headers={"HX-Request": "true"},
    ).content.decode()
    assert f'id="cost-total">{total.group(1)}<' in later
    assert 'id="call-cost-slot" hx-swap-oob="true"' in later
    assert f'<dt>price</dt><dd class="num">{call_price.group(1)}<' in later
    rereads = re.search(r'<dd id="reread-count">(\d+)</dd>', inline)
    assert rereads is not None
    assert f'<dd id="reread-count" hx-swap-oob="true">{rereads.group(1)}</dd>' in later


def test_another_call_does_not_load_the_source_text_or_parse_again(operator_client, setup, monkeypatch):
    transcript, tight = setup
    operator_client.get(_sim(transcript, tight))
    monkeypatch.setattr(
        "dashboard.selectors.transcripts.parse_transcript",
        lambda *a, **k: pytest.fail("parsed again"),
    )
    with CaptureQueriesContext(connection) as queries:
        response = operator_client.get(_sim(transcript, tight, call=35))
    assert response.status_code == 200 and "Context as sent at call 35" in response.content.decode()
    assert not [q["sql"] for q in queries.captured_queries if "transcriptsource" in q["sql"].lower()]


def test_re_reads_are_walked_once_per_replay_not_per_call_shown(operator_client, setup, monkeypatch):
    transcript, tight = setup
    operator_client.get(_sim(transcript, tight, call=3))
    monkeypatch.setattr(trace_selectors, "rereads", lambda *a: pytest.fail("walked again"))
    assert operator_client.get(_sim(transcript, tight, call=9)).status_code == 200


def test_a_late_calls_o200k_sums_kept_counts_after_its_first_request(operator_client, setup, monkeypatch):
    transcript, tight = setup
    url = f"{reverse('simulation-tokens')}?transcript={transcript.pk}&profile={tight.pk}&call=38"
    first = operator_client.get(url).content.decode()
    counts = memo.MESSAGE_COUNTS.get(memo.TranscriptKey(transcript.sha256, transcript.format))
    # call 38 is the second reply of turn 19 (#76): the messages before it are counted, not the 161
    assert counts is not None and counts.counted == 76
    monkeypatch.setattr(transcript_pages, "tiktoken_counts", lambda *a, **k: pytest.fail("counted again"))
    assert operator_client.get(url).content.decode() == first


def test_the_knob_bar_shows_re_simulation_progress_with_an_estimate(operator_client, setup):
    transcript, tight = setup
    memo.REPLAY_RATES.record("zeroclaw", 2_000, 1.0)  # 0.5 ms per message on this server
    body = operator_client.get(_sim(transcript, tight)).content.decode()
    form = re.search(r'<form id="sim-controls"[^>]*>', body)
    assert form is not None and 'hx-indicator="#sim-progress, #sim-body"' in form.group(0)
    progress = re.search(r'<p id="sim-progress"[^>]*>(.*?)</p>', body, re.S)
    assert progress is not None
    text = re.sub(r"\s+", " ", progress.group(1))
    assert "Re-simulating 161 messages" in text
    assert "about 0.1 s, an estimate from this server's latest ZeroClaw replay" in text


def test_the_cost_model_reads_the_kept_counts_which_equal_its_own(operator_client, setup):
    from simulator import TranscriptTokens

    transcript, _ = setup
    kept = transcript_pages.transcript_tokens(transcript=transcript)
    assert kept == TranscriptTokens.of(selectors.transcript_parsed(transcript=transcript))
    assert transcript_pages.transcript_tokens(transcript=transcript) is kept


def test_a_long_sessions_comparison_asks_for_its_costs_after_it_is_drawn(operator_client, setup, monkeypatch):
    from dashboard.views import compare

    transcript, tight = setup
    other = services.profile_create(name="loose", document={"trimscope": {"runtime": "as_recorded"}})
    url = f"{reverse('compare')}?transcript={transcript.pk}&profiles={tight.pk},{other.pk}"
    short = operator_client.get(url).content.decode()
    total = re.search(r"<td>tight</td><td class=\"num\">(\$[\d.]+)</td>", short)
    assert total is not None
    monkeypatch.setattr(compare, "COST_INLINE_MESSAGES", 10)
    monkeypatch.setattr(trace_selectors, "estimate_check", lambda *a, **k: pytest.fail("counted"))
    body = operator_client.get(url).content.decode()
    assert 'id="compare-cost-pending"' in body and "cost-cell" not in body and "o200k · " not in body
    loader = re.search(r'id="compare-cost" hx-get="([^"]+)"', body)
    assert loader is not None
    later = operator_client.get(loader.group(1).replace("&amp;", "&")).content.decode()
    assert f'<td>tight</td><td class="num">{total.group(1)}</td>' in later


def test_a_session_over_the_pricing_limit_says_so_instead_of_pricing(operator_client, setup, settings):
    transcript, tight = setup
    settings.TRIMSCOPE_COST_MAX_MESSAGES = 100  # the session has 161 messages
    body = operator_client.get(_sim(transcript, tight, call=30)).content.decode()
    refused = re.search(r'id="cost-refused">([^<]+)<', body)
    assert refused is not None
    assert refused.group(1).startswith("this session has 161 messages; sessions over 100 are not priced")
    assert "cost-pending" not in body and "cost-strip" not in body
    assert re.search(r'<dd id="reread-count">\d+</dd>', body) or "counting…" in body
    later = operator_client.get(
        f"{reverse('simulation-cost')}?transcript={transcript.pk}&profile={tight.pk}&call=30"
    ).content.decode()
    assert 'id="cost-refused">this session has 161 messages' in later
    other = services.profile_create(name="loose", document={"trimscope": {"runtime": "as_recorded"}})
    compare = operator_client.get(
        f"{reverse('compare')}?transcript={transcript.pk}&profiles={tight.pk},{other.pk}"
    ).content.decode()
    assert 'id="compare-cost-refused">this session has 161 messages' in compare


def test_a_long_sessions_first_replay_draws_the_page_at_once_and_asks_for_the_body(
    operator_client, setup, monkeypatch
):
    transcript, tight = setup
    monkeypatch.setattr(simulations, "COST_INLINE_MESSAGES", 10)
    memo.REPLAY_RATES.record("zeroclaw", 2_000, 2.0)  # 1 ms per message to replay
    memo.PREPARE_RATES.record("zeroclaw", 2_000, 4.0)  # and 2 ms to prepare: 0.483 s for a first replay
    url = _sim(transcript, tight, call=30)
    shell = operator_client.get(url).content.decode()
    assert 'id="sim-controls"' in shell and 'id="timeline-h"' not in shell
    pending = re.search(r'<div id="sim-body" class="card" hx-get="([^"]+)" hx-trigger="load"', shell)
    assert pending is not None and pending.group(1).replace("&amp;", "&") == url
    status = re.sub(r"\s+", " ", re.search(r'id="sim-first-replay"[^>]*>(.*?)</p>', shell, re.S).group(1))
    assert "Replaying 161 messages through tight for the first time" in status
    assert "about 0.5 s, an estimate from this server's latest ZeroClaw replay" in status
    # The knob bar's estimate is a replay alone: the first replay keeps the preparation.
    assert "a new knob value is a new replay: about 0.2 s" in re.sub(r"\s+", " ", shell)
    assert not selectors.simulation_result_kept(
        transcript=transcript, profile=selectors.profile_domain(profile=tight)
    )
    body = operator_client.get(url, headers={"HX-Request": "true", "HX-Target": "sim-body"}).content.decode()
    assert body.lstrip().startswith('<div id="sim-body" data-call="30">') and 'id="timeline-h"' in body
    # Kept now: the next full view is drawn whole.
    assert 'id="timeline-h"' in operator_client.get(url).content.decode()


def test_a_long_sessions_first_comparison_draws_the_page_at_once_and_asks_for_the_body(
    operator_client, setup, monkeypatch
):
    from dashboard.views import compare

    transcript, tight = setup
    other = services.profile_create(
        name="ai", document={"trimscope": {"runtime": "ai_profile"}, "max_tokens": 1024}
    )
    monkeypatch.setattr(compare, "COST_INLINE_MESSAGES", 10)
    memo.REPLAY_RATES.record("zeroclaw", 2_000, 2.0)  # 1 ms per message: 0.161 s
    memo.REPLAY_RATES.record("ai_profile", 1_000, 2.0)  # 2 ms per message: 0.322 s
    memo.PREPARE_RATES.record("zeroclaw", 2_000, 0.2)  # 0.1 ms per message: 0.016 s
    memo.PREPARE_RATES.record("ai_profile", 1_000, 0.1)  # 0.016 s
    url = f"{reverse('compare')}?transcript={transcript.pk}&profiles={tight.pk},{other.pk}"
    shell = operator_client.get(url).content.decode()
    assert 'id="sum-h"' not in shell and '<select name="profiles">' in shell
    pending = re.search(r'<div id="compare-body" hx-get="([^"]+)" hx-trigger="load"', shell)
    assert pending is not None and pending.group(1).replace("&amp;", "&") == url
    status = re.sub(r"\s+", " ", re.search(r'id="compare-first-replay"[^>]*>(.*?)</p>', shell, re.S).group(1))
    assert "Replaying 161 messages through 2 profiles for the first time" in status
    assert "about 0.5 s, an estimate from this server's latest replays" in status
    body = operator_client.get(url, headers={"HX-Request": "true", "HX-Target": "compare-body"}).content
    text = body.decode()
    assert text.lstrip().startswith('<div id="compare-body">') and 'id="sum-h"' in text
    assert "<select" not in text  # the body alone, not a second page inside the first
    # Both replays are kept now: the next full view is drawn whole.
    assert 'id="sum-h"' in operator_client.get(url).content.decode()


def test_a_replay_times_preparing_and_replaying_apart(operator_client, setup, monkeypatch):
    transcript, tight = setup
    monkeypatch.setattr(memo.ReplayRates, "MIN_MESSAGES", 1)
    assert operator_client.get(_sim(transcript, tight)).status_code == 200
    prepared, replayed = memo.PREPARE_RATES.get("zeroclaw"), memo.REPLAY_RATES.get("zeroclaw")
    assert prepared is not None and replayed is not None
    assert selectors.prepared_runtimes(transcript=transcript) == frozenset({"zeroclaw"})
    # A knob change replays the kept preparation: only the replay rate is timed again.
    memo.PREPARE_RATES.clear()
    knob = "knob:runtime_profiles.default.max_history_messages=7"
    assert operator_client.get(f"{_sim(transcript, tight)}&{knob}").status_code == 200
    assert memo.PREPARE_RATES.get("zeroclaw") is None and memo.REPLAY_RATES.get("zeroclaw") is not None


def test_a_knob_change_prices_its_replay_against_the_baseline_already_made(
    operator_client, setup, monkeypatch
):
    from dashboard.selectors import simulations as simulation_selectors

    transcript, tight = setup
    made = []
    maker = simulation_selectors.recorded_baseline
    monkeypatch.setattr(
        simulation_selectors, "recorded_baseline", lambda *a, **k: made.append(k) or maker(*a, **k)
    )
    cost = f"{reverse('simulation-cost')}?transcript={transcript.pk}&profile={tight.pk}&call=30"
    first = operator_client.get(cost).content.decode()
    knob = "knob:runtime_profiles.default.max_context_tokens=1400"
    changed = operator_client.get(f"{cost}&{knob}").content.decode()
    assert 'id="cost-total"' in changed and changed != first  # another replay, priced
    assert len(made) == 1  # against the one baseline
    assert 'id="cost-total"' in operator_client.get(f"{cost}&{knob}&ttl=1h").content.decode()
    assert [k["ttl"] for k in made] == ["5m", "1h"]  # another lifetime is another baseline


def test_a_short_session_whose_calls_change_many_messages_asks_for_its_cost_after_the_page(
    operator_client, setup, monkeypatch
):
    transcript, tight = setup
    monkeypatch.setattr(costs, "COST_INLINE_CHANGED", -1)  # any change at all counts as many
    body = operator_client.get(_sim(transcript, tight, call=30)).content.decode()
    assert 'id="cost-pending"' in body and 'class="cost-strip"' not in body
    other = services.profile_duplicate(profile=tight, name="tight again")
    compare_url = f"{reverse('compare')}?transcript={transcript.pk}&profiles={tight.pk},{other.pk}"
    body = operator_client.get(compare_url).content.decode()
    assert 'id="compare-cost-pending"' in body and "cost-cell" not in body


def _calls(*fated_lengths: tuple[int, ...]) -> SimpleNamespace:
    return SimpleNamespace(
        calls=[
            SimpleNamespace(fated=[SimpleNamespace(indices=range(n)) for n in lengths])
            for lengths in fated_lengths
        ]
    )


def test_the_changed_messages_are_summed_over_every_call_and_replay(monkeypatch):
    monkeypatch.setattr(costs, "COST_INLINE_CHANGED", 10)
    short = SimpleNamespace(message_count=100)
    assert costs.cost_inline(short, [_calls((3, 2), (5,))], messages=1000)  # 10: not over
    assert not costs.cost_inline(short, [_calls((3, 2), (5,), (1,))], messages=1000)
    assert not costs.cost_inline(short, [_calls((6,)), _calls((5,))], messages=1000)  # two replays
    assert costs.cost_inline(short, [_calls((), ())], messages=1000)
    assert not costs.cost_inline(SimpleNamespace(message_count=1001), [_calls()], messages=1000)
