"""The trace on the API: the CLI's `trace --json` answer for a stored transcript and profile; refusals."""

from __future__ import annotations

import json

import pytest
from ninja.testing import TestClient

from dashboard import services
from dashboard.api import api as ninja_api
from simulator.cli import main
from tests.simulator.test_trace import _chat

pytestmark = pytest.mark.django_db

TIGHT = {
    "trimscope": {"runtime": "zeroclaw", "version": "documented"},
    "runtime_profiles": {"main": {"max_context_tokens": 4000}},
}


@pytest.fixture
def api(operator):
    _, secret = services.api_token_create(user=operator, name="ci")
    return TestClient(ninja_api, headers={"Authorization": f"Bearer {secret}"})


@pytest.fixture
def stored(operator):
    text = _chat(10, reread_path="config.toml")
    transcript = services.transcript_import(text=text, name="reread", user=operator)
    return text, transcript, services.profile_create(name="tight", document=TIGHT)


def _trace(api, transcript, profile, **params):
    query = {"transcript_id": transcript.pk, "profile_id": profile.pk, **params}
    return api.get("/simulations/trace?" + "&".join(f"{k}={v}" for k, v in query.items()))


@pytest.mark.parametrize(("find", "regex"), [("config.toml", False), ("MUST|c3", True)])
def test_the_trace_answers_what_the_cli_prints(api, stored, tmp_path, capsys, find, regex):
    text, transcript, profile = stored
    session, config = tmp_path / "session.json", tmp_path / "tight.json"
    session.write_text(text, encoding="utf-8")
    config.write_text(json.dumps(TIGHT), encoding="utf-8")
    args = ["trace", str(session), "--profile", str(config), "--find", find, "--json"]
    assert main([*args, "--regex"] if regex else args) == 0
    printed = json.loads(capsys.readouterr().out)
    response = _trace(api, transcript, profile, find=find.replace("|", "%7C"), regex=str(regex).lower())
    assert response.status_code == 200
    assert response.json() == printed
    assert printed["matches"] and printed["rereads"]  # the comparison is not between two empty answers


def test_a_match_that_left_names_its_call_and_rule_and_a_reread_is_counted(api, stored):
    _, transcript, profile = stored
    body = _trace(api, transcript, profile, find="MUST keep").json()
    [match] = body["matches"]
    assert (match["message_index"], match["role"], match["in_context_calls"]) == (1, "user", [1, 15])
    assert (match["left_at_call"], match["rule"]) == (16, "dropped-turn")
    assert [(r["tool"], r["again_call"], r["left_at_call"]) for r in body["rereads"]] == [("read", 19, 16)]


def test_a_bad_regex_is_a_400_naming_find_and_the_problem(api, stored):
    _, transcript, profile = stored
    response = _trace(api, transcript, profile, find="a(b", regex="true")
    assert response.status_code == 400
    error = response.json()
    assert error["message"].startswith("find 'a(b': invalid regular expression: missing )")
    assert error["extra"]["field"] == "find" and "position 1" in error["extra"]["problem"]


@pytest.mark.parametrize(
    ("params", "status", "says"),
    [
        ({"find": "%20"}, 400, "empty query"),
        ({"transcript_id": 999, "find": "x"}, 404, "no transcript with id 999"),
        ({"profile_id": 999, "find": "x"}, 404, "no profile with id 999"),
        ({}, 422, "find"),
        ({"find": "x", "assumed_gap_seconds": -5}, 422, "assumed_gap_seconds"),
    ],
)
def test_bad_trace_parameters_are_4xx_naming_the_problem(api, stored, params, status, says):
    _, transcript, profile = stored
    query = {"transcript_id": transcript.pk, "profile_id": profile.pk, **params}
    response = api.get("/simulations/trace?" + "&".join(f"{k}={v}" for k, v in query.items()))
    assert response.status_code == status and says in response.json()["message"]


def test_an_openclaw_trace_replays_at_the_assumed_gap(api, operator):
    transcript = services.transcript_import(text=_chat(12, result_chars=9000), name="big", user=operator)
    profile = services.profile_create(
        name="pruning",
        document={
            "trimscope": {"runtime": "openclaw"},
            "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "softTrimRatio": 0.01}}},
            "model": {"contextWindow": 40000},
        },
    )
    warm = _trace(api, transcript, profile, find="HEAD-1%20").json()["matches"][0]
    cold = _trace(api, transcript, profile, find="HEAD-1%20", assumed_gap_seconds=3600).json()["matches"][0]
    assert warm["left_at_call"] is None  # calls 30 s apart by default: inside the TTL, nothing pruned
    assert (cold["rule"], cold["survived"]) == ("soft-trimmed", "head")


def test_the_trace_asks_for_authentication_like_every_endpoint(client, stored):
    _, transcript, profile = stored
    query = f"transcript_id={transcript.pk}&profile_id={profile.pk}&find=x"
    response = client.get(f"/api/simulations/trace?{query}")
    assert response.status_code == 401 and "authentication required" in response.json()["message"]
