"""The simulations and compare API: runs keep inputs and summaries, GET replays them, one error shape."""

from __future__ import annotations

import pytest
from ninja.testing import TestClient

from dashboard import memo, services
from dashboard.api import api as ninja_api
from dashboard.models import Profile, SimulationRun
from tests.support import tool_heavy_chat

pytestmark = pytest.mark.django_db


def _zeroclaw(max_context_tokens: int) -> dict[str, object]:
    return {
        "trimscope": {"runtime": "zeroclaw", "version": "documented"},
        "runtime_profiles": {"default": {"max_context_tokens": max_context_tokens}},
        "provider": {"model": "gpt-4o", "context_window": 128_000},
    }


@pytest.fixture
def api(operator):
    _, secret = services.api_token_create(user=operator, name="ci")
    return TestClient(ninja_api, headers={"Authorization": f"Bearer {secret}"})


@pytest.fixture
def transcript(operator):
    return services.transcript_import(text=tool_heavy_chat(8), name="chat", user=operator)


@pytest.fixture
def tight(transcript):
    return services.profile_create(name="tight", document=_zeroclaw(1500))


@pytest.fixture
def loose(transcript):
    return services.profile_create(name="loose", document=_zeroclaw(500_000))


# -- POST /simulations -------------------------------------------------------------------------------


def test_create_stores_the_run_and_returns_the_full_result(api, transcript, tight, operator):
    response = api.post(
        "/simulations", json={"transcript_id": transcript.pk, "profile_id": tight.pk, "name": "first"}
    )
    assert response.status_code == 201
    body = response.json()
    run = SimulationRun.objects.get(pk=body["id"])
    assert (run.transcript, run.profile, run.name, run.created_by) == (transcript, tight, "first", operator)
    assert run.document == tight.settings
    result = body["result"]
    assert result["profile"] == "tight" and result["runtime"] == "zeroclaw"
    assert len(result["calls"]) == 16 and {"tokens_sent", "sent", "trimmed"} <= set(result["calls"][0])
    summary = result["summary"]
    assert summary["trims"] > 0
    assert (body["calls"], body["trims"], body["total_tokens_sent"], body["overflow_failures"]) == (
        summary["calls"],
        summary["trims"],
        summary["total_tokens_sent"],
        summary["overflow_failures"],
    )
    assert (run.calls, run.trims) == (16, summary["trims"])
    assert body["created_by"] == "op" and body["profile_name"] == "tight"


def test_get_recomputes_exactly_what_post_returned(api, transcript, tight):
    created = api.post("/simulations", json={"transcript_id": transcript.pk, "profile_id": tight.pk}).json()
    # Drop the memoised parse and replay so the GET really replays from the stored text and document.
    memo.clear()
    fetched = api.get(f"/simulations/{created['id']}")
    assert fetched.status_code == 200
    assert fetched.json() == created


def test_get_replays_the_stored_document_after_the_profile_changes(api, transcript, tight):
    created = api.post("/simulations", json={"transcript_id": transcript.pk, "profile_id": tight.pk}).json()
    services.profile_update(profile=tight, name="tight", document=_zeroclaw(500_000), description="")
    assert api.get(f"/simulations/{created['id']}").json()["result"] == created["result"]
    services.profile_delete(profile=tight)
    fetched = api.get(f"/simulations/{created['id']}").json()
    assert fetched["profile_id"] is None and fetched["result"] == created["result"]


def test_inline_profile_is_simulated_and_stored_canonically(api, transcript):
    response = api.post("/simulations", json={"transcript_id": transcript.pk, "profile": _zeroclaw(1500)})
    assert response.status_code == 201
    body = response.json()
    assert body["profile_id"] is None and body["runtime"] == "zeroclaw" and body["trims"] > 0
    run = SimulationRun.objects.get(pk=body["id"])
    assert run.document["runtime_profiles"]["default"]["max_context_tokens"] == 1500
    assert api.get(f"/simulations/{body['id']}").json() == body


def test_inline_and_stored_profiles_with_the_same_document_give_the_same_calls(api, transcript, tight):
    by_id = api.post("/simulations", json={"transcript_id": transcript.pk, "profile_id": tight.pk}).json()
    inline = api.post("/simulations", json={"transcript_id": transcript.pk, "profile": tight.settings}).json()
    assert by_id["result"]["calls"] == inline["result"]["calls"]


def test_bad_inline_profile_is_422_naming_the_field_and_stores_nothing(api, transcript):
    doc = {"runtime_profiles": {"default": {"max_context_tokens": -5}}}
    response = api.post("/simulations", json={"transcript_id": transcript.pk, "profile": doc})
    assert response.status_code == 422
    body = response.json()
    assert body["extra"]["field"] == "runtime_profiles.default.max_context_tokens"
    assert body["extra"]["allowed"] == "an integer ≥ 0"
    assert SimulationRun.objects.count() == 0


@pytest.mark.parametrize("both", [True, False], ids=["both", "neither"])
def test_both_or_neither_profile_is_422(api, transcript, tight, both):
    payload: dict[str, object] = {"transcript_id": transcript.pk}
    if both:
        payload |= {"profile_id": tight.pk, "profile": _zeroclaw(1500)}
    response = api.post("/simulations", json=payload)
    assert response.status_code == 422
    assert response.json()["extra"]["field"] == "profile"
    assert "allowed" in response.json()["extra"]
    assert SimulationRun.objects.count() == 0


def test_unknown_transcript_or_profile_is_404_with_the_error_shape(api, transcript, tight):
    missing_transcript = api.post("/simulations", json={"transcript_id": 999, "profile_id": tight.pk})
    missing_profile = api.post("/simulations", json={"transcript_id": transcript.pk, "profile_id": 999})
    for response in (missing_transcript, missing_profile):
        assert response.status_code == 404
        assert set(response.json()) == {"message", "extra"}
    assert "transcript" in missing_transcript.json()["message"]
    assert "profile" in missing_profile.json()["message"]


def test_missing_body_field_is_422(api):
    response = api.post("/simulations", json={"profile_id": 1})
    assert response.status_code == 422
    assert "transcript_id" in response.json()["message"]


# -- list, get, delete ---------------------------------------------------------------------------------


def test_list_is_newest_first_and_summary_only(api, transcript, tight, loose):
    first = api.post("/simulations", json={"transcript_id": transcript.pk, "profile_id": tight.pk}).json()
    second = api.post("/simulations", json={"transcript_id": transcript.pk, "profile_id": loose.pk}).json()
    listed = api.get("/simulations")
    assert listed.status_code == 200
    rows = listed.json()
    assert [r["id"] for r in rows] == [second["id"], first["id"]]
    assert all("result" not in r for r in rows)
    assert rows[0]["trims"] == 0 and rows[1]["trims"] > 0


def test_list_filters_by_transcript(api, transcript, tight, operator):
    other = services.transcript_import(text=tool_heavy_chat(2), name="other", user=operator)
    api.post("/simulations", json={"transcript_id": transcript.pk, "profile_id": tight.pk})
    api.post("/simulations", json={"transcript_id": other.pk, "profile_id": tight.pk})
    rows = api.get(f"/simulations?transcript_id={other.pk}").json()
    assert [r["transcript_id"] for r in rows] == [other.pk]


def test_delete_removes_the_run(api, transcript, tight):
    created = api.post("/simulations", json={"transcript_id": transcript.pk, "profile_id": tight.pk}).json()
    assert api.delete(f"/simulations/{created['id']}").status_code == 204
    assert api.get(f"/simulations/{created['id']}").status_code == 404
    assert api.delete(f"/simulations/{created['id']}").status_code == 404
    assert SimulationRun.objects.count() == 0


def test_unknown_run_is_404_with_the_error_shape(api):
    response = api.get("/simulations/12345")
    assert response.status_code == 404
    assert set(response.json()) == {"message", "extra"}


def test_deleting_a_transcript_deletes_its_runs(api, transcript, tight):
    created = api.post("/simulations", json={"transcript_id": transcript.pk, "profile_id": tight.pk}).json()
    assert api.delete(f"/transcripts/{transcript.pk}").status_code == 204
    assert not SimulationRun.objects.filter(pk=created["id"]).exists()


def test_deleting_a_profile_keeps_its_runs(transcript, tight, operator):
    run, _ = services.simulation_create(
        transcript=transcript, profile_row=tight, document=None, user=operator
    )
    services.profile_delete(profile=tight)
    run.refresh_from_db()
    assert run.profile is None and run.profile_name == "tight"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/simulations"),
        ("post", "/api/simulations"),
        ("get", "/api/simulations/1"),
        ("delete", "/api/simulations/1"),
        ("post", "/api/compare"),
    ],
)
def test_missing_auth_is_401_with_the_error_shape(client, method, path):
    response = getattr(client, method)(path, data={}, content_type="application/json")
    assert response.status_code == 401
    assert set(response.json()) == {"message", "extra"}


def test_session_auth_works_for_the_browser(operator_client, transcript, tight):
    response = operator_client.post(
        "/api/simulations",
        data={"transcript_id": transcript.pk, "profile_id": tight.pk},
        content_type="application/json",
    )
    assert response.status_code == 201


# -- POST /compare -------------------------------------------------------------------------------------


def test_compare_finds_where_a_tight_budget_first_trims(api, transcript, tight, loose):
    response = api.post(
        "/compare", json={"transcript_id": transcript.pk, "profile_ids": [loose.pk, tight.pk]}
    )
    assert response.status_code == 200
    body = response.json()
    rows = body["rows"]
    assert len(rows) == 16 and body["profile_ids"] == [loose.pk, tight.pk]
    first_trim = next(r["number"] for r in rows if r["trimmed"][1])
    assert not any(r["trimmed"][0] for r in rows)
    assert body["first_difference"] == first_trim
    assert all(not r["differs"] for r in rows[: first_trim - 1])
    differing = rows[first_trim - 1]
    assert differing["differs"] and differing["tokens_sent"][1] < differing["tokens_sent"][0]
    assert differing["sent_counts"][1] < differing["sent_counts"][0]
    loose_summary, tight_summary = body["summaries"]
    assert (loose_summary["profile_name"], tight_summary["profile_name"]) == ("loose", "tight")
    assert loose_summary["trims"] == 0 < tight_summary["trims"]
    assert tight_summary["total_tokens_sent"] < loose_summary["total_tokens_sent"]


def test_compare_with_identical_profiles_has_no_difference(api, transcript, loose):
    response = api.post(
        "/compare",
        json={"transcript_id": transcript.pk, "profile_ids": [loose.pk], "profiles": [loose.settings]},
    )
    assert response.status_code == 200
    body = response.json()
    assert body["first_difference"] is None and body["profile_ids"] == [loose.pk, None]
    assert body["summaries"][1]["profile_name"] == "inline profile 1"


def test_compare_mixes_runtimes(api, transcript, tight):
    services.demo_profiles_ensure()
    ids = [tight.pk, *(Profile.objects.get(runtime=r).pk for r in ("ai_profile", "openclaw"))]
    body = api.post("/compare", json={"transcript_id": transcript.pk, "profile_ids": ids}).json()
    assert [s["runtime"] for s in body["summaries"]] == ["zeroclaw", "ai_profile", "openclaw"]
    assert len(body["rows"]) == 16


@pytest.mark.parametrize("count", [0, 1, 4])
def test_compare_needs_two_or_three_profiles(api, transcript, count):
    ids = [services.profile_create(name=f"p{i}", document=_zeroclaw(1500 + i)).pk for i in range(count)]
    response = api.post("/compare", json={"transcript_id": transcript.pk, "profile_ids": ids})
    assert response.status_code == 422
    assert set(response.json()) == {"message", "extra"}


def test_compare_counts_stored_and_inline_profiles_together(api, transcript, tight, loose):
    response = api.post(
        "/compare",
        json={
            "transcript_id": transcript.pk,
            "profile_ids": [tight.pk, loose.pk],
            "profiles": [_zeroclaw(3000), _zeroclaw(4000)],
        },
    )
    assert response.status_code == 422
    assert response.json()["extra"]["field"] == "profile_ids"
    assert "2 to 3" in response.json()["extra"]["allowed"]


def test_compare_bad_inline_profile_names_which_one(api, transcript, tight):
    bad = {"runtime_profiles": {"default": {"max_context_tokens": "lots"}}}
    response = api.post(
        "/compare", json={"transcript_id": transcript.pk, "profile_ids": [tight.pk], "profiles": [bad]}
    )
    assert response.status_code == 422
    assert response.json()["extra"]["field"] == "profiles[0].runtime_profiles.default.max_context_tokens"


def test_compare_unknown_ids_are_404(api, transcript, tight):
    response = api.post("/compare", json={"transcript_id": 999, "profile_ids": [tight.pk, tight.pk]})
    assert response.status_code == 404
    response = api.post("/compare", json={"transcript_id": transcript.pk, "profile_ids": [tight.pk, 999]})
    assert response.status_code == 404
    assert "999" in response.json()["message"]
