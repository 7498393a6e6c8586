"""Fingerprints of every replay and its metrics, to show a speed-up changed no result.

For every preset (and a few tight profiles that make each runtime trim, truncate and overflow), every
session of the corpus benchmark (``benchmarks.corpus``) and every shared sample: the SHA-256 of the
``repr`` of the :class:`~simulator.replay.SimulationResult` and of its metrics with and without the cost
model. Run it in the old tree and in the new one, then compare the two files::

    PYTHONHASHSEED=0 python -m benchmarks.fingerprint old.json   # in the old tree
    PYTHONHASHSEED=0 python -m benchmarks.fingerprint new.json   # in the new tree
    python -m benchmarks.fingerprint --compare old.json new.json

``PYTHONHASHSEED=0``: some replays keep sets of strings, whose ``repr`` order follows string hashing.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

from benchmarks.corpus import write_corpus
from simulator.evaluate import PreparedTranscript
from simulator.evaluate.metrics import measure
from simulator.importers import parse_transcript
from simulator.jsonvalue import JSON
from simulator.presets import PRESETS_BY_KEY
from simulator.profiles import profile_from_document
from simulator.replay import simulate
from simulator.synthetic import synthetic_openclaw_session

SAMPLES = Path(os.environ.get("TRIMSCOPE_SHARED", "/work/shared")) / "samples"
TIGHT: dict[str, JSON] = {
    "zeroclaw-tight": {
        "runtime_profiles": {
            "d": {"max_context_tokens": 3000, "max_history_messages": 4, "max_tool_result_chars": 500}
        }
    },
    "zeroclaw-upstream-tight": {
        "trimscope": {"version": "upstream"},
        "runtime_profiles": {"d": {"max_context_tokens": 3000, "max_history_messages": 6}},
    },
    "ai-profile-tight": {
        "limits": {"preset": {"contextWindow": 12_000}},
        "provider": {"context_window": 9_000},
    },
}

_CLAUDE_37 = "claude-3-7-sonnet-20250219"
SHAPES: dict[str, dict[str, object]] = {
    "shape-screenshots-thinking.jsonl": {"screenshot_every": 4, "thinking": True, "model": _CLAUDE_37},
    "shape-screenshots.jsonl": {"screenshot_every": 2},
    "shape-thinking.jsonl": {"thinking": True, "model": _CLAUDE_37},
}
"""OpenClaw sessions of a browser-driving agent (old screenshots, thinking on a route that drops it): every
call of theirs cleans or strips older messages, the paths the corpus's sessions never take."""


def fingerprints() -> dict[str, str]:
    with tempfile.TemporaryDirectory() as tmp:
        texts = {p.name: p.read_text(encoding="utf-8") for p in write_corpus(Path(tmp))}
    texts.update({p.name: p.read_text(encoding="utf-8") for p in sorted(SAMPLES.glob("*.json*"))})
    for name, shape in SHAPES.items():
        texts[name] = synthetic_openclaw_session(120, session_id=name, **shape)  # type: ignore[arg-type]  # keyword values of three types
    transcripts = {name: parse_transcript(text) for name, text in texts.items()}
    documents = {key: dict(preset.document) for key, preset in PRESETS_BY_KEY.items()} | TIGHT
    out: dict[str, str] = {}
    for key, document in documents.items():
        profile = profile_from_document(document, name=key)  # type: ignore[arg-type]
        for name, transcript in transcripts.items():
            result = simulate(transcript, profile)
            priced = measure(PreparedTranscript.of(transcript, source=name), profile, result)
            bare = measure(PreparedTranscript.of(transcript, source=name, priced=False), profile, result)
            digest = hashlib.sha256(repr((result, priced, bare)).encode("utf-8", "surrogatepass"))
            out[f"{key} {name}"] = digest.hexdigest()
    return out


def compare(old: Path, new: Path) -> int:
    a, b = (json.loads(p.read_text(encoding="utf-8")) for p in (old, new))
    differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    print(f"{len(a)} / {len(b)} fingerprints, {len(differ)} differ" + (f": {differ[:10]}" if differ else ""))
    return 1 if differ else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--compare"]:
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
    if os.environ.get("PYTHONHASHSEED") != "0":
        print("warning: without PYTHONHASHSEED=0 some results' repr differ from run to run", file=sys.stderr)
    Path(sys.argv[1]).write_text(json.dumps(fingerprints(), indent=0, sort_keys=True), encoding="utf-8")
