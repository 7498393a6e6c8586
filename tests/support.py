"""Paths shared by the tests. The shared spec, vectors and samples live beside the repository."""

from __future__ import annotations

import json
import os
from pathlib import Path

REPO_DIR = Path(__file__).resolve().parents[1]
SHARED_DIR = Path(os.environ.get("TRIMSCOPE_SHARED", REPO_DIR.parent / "shared"))
CONFORMANCE_DIR = SHARED_DIR / "conformance"
SAMPLES_DIR = SHARED_DIR / "samples"


def tool_heavy_chat(turns: int, *, user_suffix: str = "") -> str:
    """An OpenAI-chat transcript with a ~2 KB tool result per turn, so a small budget has to trim it."""
    messages: list[dict[str, object]] = [{"role": "system", "content": "be brief"}]
    for t in range(turns):
        messages += [
            {"role": "user", "content": f"task {t}" + (f" {user_suffix}" if user_suffix else "")},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"c{t}", "type": "function", "function": {"name": "read", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": f"c{t}", "content": "line\n" * 400},
            {"role": "assistant", "content": f"done {t}"},
        ]
    return json.dumps(messages)
