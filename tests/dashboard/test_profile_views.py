"""Profile screens: create from presets, edit with inline validation, import, export, duplicate, delete."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from dashboard import forms, services
from dashboard.models import Profile
from simulator.errors import ProfileError
from simulator.presets import PRESETS, preset_get

pytestmark = pytest.mark.django_db

MCT = "runtime_profiles.default.max_context_tokens"

ZEROCLAW_BLOCK = """
[runtime_profiles.coding]
max_context_tokens = 48000
max_history_messages = 40

[provider]
model = "gpt-4o"
context_window = 128000
"""

OPENCLAW_BLOCK = """
[agents.defaults.contextPruning]
mode = "cache-ttl"
ttl = "1h"
softTrimRatio = 0.25

[agents.defaults.contextPruning.softTrim]
maxChars = 3000
"""


def _zeroclaw(name: str = "zc") -> Profile:
    return services.profile_create(name=name, document=dict(preset_get("zeroclaw-documented").document))


def _edit_post(profile: Profile, **overrides: str) -> dict[str, str]:
    """The edit form as the browser posts it: name, description, the TOML editor and every knob input."""
    form = forms.profile_form(profile=profile)
    data = {
        "name": form.name,
        "description": form.description,
        "document": form.text,
        "source": "knobs",
        "knobs_runtime": form.runtime,
    }
    for f in form.knobs:
        if f.knob.kind == "bool":
            if f.checked:
                data[f"knob:{f.knob.path}"] = "on"
        else:
            data[f"knob:{f.knob.path}"] = f.text
    data.update(overrides)
    return data


def test_profile_pages_require_sign_in(client):
    response = client.get(reverse("profile-list"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_list_shows_runtime_version_and_the_resolved_budget(operator_client):
    services.demo_profiles_ensure()
    body = operator_client.get(reverse("profile-list")).content.decode()
    assert 'aria-current="page">Profiles' in body
    assert "ZeroClaw proposed (PRs #9368, #9535)" in body
    assert "16,000" in body and "bound by max_context_tokens" in body
    assert "19,712" in body and "overhead 8,192" in body
    assert "ttl 5m" in body and "soft-trim at 0.3" in body


def test_empty_list_says_what_to_do(operator_client):
    body = operator_client.get(reverse("profile-list")).content.decode()
    assert "No profile yet" in body


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.key)
def test_create_from_each_preset(operator_client, preset):
    response = operator_client.post(reverse("profile-create"), {"preset": preset.key, "name": ""})
    assert response.status_code == 302
    stored = Profile.objects.get()
    assert (stored.name, stored.runtime, stored.settings) == (preset.name, preset.runtime, preset.document)
    assert response["Location"] == reverse("profile-edit", args=[stored.pk])


def test_create_with_a_taken_name_returns_the_form_partial_with_the_error(operator_client):
    _zeroclaw("taken")
    response = operator_client.post(
        reverse("profile-create"), {"preset": "openclaw", "name": "taken"}, headers={"HX-Request": "true"}
    )
    body = response.content.decode()
    assert 'id="create-form"' in body and "<html" not in body
    assert "already taken" in body
    assert Profile.objects.count() == 1


def test_demo_profiles_are_one_per_runtime_and_idempotent():
    assert len(services.demo_profiles_ensure()) == 3
    assert services.demo_profiles_ensure() == []
    assert sorted(Profile.objects.values_list("runtime", flat=True)) == ["ai_profile", "openclaw", "zeroclaw"]


def test_edit_page_shows_each_knob_as_a_labelled_input_and_the_toml(operator_client):
    profile = _zeroclaw()
    body = operator_client.get(reverse("profile-edit", args=[profile.pk])).content.decode()
    assert f'type="number" id="knob-runtime_profiles-default-max_context_tokens" name="knob:{MCT}"' in body
    assert 'type="checkbox" id="knob-runtime_profiles-default-history_pruning-enabled"' in body
    assert '<select id="knob-trimscope-version"' in body
    assert 'hx-trigger="input changed delay:400ms' in body and reverse("profile-validate") in body
    assert "[runtime_profiles.default]" in body and 'id="doc-editor"' in body


def test_edit_with_a_valid_knob_stores_it(operator_client):
    profile = _zeroclaw()
    response = operator_client.post(
        reverse("profile-edit", args=[profile.pk]),
        _edit_post(
            profile, **{f"knob:{MCT}": "20000", "knob:runtime_profiles.default.history_pruning.enabled": "on"}
        ),
    )
    assert response.status_code == 302
    profile.refresh_from_db()
    rp = profile.settings["runtime_profiles"]["default"]
    assert rp["max_context_tokens"] == 20000 and rp["history_pruning"]["enabled"] is True
    body = operator_client.get(response["Location"]).content.decode()
    assert "Saved zc." in body and "budget 20,000 tokens" in body


def test_edit_with_an_invalid_knob_shows_the_field_and_stores_nothing(operator_client):
    profile = _zeroclaw()
    before = profile.settings
    response = operator_client.post(
        reverse("profile-edit", args=[profile.pk]), _edit_post(profile, **{f"knob:{MCT}": "-5"})
    )
    assert response.status_code == 422
    body = response.content.decode()
    assert f"{MCT}: -5 is below the minimum (allowed: an integer ≥ 0)" in body
    assert 'class="knob invalid"' in body and 'value="-5"' in body  # next to the field, with what was typed
    profile.refresh_from_db()
    assert profile.settings == before


def test_edit_from_the_toml_editor(operator_client):
    profile = _zeroclaw()
    text = forms.profile_form(profile=profile).text.replace(
        "max_tool_iterations = 10", "max_tool_iterations = 7"
    )
    response = operator_client.post(
        reverse("profile-edit", args=[profile.pk]), _edit_post(profile, document=text, source="toml")
    )
    assert response.status_code == 302
    profile.refresh_from_db()
    assert profile.settings["runtime_profiles"]["default"]["max_tool_iterations"] == 7


def test_invalid_toml_is_shown_next_to_the_editor_and_stores_nothing(operator_client):
    profile = _zeroclaw()
    before = profile.settings
    response = operator_client.post(
        reverse("profile-edit", args=[profile.pk]), _edit_post(profile, document="[broken", source="toml")
    )
    assert response.status_code == 422
    assert "(document): invalid TOML" in response.content.decode()
    profile.refresh_from_db()
    assert profile.settings == before


def test_renaming_to_a_taken_name_is_refused(operator_client):
    _zeroclaw("first")
    profile = _zeroclaw("second")
    response = operator_client.post(
        reverse("profile-edit", args=[profile.pk]), _edit_post(profile, name="first")
    )
    assert response.status_code == 422
    assert "already taken" in response.content.decode()
    profile.refresh_from_db()
    assert profile.name == "second"


def test_inline_validation_returns_the_error_partial_next_to_the_field(operator_client):
    profile = _zeroclaw()
    response = operator_client.post(
        reverse("profile-validate"),
        _edit_post(profile, **{f"knob:{MCT}": "-5"}),
        headers={"HX-Request": "true"},
    )
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body
    slot = 'id="err-knob-runtime_profiles-default-max_context_tokens" class="field-error" hx-swap-oob="true">'
    assert slot + f"{MCT}: -5 is below the minimum (allowed: an integer ≥ 0)</span>" in body
    assert 'id="doc-editor"' not in body  # the TOML is not redrawn while invalid
    assert Profile.objects.get().settings == profile.settings


def test_inline_validation_of_valid_knobs_redraws_the_toml(operator_client):
    profile = _zeroclaw()
    response = operator_client.post(
        reverse("profile-validate"),
        _edit_post(profile, **{f"knob:{MCT}": "20000"}),
        headers={"HX-Request": "true"},
    )
    body = response.content.decode()
    assert "✓ Valid" in body
    assert 'id="doc-editor"' in body and "max_context_tokens = 20000" in body
    assert "budget 20,000 tokens" in body


def test_inline_validation_of_the_toml_redraws_the_knobs(operator_client):
    profile = _zeroclaw()
    response = operator_client.post(
        reverse("profile-validate"),
        _edit_post(profile, document=OPENCLAW_BLOCK, source="toml"),
        headers={"HX-Request": "true"},
    )
    body = response.content.decode()
    assert 'id="knob-fields"' in body and 'name="knob:agents.defaults.contextPruning.softTrimRatio"' in body
    assert 'value="0.25"' in body


def test_import_a_pasted_zeroclaw_block(operator_client):
    response = operator_client.post(
        reverse("profile-import"), {"name": "coding", "text": ZEROCLAW_BLOCK, "syntax": "auto"}
    )
    assert response.status_code == 302
    stored = Profile.objects.get()
    assert stored.runtime == "zeroclaw"
    assert stored.settings["runtime_profiles"]["default"]["max_context_tokens"] == 48000


def test_import_an_uploaded_openclaw_file(operator_client):
    upload = SimpleUploadedFile("pruning.toml", OPENCLAW_BLOCK.encode(), content_type="application/toml")
    response = operator_client.post(
        reverse("profile-import"), {"name": "oc", "file": upload, "syntax": "toml"}
    )
    assert response.status_code == 302
    stored = Profile.objects.get()
    pruning = stored.settings["agents"]["defaults"]["contextPruning"]
    assert (stored.runtime, pruning["ttl"], pruning["softTrim"]) == ("openclaw", "1h", {"maxChars": 3000})


def test_import_with_a_bad_field_names_it_and_stores_nothing(operator_client):
    response = operator_client.post(
        reverse("profile-import"),
        {"name": "bad", "text": "[contextPruning]\nsoftTrimRatio = 3\n"},
        headers={"HX-Request": "true"},
    )
    body = response.content.decode()
    assert 'id="import-form"' in body and "<code>contextPruning.softTrimRatio</code>" in body
    assert "number in [0, 1]" in body
    assert Profile.objects.count() == 0


@pytest.mark.parametrize(
    ("fmt", "content_type"), [("toml", "application/toml"), ("json", "application/json")]
)
def test_export_downloads_and_imports_back_equal(operator_client, fmt, content_type):
    profile = services.profile_import(name="Coding profile", text=ZEROCLAW_BLOCK)
    response = operator_client.get(reverse("profile-export", args=[profile.pk, fmt]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith(content_type)
    assert response["Content-Disposition"] == f'attachment; filename="coding-profile.{fmt}"'
    operator_client.post(
        reverse("profile-import"), {"name": "back", "text": response.content.decode(), "syntax": fmt}
    )
    back = Profile.objects.get(name="back")
    assert (back.runtime, back.settings) == (profile.runtime, profile.settings)


def test_export_in_an_unknown_format_is_404(operator_client):
    profile = _zeroclaw()
    assert operator_client.get(reverse("profile-export", args=[profile.pk, "yaml"])).status_code == 404


def test_duplicate_makes_a_free_copy_name(operator_client):
    profile = _zeroclaw("base")
    operator_client.post(reverse("profile-duplicate", args=[profile.pk]))
    response = operator_client.post(reverse("profile-duplicate", args=[profile.pk]))
    copy = Profile.objects.get(name="base (copy 2)")
    assert response["Location"] == reverse("profile-edit", args=[copy.pk])
    assert Profile.objects.get(name="base (copy)").settings == profile.settings == copy.settings


def test_delete_removes_the_profile(operator_client):
    profile = _zeroclaw()
    response = operator_client.post(reverse("profile-delete", args=[profile.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("profile-list")
    assert Profile.objects.count() == 0


def test_profile_content_is_escaped(operator_client):
    hostile = "<script>alert(1)</script>"
    profile = services.profile_create(
        name=hostile,
        document={"contextPruning": {"hardClear": {"placeholder": hostile}}},
        description=hostile,
    )
    for url in (reverse("profile-list"), reverse("profile-edit", args=[profile.pk])):
        body = operator_client.get(url).content.decode()
        assert "<script>alert(1)" not in body
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body


def test_names_with_line_breaks_are_refused():
    with pytest.raises(ProfileError, match="line break") as info:
        services.profile_create(name="a\n[evil]", document={"limits": {}})
    assert info.value.field == "name"
    assert Profile.objects.count() == 0
