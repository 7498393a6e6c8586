"""Importing whole runtime config files: the API and the import page, one profile or several."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from ninja.testing import TestClient

from dashboard import forms, selectors, services
from dashboard.api import api as ninja_api
from dashboard.models import Profile
from simulator.runtimes.zeroclaw import resolve_budget

pytestmark = pytest.mark.django_db

CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "configs"


def _text(name: str) -> str:
    return (CONFIGS / name).read_text(encoding="utf-8")


@pytest.fixture
def api(operator):
    _, secret = services.api_token_create(user=operator, name="ci")
    return TestClient(ninja_api, headers={"Authorization": f"Bearer {secret}"})


# -- API ------------------------------------------------------------------------------------------------


def test_api_import_of_one_agent_stores_its_resolved_budget_and_kept_keys(api):
    response = api.post(
        "/profiles/import",
        json={
            "name": "coder",
            "text": _text("zeroclaw_schema3.toml"),
            "filename": "config.toml",
            "select": "coder",
        },
    )
    assert response.status_code == 201
    stored = Profile.objects.get(pk=response.json()["id"])
    domain = selectors.profile_domain(profile=stored)
    assert resolve_budget(domain.settings).budget == 180_000
    assert stored.settings["trimscope"]["source"] == "coder"
    assert stored.settings["trimscope"]["kept"]["runtime_profiles.ratio.keep_tool_context_turns"] == 2


def test_api_import_of_a_file_with_several_profiles_asks_which(api):
    response = api.post("/profiles/import", json={"name": "x", "text": _text("zeroclaw_schema3.toml")})
    assert response.status_code == 422
    assert response.json()["extra"]["field"] == "select" and "coder, helper" in response.json()["message"]
    assert Profile.objects.count() == 0


def test_api_import_all_stores_every_profile_named_after_it(api):
    response = api.post(
        "/profiles/import-all",
        json={"text": _text("openclaw.json5"), "filename": "openclaw.json5", "name_prefix": "home"},
    )
    assert response.status_code == 201
    assert [p["name"] for p in response.json()["profiles"]] == ["home · main", "home · local"]
    assert {p.runtime for p in Profile.objects.all()} == {"openclaw"}


def test_api_import_all_is_all_or_nothing_on_a_name_clash(api):
    services.profile_create(name="deepseek", document={"limits": {}})
    response = api.post("/profiles/import-all", json={"text": _text("ai_profile_presets.json")})
    assert response.status_code == 409
    assert list(Profile.objects.values_list("name", flat=True)) == ["deepseek"]


def test_api_preview_lists_profiles_warnings_and_kept_keys_without_storing(api):
    response = api.post("/profiles/import-preview", json={"text": _text("zeroclaw_profiles_only.toml")})
    assert response.status_code == 200
    body = response.json()
    assert [p["name"] for p in body["profiles"]] == ["local_small", "wide"]
    wide = body["profiles"][1]
    assert wide["label"] == "ZeroClaw proposed (PRs #9368, #9535)"
    assert any("context_compact_ratio = 1.5 is outside (0, 1]" in w for w in wide["warnings"])
    assert "runtime_profiles.local_small.keep_tool_context_turns" in body["kept"]
    assert Profile.objects.count() == 0


def test_api_unknown_key_is_422_naming_it_with_a_suggestion(api):
    text = "{agents: {defaults: {contextPrunning: {mode: 'cache-ttl'}}}}"
    response = api.post("/profiles/import", json={"name": "x", "text": text, "syntax": "json5"})
    assert response.status_code == 422
    assert response.json()["extra"]["field"] == "agents.defaults.contextPrunning"
    assert "did you mean 'contextPruning'" in response.json()["message"]


@pytest.mark.parametrize("fmt", ["toml", "json"])
def test_kept_keys_survive_export_and_import_back(api, fmt):
    created = api.post(
        "/profiles/import", json={"name": "main", "text": _text("openclaw.json5"), "select": "main"}
    ).json()
    exported = api.get(f"/profiles/{created['id']}/export?fmt={fmt}").content.decode()
    again = api.post("/profiles/import", json={"name": "again", "text": exported, "syntax": fmt}).json()
    assert again["document"]["trimscope"]["kept"] == created["document"]["trimscope"]["kept"]
    assert again["document"]["trimscope"]["kept"]["agents.defaults.compaction"] == {"mode": "safeguard"}


# -- the import page ----------------------------------------------------------------------------------


def test_import_page_offers_json5_in_the_file_picker_and_the_syntax_menu(operator_client):
    body = operator_client.get(reverse("profile-list")).content.decode()
    assert 'accept=".toml,.json,.json5,.txt"' in body and 'value="json5"' in body


def test_uploaded_json5_file_with_several_agents_lists_them_to_choose(operator_client):
    upload = SimpleUploadedFile("openclaw.json5", _text("openclaw.json5").encode())
    response = operator_client.post(reverse("profile-import"), {"file": upload, "syntax": "auto"})
    body = response.content.decode()
    assert response.status_code == 200 and Profile.objects.count() == 0
    assert 'name="select" value="main" checked' in body and 'name="select" value="local" checked' in body
    assert "agents.list[1].contextPruning is not consulted" in body
    assert "<code>agents.defaults.compaction</code>" in body
    assert 'name="filename" value="openclaw.json5"' in body


def test_choosing_one_of_several_stores_only_it(operator_client):
    response = operator_client.post(
        reverse("profile-import"),
        {
            "text": _text("zeroclaw_schema3.toml"),
            "filename": "config.toml",
            "confirm": "1",
            "select": ["helper"],
        },
    )
    assert response.status_code == 302
    assert list(Profile.objects.values_list("name", flat=True)) == ["helper"]


def test_confirming_with_nothing_chosen_is_an_error_and_stores_nothing(operator_client):
    response = operator_client.post(
        reverse("profile-import"), {"text": _text("zeroclaw_schema3.toml"), "confirm": "1"}
    )
    assert response.status_code == 422 and "choose at least one profile" in response.content.decode()
    assert Profile.objects.count() == 0


def test_single_profile_import_shows_kept_keys_and_warnings_in_the_editor(operator_client):
    response = operator_client.post(
        reverse("profile-import"), {"text": _text("zeroclaw_v1.toml"), "filename": "config.toml"}
    )
    assert response.status_code == 302
    stored = Profile.objects.get()
    assert stored.name == "default"
    page = operator_client.get(reverse("profile-edit", args=[stored.pk])).content.decode()
    assert "<code>agent.keep_tool_context_turns</code>" in page
    assert "legacy [agent] merged into [runtime_profiles.default]" in page


@pytest.mark.parametrize("path", ["/api/profiles/import-all", "/api/profiles/import-preview"])
def test_config_import_endpoints_need_auth(client, path):
    response = client.post(path, {"text": "x"}, content_type="application/json")
    assert response.status_code == 401 and Profile.objects.count() == 0


def test_editing_a_config_profile_keeps_its_kept_keys_and_source(operator_client):
    profile = services.profile_import(name="", text=_text("zeroclaw_schema3.toml"), select="coder")
    form = forms.profile_form(profile=profile)
    response = operator_client.post(
        reverse("profile-edit", args=[profile.pk]),
        {
            "name": profile.name,
            "description": "",
            "document": form.text,
            "source": "knobs",
            "knobs_runtime": "zeroclaw",
            "knob:runtime_profiles.default.max_context_tokens": "150000",
            "knob:runtime_profiles.default.context_compact_ratio": "0.9",
            "knob:trimscope.version": "documented",
            "knob:provider.context_window": "200000",
            "knob:provider.model": "qwen3-coder",
        },
    )
    assert response.status_code == 302
    profile.refresh_from_db()
    assert profile.name == "coder"
    assert profile.settings["runtime_profiles"]["default"]["max_context_tokens"] == 150_000
    assert profile.settings["trimscope"]["source"] == "coder"
    assert profile.settings["trimscope"]["kept"]["runtime_profiles.ratio.keep_tool_context_turns"] == 2


def test_out_of_range_ratio_is_explained_next_to_its_knob(operator_client):
    profile = services.profile_import(name="", text=_text("zeroclaw_profiles_only.toml"), select="wide")
    page = operator_client.get(reverse("profile-edit", args=[profile.pk])).content.decode()
    note = page.split("<code>context_compact_ratio</code>", 1)[1].split("</label>", 1)[0]
    assert 'class="flag warn knob-note"' in note
    assert "context_compact_ratio = 1.5 is outside (0, 1]: ZeroClaw ignores it" in note
