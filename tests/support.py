"""Paths shared by the tests. The shared spec, vectors and samples live beside the repository."""

from __future__ import annotations

import os
from pathlib import Path

REPO_DIR = Path(__file__).resolve().parents[1]
SHARED_DIR = Path(os.environ.get("TRIMSCOPE_SHARED", REPO_DIR.parent / "shared"))
CONFORMANCE_DIR = SHARED_DIR / "conformance"
SAMPLES_DIR = SHARED_DIR / "samples"
