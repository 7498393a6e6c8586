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
    slot = re.search(r'<span class="knob-error" id="knob-err-\d+" hx-swap-oob="true">([^<]+)</span>', both)
    assert slot is not None and slot[1] == "-5 is below the minimum (allowed: an integer ≥ 0)"
