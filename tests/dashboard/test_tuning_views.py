"""Tuning in place: an invalid knob keeps the other edits, edits can be saved as a new profile and
carried into a comparison."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from django.urls import reverse

from dashboard import services
from dashboard.models import Profile
from tests.support import tool_heavy_chat

pytestmark = pytest.mark.django_db

BUDGET = "knob:runtime_profiles.default.max_context_tokens"
CAP = "knob:runtime_profiles.default.max_history_messages"


@pytest.fixture
def setup(operator):
    transcript = services.transcript_import(text=tool_heavy_chat(12), name="chat", user=operator)
    services.demo_profiles_ensure()
    return transcript, Profile.objects.get(runtime="zeroclaw")


def _sim(transcript, profile, **params):
    return (
        f"{reverse('simulation')}?{urlencode({'transcript': transcript.pk, 'profile': profile.pk, **params})}"
    )


def _trims(body: str) -> int:
    return int(re.search(r"Calls trimmed</dt><dd>(\d+)", body)[1])


def test_an_invalid_knob_keeps_the_other_edits_and_is_named_beside_its_knob(operator_client, setup):
    transcript, zeroclaw = setup
    stored = operator_client.get(_sim(transcript, zeroclaw)).content.decode()
    capped = operator_client.get(_sim(transcript, zeroclaw, **{CAP: 2})).content.decode()
    both = operator_client.get(
        _sim(transcript, zeroclaw, **{CAP: 2, BUDGET: -5}),
        headers={"HX-Request": "true", "HX-Target": "sim-body"},
    ).content.decode()
    assert _trims(stored) == 0 < _trims(capped)
    assert _trims(both) == _trims(capped)  # the valid cap still applies
    assert "edited knobs" in both and "your other edits are applied" in both
    # The error goes beside its knob (out of band, as the knob bar is not swapped).
    slot = re.search(
        r'<span class="knob-error" id="knob-err-[a-z0-9_-]+" hx-swap-oob="true">([^<]+)</span>', both
    )
    assert slot is not None and slot[1] == "-5 is below the minimum (allowed: an integer ≥ 0)"


def test_edits_are_saved_as_a_new_profile_and_the_page_opens_it(operator_client, setup):
    transcript, zeroclaw = setup
    page = operator_client.get(_sim(transcript, zeroclaw, **{CAP: 2})).content.decode()
    assert 'id="save-edits"' in page and "Demo · ZeroClaw, 16k budget (tuned)" in page
    response = operator_client.post(
        reverse("simulation-save"),
        {
            "transcript": transcript.pk,
            "profile": zeroclaw.pk,
            CAP: "2",
            BUDGET: "-5",
            "name": "capped at two",
        },
    )
    saved = Profile.objects.get(name="capped at two")
    assert response.status_code == 303
    assert response["Location"] == f"{reverse('simulation')}?profile={saved.pk}&transcript={transcript.pk}"
    # The valid edit is stored; the invalid one kept its stored value.
    assert saved.settings["runtime_profiles"]["default"]["max_history_messages"] == 2
    assert (
        saved.settings["runtime_profiles"]["default"]["max_context_tokens"]
        == zeroclaw.settings["runtime_profiles"]["default"]["max_context_tokens"]
    )
    opened = operator_client.get(response["Location"]).content.decode()
    assert _trims(opened) == _trims(
        operator_client.get(_sim(transcript, zeroclaw, **{CAP: 2})).content.decode()
    )


def test_a_taken_name_is_refused_in_place_and_nothing_is_stored(operator_client, setup):
    transcript, zeroclaw = setup
    before = Profile.objects.count()
    response = operator_client.post(
        reverse("simulation-save"),
        {"transcript": transcript.pk, "profile": zeroclaw.pk, CAP: "2", "name": zeroclaw.name},
        headers={"HX-Request": "true"},
    )
    body = response.content.decode()
    assert response.status_code == 200 and 'id="save-error"' in body and "is already taken" in body
    assert Profile.objects.count() == before


def test_compare_with_carries_the_edits_to_the_first_profile(operator_client, setup):
    transcript, zeroclaw = setup
    page = operator_client.get(_sim(transcript, zeroclaw, **{CAP: 2})).content.decode()
    link = re.search(r'id="compare-link" href="([^"]+)"', page)[1].replace("&amp;", "&")
    assert "max_history_messages=2" in link
    openclaw = Profile.objects.get(runtime="openclaw")
    body = operator_client.get(f"{link}&profiles={openclaw.pk}").content.decode()
    assert 'id="carried-edits"' in body
    assert '<input type="hidden" name="knob:runtime_profiles.default.max_history_messages" value="2">' in body
    trims = re.findall(r'<td class="num o200k-total">[\d,]+</td><td class="num">(\d+)</td>', body)
    assert trims and int(trims[0]) == _trims(page)


def test_the_summary_window_agrees_with_the_why_panel(operator_client, setup):
    transcript, _ = setup
    openclaw = Profile.objects.get(runtime="openclaw")
    body = operator_client.get(_sim(transcript, openclaw)).content.decode()
    summary = re.search(r'id="summary-window">([\d,]+)', body)[1]
    why = re.search(r'<span class="key seg-free"></span>window ([\d,]+)', body)[1]
    assert summary == why == "40,000"


def test_a_budget_far_above_the_session_is_named_above_a_chart_scaled_to_the_data(operator_client, setup):
    transcript, zeroclaw = setup
    # 500,000 is bound by the profile's 128,000-token window (the URL names the budget alone: the stored
    # route and window stay), far above this 8,000-token session.
    body = operator_client.get(_sim(transcript, zeroclaw, **{BUDGET: 500_000})).content.decode()
    assert "↑ budget 128,000 (above the chart)" in body and "· top of chart 8,398 tokens" in body
    assert 'class="budget-line"' not in body


def test_cross_runtime_compare_has_one_o200k_column_beside_each_runtime_estimate(operator_client, setup):
    transcript, zeroclaw = setup
    ai = Profile.objects.get(runtime="ai_profile")
    query = urlencode({"transcript": transcript.pk, "profiles": f"{zeroclaw.pk},{ai.pk}"})
    url = f"{reverse('compare')}?{query}"
    body = operator_client.get(url).content.decode()
    totals = [int(t.replace(",", "")) for t in re.findall(r'class="num o200k-total">([\d,]+)<', body)]
    assert len(totals) == 2 and all(t > 0 for t in totals)
    first_row = re.search(r'<tr id="call-1".*?</tr>', body, re.S)[0]
    estimates = re.findall(
        r'<span class="num">([\d,]+)</span> <span class="muted small">est.</span>', first_row
    )
    o200k = re.findall(r'<span class="num o200k">([\d,]+)</span>', first_row)
    # Both runtimes sent the whole first request: one tokenizer counts it the same, the estimators do not.
    assert len(set(o200k)) == 1 and len(estimates) == 2 and estimates[0] != estimates[1]
