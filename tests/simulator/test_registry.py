"""The runtime registry: one spec per runtime version, found from profiles, documents and results."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from simulator import registry
from simulator.errors import ProfileError
from simulator.importers import parse_transcript
from simulator.presets import PRESETS
from simulator.profiles import profile_from_document, profile_to_document
from simulator.replay import simulate
from simulator.runtimes.openclaw.settings import OpenClawSettings
from simulator.specs.openclaw import spec as openclaw
from simulator.synthetic import synthetic_openclaw_session
from tests.support import SHARED_DIR


def test_every_runtime_version_is_registered_once():
    keys = [(s.runtime, s.version) for s in registry.SPECS]
    assert len(keys) == len(set(keys))
    assert registry.runtimes() == ("zeroclaw", "openclaw", "ai_profile", "as_recorded")


def test_zeroclaw_versions_carry_their_labels():
    proposed = registry.spec_get("zeroclaw", "documented")
    released = registry.spec_get("zeroclaw", "upstream")
    assert proposed is not None and proposed.label == "ZeroClaw proposed (PRs #9368, #9535)"
    assert released is not None and released.label == "ZeroClaw released (v0.8.4)"


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.key)
def test_each_preset_finds_its_spec_and_round_trips_through_it(preset):
    profile = profile_from_document(dict(preset.document), name=preset.key)
    spec = profile.spec
    assert spec.runtime == preset.runtime and spec.owns(profile.settings)
    assert profile_to_document(profile) == dict(preset.document)
    assert profile.label == spec.label
    assert spec.budget(profile.settings).summary


def test_a_result_names_the_version_it_was_replayed_with():
    transcript = parse_transcript(synthetic_openclaw_session(3))
    doc = {"trimscope": {"runtime": "zeroclaw", "version": "upstream"}, "runtime_profiles": {"d": {}}}
    result = simulate(transcript, profile_from_document(doc, name="p"))
    assert (result.runtime, result.version) == ("zeroclaw", "upstream")
    assert (result.runtime_label, result.version_label) == ("ZeroClaw", "released (v0.8.4)")


def test_a_spec_refuses_settings_of_another_runtime():
    zeroclaw = registry.spec_get("zeroclaw", "documented")
    assert zeroclaw is not None and not zeroclaw.owns(OpenClawSettings())
    with pytest.raises(TypeError):
        zeroclaw.budget(OpenClawSettings())


def test_an_unknown_runtime_is_named_with_the_registered_ones():
    with pytest.raises(ProfileError) as info:
        profile_from_document({"trimscope": {"runtime": "hermes"}}, name="p")
    assert info.value.field == "trimscope.runtime"
    assert "zeroclaw, openclaw, ai_profile" in str(info.value)


def test_a_second_version_is_one_more_spec(monkeypatch):
    """A version registered next to the first is found for the settings that ask for it, and only those."""

    def version_of(settings: OpenClawSettings) -> str:
        return "2026.9.6" if settings.ttl == "9m" else "2026.7.1"

    later = replace(
        openclaw.V2026_7_1, version="2026.9.6", version_label="2026.9.6", version_of=version_of, presets=()
    )
    first = replace(openclaw.V2026_7_1, version_of=version_of)
    monkeypatch.setattr(registry, "SPECS", (*registry.SPECS[:2], first, later, *registry.SPECS[3:]))
    transcript = parse_transcript(synthetic_openclaw_session(4))
    new = profile_from_document({"contextPruning": {"mode": "cache-ttl", "ttl": "9m"}}, name="p")
    old = profile_from_document({"contextPruning": {"mode": "cache-ttl", "ttl": "5m"}}, name="p")
    assert new.label == "OpenClaw 2026.9.6" and old.label == "OpenClaw 2026.7.1"
    assert simulate(transcript, new).version == "2026.9.6"
    assert simulate(transcript, old).version == "2026.7.1"


def test_every_system_in_the_vectors_has_an_adapter_module():
    systems = {
        case["system"]
        for path in Path(SHARED_DIR, "conformance").rglob("*.json")
        for case in json.loads(path.read_text(encoding="utf-8"))
        if isinstance(case, dict) and "system" in case
    }
    assert systems and systems <= set(registry.conformance_modules())
