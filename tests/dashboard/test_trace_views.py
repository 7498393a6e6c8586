"""The trace panel on the simulation and transcript pages: matches, rules, strips, before/after, re-reads."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from django.urls import reverse

from dashboard import services
from dashboard.models import Profile
from tests.simulator.test_trace import _chat

pytestmark = pytest.mark.django_db

BUDGET = "knob:runtime_profiles.default.max_context_tokens"


@pytest.fixture
def setup(operator):
    transcript = services.transcript_import(
        text=_chat(10, reread_path="config.toml"), name="reread", user=operator
    )
    services.demo_profiles_ensure()
    return transcript, Profile.objects.get(runtime="zeroclaw"), Profile.objects.get(runtime="openclaw")


def _sim(transcript, profile, **params):
    query = urlencode({"transcript": transcript.pk, "profile": profile.pk, **params})
    return f"{reverse('simulation')}?{query}"


def test_the_simulation_page_counts_rereads_after_forgetting(operator_client, setup):
    transcript, zeroclaw, _ = setup
    tight = operator_client.get(_sim(transcript, zeroclaw, **{BUDGET: 4000})).content.decode()
    loose = operator_client.get(_sim(transcript, zeroclaw, **{BUDGET: 0})).content.decode()
    count = lambda body: int(re.search(r'id="reread-count">(\d+)<', body)[1])  # noqa: E731
    assert (count(tight), count(loose)) == (1, 0)


def test_a_search_lists_matches_with_the_call_and_rule_and_draws_strips(operator_client, setup):
    transcript, zeroclaw, _ = setup
    response = operator_client.get(
        _sim(transcript, zeroclaw, **{BUDGET: 4000, "find": "MUST keep"}),
        headers={"HX-Request": "true", "HX-Target": "sim-body"},
    )
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body
    assert 'id="trace-m-1"' in body
    assert "in full at calls 1–15" in body and "dropped-turn at call 16" in body
    assert "token budget 4,000" in body
    strip = re.search(r'<svg class="presence-strip".*?</svg>', body, re.S)[0]
    assert strip.count("<rect") == 2 and 'class="present-full"' in strip and 'class="present-gone"' in strip
    # The query stays in the timeline's links, so call navigation keeps the trace.
    assert "find=MUST+keep" in body


def test_a_bad_regex_is_shown_in_place_and_the_simulation_still_renders(operator_client, setup):
    transcript, zeroclaw, _ = setup
    body = operator_client.get(_sim(transcript, zeroclaw, find="a(b", regex="on")).content.decode()
    assert 'id="trace-error"' in body and "invalid regular expression" in body
    assert 'class="timeline"' in body


def test_before_after_marks_what_a_soft_trim_cut(operator, operator_client, setup):
    _, _, openclaw = setup
    transcript = services.transcript_import(text=_chat(10, result_chars=9000), name="big", user=operator)
    # The knob bar sends every knob; unset ones are left out of the edited document.
    knobs = {
        "knob:agents.defaults.contextPruning.mode": "cache-ttl",
        "knob:agents.defaults.contextPruning.softTrimRatio": 0.01,
        "knob:model.contextWindow": 40000,
        # An hour between calls: each attempt after the first finds the cache TTL expired and prunes.
        "gap": 3600,
    }
    first = operator_client.get(_sim(transcript, openclaw, **knobs, find="HEAD-1 ")).content.decode()
    assert (
        "soft-trimmed at call 7" in first and "match kept in the head" in first and "before / after" in first
    )
    assert 'class="before-after"' not in first
    opened = operator_client.get(_sim(transcript, openclaw, **knobs, find="HEAD-1 ", open=7)).content.decode()
    assert 'class="before-after"' in opened and "as sent at call 7" in opened
    assert re.search(r'<del class="cut">x+', opened)
    assert re.search(r'<ins class="added">[^<]*Tool result trimmed', opened)


def test_the_transcript_page_traces_through_a_chosen_profile(operator_client, setup):
    transcript, zeroclaw, _ = setup
    url = reverse("transcript-detail", args=[transcript.pk])
    response = operator_client.get(
        f"{url}?{urlencode({'profile': zeroclaw.pk, 'find': 'c3'})}",
        headers={"HX-Request": "true", "HX-Target": "trace"},
    )
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body and 'id="trace"' in body
    assert 'id="trace-m-14"' in body and 'id="trace-m-15"' in body
    full = operator_client.get(url).content.decode()
    assert 'id="trace-find"' in full


def test_estimates_chart_flags_a_session_the_provider_counted_far_higher(operator, operator_client, setup):
    from tests.support import REPO_DIR

    _, zeroclaw, _ = setup
    text = (REPO_DIR / "tests/fixtures/transcripts/claude_code_loglines.json").read_text(encoding="utf-8")
    transcript = services.transcript_import(text=text, name="claude", user=operator)
    page = operator_client.get(_sim(transcript, zeroclaw)).content.decode()
    assert reverse("simulation-estimates") in page  # loaded after the page
    url = (
        reverse("simulation-estimates")
        + "?"
        + urlencode({"transcript": transcript.pk, "profile": zeroclaw.pk})
    )
    body = operator_client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert 'class="flag err" id="estimate-flag"' in body
    assert "system prompt and tool schemas" in body and "no system prompt is recorded" in body
    assert body.count('class="dot-reported"') == 3
    assert 'class="series-o200k"' in body and 'class="series-estimate"' in body
