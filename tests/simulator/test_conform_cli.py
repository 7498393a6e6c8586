"""`python -m simulator conform` over every shared vector: the acceptance check for all three runtimes."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.support import CONFORMANCE_DIR, REPO_DIR


def test_conform_over_the_whole_vector_folder_has_no_failure():
    proc = subprocess.run(
        [sys.executable, "-m", "simulator", "conform", str(CONFORMANCE_DIR)],
        cwd=REPO_DIR,
        capture_output=True,
        text=True,
        check=False,
    )
    last = proc.stdout.strip().splitlines()[-1]
    match = re.fullmatch(r"(\d+) passed, (\d+) failed", last)
    assert match, proc.stdout[-2000:]
    passed, failed = int(match[1]), int(match[2])
    assert failed == 0, proc.stdout[-4000:]
    assert passed >= 639
    assert proc.returncode == 0


def test_conform_exits_nonzero_when_a_case_fails(tmp_path):
    vector = tmp_path / "bad.json"
    vector.write_text(
        '[{"system": "zeroclaw", "function": "estimate_history_tokens", "name": "wrong",'
        ' "input": {"history": [{"role": "user", "content": "abcd"}]}, "expected": 6}]'
    )
    proc = subprocess.run(
        [sys.executable, "-m", "simulator", "conform", str(vector)],
        cwd=REPO_DIR,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-1] == "0 passed, 1 failed"
    assert proc.stdout.startswith("FAIL zeroclaw estimate_history_tokens wrong:")
