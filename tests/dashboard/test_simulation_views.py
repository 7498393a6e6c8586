"""Simulation and compare screens: state in the URL, knob edits re-run the replay, content escaped."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from dashboard import services
from dashboard.models import Profile
from tests.support import tool_heavy_chat

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(operator):
    transcript = services.transcript_import(text=tool_heavy_chat(12), name="chat", user=operator)
    services.demo_profiles_ensure()
    zeroclaw = Profile.objects.get(runtime="zeroclaw")
    openclaw = Profile.objects.get(runtime="openclaw")
    ai = Profile.objects.get(runtime="ai_profile")
    return transcript, zeroclaw, openclaw, ai


def _url(transcript, profile, **params):
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"{reverse('simulation')}?transcript={transcript.pk}&profile={profile.pk}" + (
        f"&{query}" if query else ""
    )


def test_without_a_choice_the_page_says_what_to_do(operator_client):
    body = operator_client.get(reverse("simulation")).content.decode()
    assert "Choose a transcript and a profile" in body


def test_simulation_page_shows_the_timeline_the_call_and_why(operator_client, setup):
    transcript, zeroclaw, *_ = setup
    body = operator_client.get(_url(transcript, zeroclaw)).content.decode()
    assert "<svg" in body and 'class="timeline"' in body
    assert re.search(r"Call \d+ of 24", body)
    assert "Context as sent at call" in body and "Why" in body
    assert "bound by max_context_tokens" in body


def test_knob_edit_re_runs_the_replay_and_is_in_the_url(operator_client, setup):
    transcript, zeroclaw, *_ = setup
    knob = "knob:runtime_profiles.default.max_context_tokens"
    loose = operator_client.get(
        _url(transcript, zeroclaw, **{knob: 500000}), headers={"HX-Request": "true", "HX-Target": "sim-body"}
    )
    tight = operator_client.get(
        _url(transcript, zeroclaw, **{knob: 1500}), headers={"HX-Request": "true", "HX-Target": "sim-body"}
    )
    loose_body, tight_body = loose.content.decode(), tight.content.decode()
    assert "<html" not in tight_body and 'id="sim-body"' in tight_body
    trims = lambda body: int(re.search(r"Calls trimmed</dt><dd>(\d+)", body)[1])  # noqa: E731
    assert trims(loose_body) == 0 < trims(tight_body)
    assert "edited knobs" in tight_body


def test_invalid_knob_is_named_and_the_stored_profile_still_simulates(operator_client, setup):
    transcript, zeroclaw, *_ = setup
    body = operator_client.get(
        _url(transcript, zeroclaw, **{"knob:runtime_profiles.default.max_context_tokens": -5})
    ).content.decode()
    assert "Not applied" in body and "runtime_profiles.default.max_context_tokens" in body
    assert "bound by max_context_tokens" in body


def test_call_number_is_clamped_and_each_runtime_renders(operator_client, setup):
    transcript, zeroclaw, openclaw, ai = setup
    for profile in (zeroclaw, openclaw, ai):
        response = operator_client.get(_url(transcript, profile, call=9999))
        assert response.status_code == 200
        assert "Call 24 of 24" in response.content.decode()


def test_tokenizer_count_loads_separately(operator_client, setup):
    transcript, zeroclaw, *_ = setup
    response = operator_client.get(
        f"{reverse('simulation-tokens')}?transcript={transcript.pk}&profile={zeroclaw.pk}&call=3"
    )
    numbers = [int(n.replace(",", "")) for n in re.findall(r"[\d,]+", response.content.decode())]
    assert len(numbers) == 2 and 0 < numbers[0] <= numbers[1]


def test_transcript_content_is_escaped_in_the_simulation(operator_client, operator):
    hostile = services.transcript_import(
        text=tool_heavy_chat(3, user_suffix="<script>alert(1)</script>"), name="x", user=operator
    )
    services.demo_profiles_ensure()
    profile = Profile.objects.get(runtime="zeroclaw")
    body = operator_client.get(_url(hostile, profile, call=5)).content.decode()
    assert "<script>alert(1)" not in body and "&lt;script&gt;alert(1)" in body


def test_compare_finds_the_first_difference_and_the_messages_that_differ(operator_client, setup):
    transcript, zeroclaw, openclaw, ai = setup
    tight = services.profile_create(
        name="tight", document={"runtime_profiles": {"default": {"max_context_tokens": 2000}}}
    )
    body = operator_client.get(
        f"{reverse('compare')}?transcript={transcript.pk}&profiles={tight.pk},{ai.pk},{openclaw.pk}"
    ).content.decode()
    assert "First difference at call" in body
    assert "messages whose fate differs" in body and "⊘ not sent" in body
    assert body.count('class="cell-link"') == 3 * 24


def test_compare_needs_two_profiles(operator_client, setup):
    transcript, zeroclaw, *_ = setup
    body = operator_client.get(
        f"{reverse('compare')}?transcript={transcript.pk}&profiles={zeroclaw.pk}"
    ).content.decode()
    assert "at least two profiles" in body
