"""The ai-profile reproduction against the shared conformance vectors."""

from __future__ import annotations

import pytest

from simulator.conformance.runner import run_paths
from tests.support import CONFORMANCE_DIR

AI_PROFILE_DIR = CONFORMANCE_DIR / "ai_profile"

# The generated caller_retry_loop cases expect {steps, final_messages}; this upstream case alone also
# expects estimate_before, and the two inputs have the same shape. Needs a vector or runner decision.
SHAPE_CONFLICT = "retry_budget_halves_until_nothing_left_to_drop"


def _report():
    files = sorted(AI_PROFILE_DIR.rglob("*.json"))
    return run_paths([(str(path), path.read_text(encoding="utf-8")) for path in files])


@pytest.mark.xfail(strict=True, reason=f"vector shape conflict on {SHAPE_CONFLICT} (estimate_before)")
def test_every_ai_profile_vector_passes():
    report = _report()
    assert report.passed > 0
    assert report.failed == 0, [f"{r.name}: {r.detail}" for r in report.failures()]


def test_every_ai_profile_vector_passes_except_the_retry_loop_shape_conflict():
    report = _report()
    assert report.passed > 0
    failures = report.failures()
    assert [r.name for r in failures] == [SHAPE_CONFLICT], [f"{r.name}: {r.detail}" for r in failures]
    assert "estimate_before" in failures[0].detail
