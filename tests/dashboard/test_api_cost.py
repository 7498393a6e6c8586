"""Cost on the API: priced simulation results, pricing keys, compare costs, and the editable price table."""

from __future__ import annotations

import pytest
from ninja.testing import TestClient

from dashboard import services
from dashboard.api import api as ninja_api
from dashboard.models import PriceOverride, SimulationRun
from simulator import DEFAULT_GAP_SECONDS
from tests.support import tool_heavy_chat

pytestmark = pytest.mark.django_db

SONNET = "anthropic/claude-sonnet-4-5"
COST_KEYS = {"input_tokens", "cache_write_tokens", "cache_read_tokens", "output_tokens", "usd"}
EDIT = {
    "input_per_mtok": 6.0,
    "output_per_mtok": 30.0,
    "cache_write_multiplier": 1.25,
    "cache_read_multiplier": 0.1,
    "cache_ttl_seconds": 300,
}


def _client(user) -> TestClient:
    _, secret = services.api_token_create(user=user, name="ci")
    return TestClient(ninja_api, headers={"Authorization": f"Bearer {secret}"})


@pytest.fixture
def api(operator):
    return _client(operator)


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user(username="boss", password="boss-password-1", is_staff=True)


@pytest.fixture
def transcript(operator):
    return services.transcript_import(text=tool_heavy_chat(8), name="chat", user=operator)


@pytest.fixture
def tight(transcript):
    return services.profile_create(
        name="tight",
        document={
            "trimscope": {"runtime": "zeroclaw", "version": "documented"},
            "runtime_profiles": {"default": {"max_context_tokens": 1500}},
            "provider": {"model": "gpt-4o", "context_window": 128_000},
        },
    )


@pytest.fixture
def baseline(transcript):
    return services.profile_create(name="baseline", document={"trimscope": {"runtime": "as_recorded"}})


def test_a_simulation_result_carries_cost_pricing_and_its_sum(api, transcript, tight):
    body = {
        "transcript_id": transcript.pk,
        "profile_id": tight.pk,
        "pricing": SONNET,
        "assumed_gap_seconds": 60,
    }
    response = api.post("/simulations", json=body)
    assert response.status_code == 201
    created = response.json()
    result = created["result"]
    assert result["pricing"]["model"] == SONNET and result["pricing"]["input_per_mtok"] == 3.0
    assert all(set(c["cost"]) == COST_KEYS for c in result["calls"])
    assert result["summary"]["cost_usd"] == round(sum(c["cost"]["usd"] for c in result["calls"]), 8)
    assert result["cost_model"]["gap_seconds"] == 60 and result["cost_model"]["gap_source"] == "assumed"
    assert (created["pricing"], created["assumed_gap_seconds"]) == (SONNET, 60)
    # The trims of a 1,500-token budget break the cache: the model says where and what it cost.
    assert result["cost_model"]["cache_breaks"]
    assert api.get(f"/simulations/{created['id']}").json() == created


def test_a_simulation_can_be_priced_at_another_key_on_read(api, transcript, tight):
    created = api.post("/simulations", json={"transcript_id": transcript.pk, "profile_id": tight.pk}).json()
    assert created["result"]["pricing"]["model"] == SONNET  # no model recorded: the table's default
    assert created["result"]["cost_model"]["pricing_warning"]
    other = api.get(f"/simulations/{created['id']}?pricing=openai/gpt-4o").json()
    assert other["result"]["pricing"]["model"] == "openai/gpt-4o"
    assert other["result"]["summary"]["cost_usd"] != created["result"]["summary"]["cost_usd"]
    assert SimulationRun.objects.get(pk=created["id"]).pricing == ""


def test_an_unknown_pricing_key_is_refused_and_nothing_is_stored(api, transcript, tight):
    response = api.post(
        "/simulations", json={"transcript_id": transcript.pk, "profile_id": tight.pk, "pricing": "acme/x"}
    )
    assert response.status_code == 400
    assert "acme/x" in response.json()["message"]
    assert not SimulationRun.objects.exists()


def test_a_negative_assumed_gap_is_a_422_naming_the_field(api, transcript, tight):
    body = {"transcript_id": transcript.pk, "profile_id": tight.pk, "assumed_gap_seconds": -1}
    response = api.post("/simulations", json=body)
    assert response.status_code == 422 and "assumed_gap_seconds" in response.json()["message"]


def test_compare_gives_each_profiles_cost_the_difference_and_the_overtaking_call(
    api, transcript, tight, baseline
):
    body = {"transcript_id": transcript.pk, "profile_ids": [baseline.pk, tight.pk], "pricing": SONNET}
    response = api.post("/compare", json=body)
    assert response.status_code == 200
    cost = response.json()["cost"]
    assert cost["pricing"]["model"] == SONNET
    assert len(cost["per_call_usd"]) == 16 and all(len(row) == 2 for row in cost["per_call_usd"])
    assert cost["difference_usd"][0] == 0
    assert cost["difference_usd"][1] == pytest.approx(cost["cost_usd"][1] - cost["cost_usd"][0], abs=1e-7)
    assert cost["overtakes"][0]["against"] == 0 and cost["overtakes"][0]["profile"] == 1


def test_the_price_table_is_readable_with_each_entrys_origin(api):
    table = api.get("/pricing").json()
    sonnet = next(m for m in table["models"] if m["key"] == SONNET)
    assert sonnet["origin"] == "table" and sonnet["source"].startswith("https://")
    assert table["default"] == SONNET


def test_a_users_price_edit_applies_to_that_user_only(api, operator, staff, transcript, tight):
    response = api.put(f"/pricing/{SONNET}", json=EDIT)
    assert response.status_code == 200 and response.json()["origin"] == "yours"
    assert response.json()["input_per_mtok"] == 6.0
    mine = api.post("/simulations", json={"transcript_id": transcript.pk, "profile_id": tight.pk}).json()
    theirs = _client(staff).get(f"/simulations/{mine['id']}").json()
    assert mine["result"]["pricing"]["input_per_mtok"] == 6.0
    assert theirs["result"]["pricing"]["input_per_mtok"] == 3.0
    assert mine["result"]["summary"]["cost_usd"] > theirs["result"]["summary"]["cost_usd"]
    assert api.delete(f"/pricing/{SONNET}").status_code == 204
    assert next(m for m in api.get("/pricing").json()["models"] if m["key"] == SONNET)["origin"] == "table"


def test_a_dashboard_price_edit_is_for_staff_and_applies_to_everyone(api, staff):
    refused = api.put(f"/pricing/{SONNET}", json={**EDIT, "scope": "dashboard"})
    assert refused.status_code == 403 and not PriceOverride.objects.exists()
    assert _client(staff).put(f"/pricing/{SONNET}", json={**EDIT, "scope": "dashboard"}).status_code == 200
    seen = next(m for m in api.get("/pricing").json()["models"] if m["key"] == SONNET)
    assert seen["origin"] == "dashboard" and seen["output_per_mtok"] == 30.0


@pytest.mark.parametrize(
    ("change", "named"),
    [({"input_per_mtok": -3}, "input_per_mtok"), ({"cache_read_multiplier": 1e9}, "cache_read_multiplier")],
)
def test_a_price_edit_out_of_range_is_refused_by_name(api, change, named):
    response = api.put(f"/pricing/{SONNET}", json={**EDIT, **change})
    assert response.status_code == 400 and named in response.json()["message"]
    assert not PriceOverride.objects.exists()


def test_an_edit_of_an_unknown_entry_is_refused(api):
    response = api.put("/pricing/acme/model-9", json=EDIT)
    assert response.status_code == 400 and "acme/model-9" in response.json()["message"]


def test_a_run_without_timestamps_states_the_default_gap_it_assumed(api, transcript, tight):
    created = api.post("/simulations", json={"transcript_id": transcript.pk, "profile_id": tight.pk}).json()
    model = created["result"]["cost_model"]
    assert (model["gap_seconds"], model["gap_source"]) == (DEFAULT_GAP_SECONDS, "default")
    assert model["gap"] == f"no timestamps: calls assumed {DEFAULT_GAP_SECONDS:g} s apart (the default)"


def test_an_openclaw_run_replays_at_the_gap_its_cost_assumes(api, transcript):
    document = {
        "trimscope": {"runtime": "openclaw"},
        "agents": {
            "defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "5m", "minPrunableToolChars": 1000}}
        },
        "model": {"provider": "anthropic", "id": "claude-sonnet-4-5", "contextWindow": 8000},
    }
    warm = api.post("/simulations", json={"transcript_id": transcript.pk, "profile": document}).json()
    cold = api.post(
        "/simulations",
        json={"transcript_id": transcript.pk, "profile": document, "assumed_gap_seconds": 3600},
    ).json()
    assert (warm["trims"], cold["trims"] > 0) == (0, True)
    assert "no timestamps: calls assumed 30 s apart (the default)" in warm["result"]["warnings"]
    assert "no timestamps: calls assumed 3600 s apart" in cold["result"]["warnings"]


def test_a_run_can_be_priced_with_one_hour_cache_writes(api, transcript, tight):
    body = {"transcript_id": transcript.pk, "profile_id": tight.pk, "pricing": SONNET, "cache_ttl": "1h"}
    created = api.post("/simulations", json=body).json()
    assert created["result"]["pricing"]["cache_write_multiplier"] == 2.0
    assert created["result"]["pricing"]["cache_ttl_seconds"] == 3600
    short = api.get(f"/simulations/{created['id']}").json()["result"]
    long = api.get(f"/simulations/{created['id']}?cache_ttl=1h").json()["result"]
    assert (short["pricing"]["cache_write_multiplier"], short["cost_model"]["cache_ttl"]) == (1.25, "5m")
    assert long == created["result"]
    assert (
        long["summary"]["cost_usd"] > short["summary"]["cost_usd"]
    )  # the same writes at 2x instead of 1.25x


def test_an_unknown_cache_ttl_is_a_422_naming_it(api, transcript, tight):
    created = api.post("/simulations", json={"transcript_id": transcript.pk, "profile_id": tight.pk}).json()
    response = api.get(f"/simulations/{created['id']}?cache_ttl=2h")
    assert response.status_code == 422 and "cache_ttl" in response.json()["message"]
    body = {"transcript_id": transcript.pk, "profile_id": tight.pk, "cache_ttl": "1d"}
    response = api.post("/simulations", json=body)
    assert response.status_code == 422 and "cache_ttl" in response.json()["message"]


def test_compare_states_the_gap_and_ttl_it_priced_with(api, transcript, tight, baseline):
    body = {
        "transcript_id": transcript.pk,
        "profile_ids": [baseline.pk, tight.pk],
        "pricing": SONNET,
        "assumed_gap_seconds": 900,
        "cache_ttl": "1h",
    }
    cost = api.post("/compare", json=body).json()["cost"]
    assert (cost["gap_seconds"], cost["gap_source"], cost["cache_ttl"]) == (900, "assumed", "1h")
    assert cost["gap"] == "no timestamps: calls assumed 900 s apart"
    assert cost["pricing"]["cache_write_multiplier"] == 2.0
    assert cost["cache_ttl_statement"] == "1-hour cache writes (2× input)"


def test_a_session_over_the_pricing_limit_is_a_422_and_nothing_is_stored(api, transcript, tight, settings):
    settings.TRIMSCOPE_COST_MAX_MESSAGES = 10  # the session has 33 messages
    response = api.post("/simulations", json={"transcript_id": transcript.pk, "profile_id": tight.pk})
    assert response.status_code == 422
    assert response.json()["message"].startswith(
        "this session has 33 messages; sessions over 10 are not priced"
    )
    assert response.json()["extra"] == {"messages": 33, "limit": 10}
    assert not SimulationRun.objects.exists()
