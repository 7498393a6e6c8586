"""Knob edits carried in a URL: a knob the URL does not name keeps its stored value.

The simulation screen's knob bar sends every knob, but a URL may name only the ones changed: a link
written by hand, a bookmark from before a knob was added, a link a script builds. Unsetting the knobs it
leaves out would replay another profile than the one shown: the runtime version back at its default
(OpenClaw 2026.9.6 replayed as 2026.7.1), the route's window gone (a budget bound by the 32,000 fallback).
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from dashboard import forms, services
from dashboard.models import Profile
from simulator.presets import PRESETS_BY_KEY
from tests.support import tool_heavy_chat

pytestmark = pytest.mark.django_db

PRUNING = "runtime_profiles.default.history_pruning.enabled"
CAP = "runtime_profiles.default.max_history_messages"


@pytest.fixture
def transcript(operator):
    return services.transcript_import(text=tool_heavy_chat(12), name="chat", user=operator)


@pytest.fixture
def newer_openclaw(db):
    return services.profile_create(
        name="openclaw-2026.9.6", document=dict(PRESETS_BY_KEY["openclaw-2026.9.6"].document)
    )


@pytest.fixture
def pruning_on(db):
    return services.profile_create(
        name="pruning on",
        document={
            "trimscope": {"runtime": "zeroclaw", "version": "documented"},
            "runtime_profiles": {
                "default": {"max_context_tokens": 16_000, "history_pruning": {"enabled": True}}
            },
            "provider": {"model": "gpt-4o", "context_window": 128_000},
        },
    )


def _body(client, transcript, profile, query: str) -> str:
    url = f"{reverse('simulation')}?transcript={transcript.pk}&profile={profile.pk}&{query}"
    response = client.get(url, headers={"HX-Request": "true", "HX-Target": "sim-body"})
    assert response.status_code == 200
    return response.content.decode()


def _runtime(body: str) -> str:
    return re.search(r"<dt>Runtime</dt><dd>([^<]+)", body)[1].strip()


def test_one_knob_in_the_url_keeps_the_stored_version(operator_client, transcript, newer_openclaw):
    stored = _body(operator_client, transcript, newer_openclaw, "")
    edited = _body(operator_client, transcript, newer_openclaw, "knob:agents.defaults.contextTokens=150000")
    assert _runtime(stored) == _runtime(edited) == "OpenClaw 2026.9.6"
    assert "edited knobs" in edited
    document = forms.simulation_document(
        profile=newer_openclaw, knob_values={"agents.defaults.contextTokens": "150000"}
    )
    assert document["trimscope"] == {"runtime": "openclaw", "version": "2026.9.6"}
    assert document["agents"]["defaults"]["contextTokens"] == 150_000


def test_the_version_knob_still_changes_the_version(operator_client, transcript, newer_openclaw):
    body = _body(operator_client, transcript, newer_openclaw, "knob:trimscope.version=2026.7.1")
    assert _runtime(body) == "OpenClaw 2026.7.1"


def test_one_knob_in_the_url_keeps_the_other_stored_knobs(transcript, pruning_on):
    document = forms.simulation_document(profile=pruning_on, knob_values={CAP: "7"})
    default = document["runtime_profiles"]["default"]
    assert default["max_history_messages"] == 7
    assert default["max_context_tokens"] == 16_000
    assert default["history_pruning"]["enabled"] is True
    assert document["provider"] == {"model": "gpt-4o", "context_window": 128_000}


@pytest.mark.parametrize(
    ("sent", "enabled"),
    [
        (["off"], False),  # the knob bar's hidden input alone: an unchecked box
        (["off", "on"], True),  # the hidden input, then the checked box: the last value is read
        (["on"], True),
        (["false"], False),
        (["FALSE"], False),
        (["0"], False),
        (["true"], True),
        (["1"], True),
        ([""], False),
    ],
)
def test_a_checkbox_knob_reads_what_the_url_says(operator_client, transcript, pruning_on, sent, enabled):
    query = "&".join(f"knob:{PRUNING}={value}" for value in sent)
    body = _body(operator_client, transcript, pruning_on, query)
    assert "Not applied" not in body and "edited knobs" in body
    # Saved as a new profile from the same values: what the replay above was given.
    save = re.search(r'<input type="text" name="name" value="([^"]+)"', body)[1]
    response = operator_client.post(
        reverse("simulation-save"),
        {"transcript": transcript.pk, "profile": pruning_on.pk, f"knob:{PRUNING}": sent, "name": save},
    )
    assert response.status_code == 303
    saved = Profile.objects.get(name=save).settings["runtime_profiles"]["default"]
    assert saved["history_pruning"]["enabled"] is enabled
    assert saved["max_context_tokens"] == 16_000  # the knob the form left out kept


def test_a_checkbox_knob_with_a_word_it_cannot_take_is_refused_by_name(
    operator_client, transcript, pruning_on
):
    # "false" once read as on: any value of a checkbox did. A word that is no switch is named, not guessed.
    body = _body(operator_client, transcript, pruning_on, f"knob:{PRUNING}=maybe")
    error = re.search(r'id="knob-error">([^<]+)', body)[1]
    assert "Not applied" in error and "history_pruning" in error


def test_the_knob_bar_sends_each_checkbox_as_off_then_on(operator_client, transcript, pruning_on):
    page = operator_client.get(
        f"{reverse('simulation')}?transcript={transcript.pk}&profile={pruning_on.pk}"
    ).content.decode()
    hidden = f'<input type="hidden" name="knob:{PRUNING}" value="off">'
    box = f'<input class="knob-input" type="checkbox" name="knob:{PRUNING}" checked>'
    assert hidden + box in page
