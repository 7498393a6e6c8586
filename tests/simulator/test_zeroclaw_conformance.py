"""The ZeroClaw reproduction matches every vector produced by the real upstream code."""

from __future__ import annotations

from simulator.conformance.runner import format_failure, run_paths
from tests.support import CONFORMANCE_DIR


def test_every_zeroclaw_vector_passes():
    files = sorted((CONFORMANCE_DIR / "zeroclaw").rglob("*.json"))
    report = run_paths([(str(f), f.read_text(encoding="utf-8")) for f in files])
    failures = [format_failure(r) for r in report.failures()]
    assert failures == []
    assert report.failed == 0
    assert report.passed > 0
