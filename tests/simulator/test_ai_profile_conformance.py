"""The ai-profile reproduction against the shared conformance vectors."""

from __future__ import annotations

from simulator.conformance.runner import run_paths
from tests.support import CONFORMANCE_DIR

AI_PROFILE_DIR = CONFORMANCE_DIR / "ai_profile"


def _report():
    files = sorted(AI_PROFILE_DIR.rglob("*.json"))
    return run_paths([(str(path), path.read_text(encoding="utf-8")) for path in files])


def test_every_ai_profile_vector_passes():
    report = _report()
    assert report.passed > 0
    assert report.failed == 0, [f"{r.name}: {r.detail}" for r in report.failures()]
