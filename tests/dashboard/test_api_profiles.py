"""The profiles API: CRUD, import of real config blocks, export round trips, one error shape (422/409/401)."""

from __future__ import annotations

import pytest
from ninja.testing import TestClient

from dashboard import services
from dashboard.api import api as ninja_api
from dashboard.models import Profile
from simulator.presets import PRESETS

pytestmark = pytest.mark.django_db

ZEROCLAW_BLOCK = """
[runtime_profiles.coding]
max_context_tokens = 48000
context_compact_ratio = 0.5

[runtime_profiles.coding.history_pruning]
enabled = true
max_tokens = 40000
"""

OPENCLAW_BLOCK = """{"agents": {"defaults": {"contextPruning": {
  "mode": "cache-ttl", "ttl": "10m", "keepLastAssistants": 2
}}}}"""


@pytest.fixture
def api(operator):
    _, secret = services.api_token_create(user=operator, name="ci")
    return TestClient(ninja_api, headers={"Authorization": f"Bearer {secret}"})


def test_missing_auth_is_401_with_the_error_shape(client):
    response = client.get("/api/profiles")
    assert response.status_code == 401
    assert set(response.json()) == {"message", "extra"}


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.key)
def test_create_from_each_preset_stores_the_canonical_document(api, preset):
    response = api.post("/profiles", json={"name": preset.name, "document": dict(preset.document)})
    assert response.status_code == 201
    body = response.json()
    assert (body["runtime"], body["document"]) == (preset.runtime, preset.document)
    assert Profile.objects.get(pk=body["id"]).settings == preset.document


def test_list_get_update_delete(api):
    created = api.post("/profiles", json={"name": "a", "document": {"limits": {}}, "description": "d"}).json()
    assert [p["name"] for p in api.get("/profiles").json()] == ["a"]
    assert api.get(f"/profiles/{created['id']}").json()["description"] == "d"
    updated = api.put(
        f"/profiles/{created['id']}",
        json={"name": "b", "document": {"limits": {"user": {"contextWindow": 9000}}}},
    )
    assert updated.status_code == 200
    assert updated.json()["document"]["limits"] == {"user": {"contextWindow": 9000}}
    assert api.delete(f"/profiles/{created['id']}").status_code == 204
    assert api.get(f"/profiles/{created['id']}").status_code == 404


def test_a_profile_says_its_runtime_version_and_budget(api):
    doc = {"trimscope": {"runtime": "zeroclaw", "version": "upstream"}, "runtime_profiles": {"d": {}}}
    body = api.post("/profiles", json={"name": "zc", "document": doc}).json()
    assert (body["version"], body["label"]) == ("upstream", "ZeroClaw released (v0.8.4)")
    assert body["budget"]["value"] == 32_000 and body["budget"]["headline"] == "budget"
    assert body["budget"]["summary"].startswith("bound by ")
    listed = api.get("/profiles").json()
    assert [p["label"] for p in listed] == ["ZeroClaw released (v0.8.4)"]


def test_bad_document_is_422_naming_the_field_and_stores_nothing(api):
    doc = {"runtime_profiles": {"default": {"max_context_tokens": -5}}}
    response = api.post("/profiles", json={"name": "bad", "document": doc})
    assert response.status_code == 422
    body = response.json()
    assert body["extra"]["field"] == "runtime_profiles.default.max_context_tokens"
    assert body["extra"]["allowed"] == "an integer ≥ 0"
    assert "below the minimum" in body["message"]
    assert Profile.objects.count() == 0


def test_bad_update_changes_nothing(api):
    created = api.post(
        "/profiles", json={"name": "a", "document": {"contextPruning": {"mode": "cache-ttl"}}}
    ).json()
    response = api.put(
        f"/profiles/{created['id']}",
        json={"name": "a2", "document": {"contextPruning": {"softTrimRatio": 2}}},
    )
    assert response.status_code == 422
    assert response.json()["extra"]["field"] == "contextPruning.softTrimRatio"
    stored = Profile.objects.get()
    assert (stored.name, stored.settings) == ("a", created["document"])


def test_name_conflict_is_409_with_the_error_shape(api):
    assert api.post("/profiles", json={"name": "same", "document": {"limits": {}}}).status_code == 201
    response = api.post("/profiles", json={"name": "same", "document": {"limits": {}}})
    assert response.status_code == 409
    assert set(response.json()) == {"message", "extra"} and response.json()["extra"]["field"] == "name"
    assert Profile.objects.count() == 1


def test_import_a_real_zeroclaw_runtime_profiles_block(api):
    response = api.post("/profiles/import", json={"name": "coding", "text": ZEROCLAW_BLOCK, "syntax": "toml"})
    assert response.status_code == 201
    rp = response.json()["document"]["runtime_profiles"]["default"]
    assert (rp["max_context_tokens"], rp["context_compact_ratio"]) == (48000, 0.5)
    assert rp["history_pruning"] == {"enabled": True, "max_tokens": 40000}


def test_import_a_real_openclaw_context_pruning_block(api):
    response = api.post("/profiles/import", json={"name": "oc", "text": OPENCLAW_BLOCK})
    assert response.status_code == 201
    assert response.json()["runtime"] == "openclaw"
    pruning = response.json()["document"]["agents"]["defaults"]["contextPruning"]
    assert pruning == {"mode": "cache-ttl", "ttl": "10m", "keepLastAssistants": 2}


def test_import_with_a_bad_field_is_422(api):
    response = api.post(
        "/profiles/import", json={"name": "x", "text": "[contextPruning]\nkeepLastAssistants = -1\n"}
    )
    assert response.status_code == 422
    assert response.json()["extra"]["field"] == "contextPruning.keepLastAssistants"
    assert Profile.objects.count() == 0


def test_import_body_validation_uses_the_error_shape(api):
    response = api.post("/profiles/import", json={"name": "x", "text": "a", "syntax": "yaml"})
    assert response.status_code == 422
    assert "syntax" in response.json()["message"]


@pytest.mark.parametrize(
    ("fmt", "content_type"), [("toml", "application/toml"), ("json", "application/json")]
)
def test_export_then_import_gives_an_equal_profile(api, fmt, content_type):
    created = api.post("/profiles/import", json={"name": "My profile", "text": ZEROCLAW_BLOCK}).json()
    exported = api.get(f"/profiles/{created['id']}/export?fmt={fmt}")
    assert exported.status_code == 200
    assert exported["Content-Type"].startswith(content_type)
    assert exported["Content-Disposition"] == f'attachment; filename="my-profile.{fmt}"'
    again = api.post(
        "/profiles/import", json={"name": "again", "text": exported.content.decode(), "syntax": fmt}
    )
    assert again.status_code == 201
    assert (again.json()["runtime"], again.json()["document"]) == (created["runtime"], created["document"])


def test_export_of_a_missing_profile_is_404(api):
    assert api.get("/profiles/999/export?fmt=json").status_code == 404
