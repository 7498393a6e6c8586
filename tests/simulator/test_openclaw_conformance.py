"""The OpenClaw vectors run through the project's conformance runner."""

from __future__ import annotations

from simulator.conformance.runner import run_paths
from tests.support import CONFORMANCE_DIR

OPENCLAW_DIR = CONFORMANCE_DIR / "openclaw"


def _vector_files() -> list[tuple[str, str]]:
    return [(str(p), p.read_text(encoding="utf-8")) for p in sorted(OPENCLAW_DIR.rglob("*.json"))]


def test_every_openclaw_vector_passes_through_the_runner():
    report = run_paths(_vector_files())
    assert report.passed > 0
    assert report.failed == 0, [f.detail for f in report.failures()]
