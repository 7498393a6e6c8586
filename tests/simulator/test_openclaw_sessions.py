"""Whole-session OpenClaw vectors (real dists, via tools/openclaw-harness) replay through attempt.py."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from simulator.conformance.openclaw_sessions import run_sessions
from simulator.runtimes.openclaw.route import OPENCLAW_VERSIONS, OpenClawVersion

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "openclaw"


def _vectors(version: str) -> list[object]:
    return json.loads(gzip.decompress((VECTORS / version / "sessions.json.gz").read_bytes()))


@pytest.mark.parametrize("version", OPENCLAW_VERSIONS)
def test_every_session_vector_of_the_version_passes_with_zero_failures(version: OpenClawVersion):
    results = run_sessions(_vectors(version), version)
    assert sum(r.calls for r in results) > 500
    assert [f"{r.name}: {r.detail}" for r in results if not r.passed] == []


def test_a_wrong_expected_context_is_reported_as_a_failure():
    vectors = _vectors("2026.7.1")
    target = next(
        call
        for v in vectors
        for attempt in v["expected"]["attempts"]
        for call in attempt["calls"]
        if call.get("changed")
    )
    key = next(iter(target["changed"]))
    target["changed"][key]["content"] = "not what OpenClaw sent"
    results = run_sessions(vectors, "2026.7.1")
    assert sum(not r.passed for r in results) == 1
