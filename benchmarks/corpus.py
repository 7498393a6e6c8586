"""Corpus evaluation against the standard library's ``json.loads`` reading the same files.

The corpus: ``SESSIONS`` synthetic coding sessions (``simulator.synthetic``, OpenClaw JSONL) of 10 to
~150 turns, written to a temporary folder. Side by side in one run:

* ``json.loads`` reading every file (one call per JSONL line) on one core -- the yardstick;
* ``python -m simulator evaluate`` doing the same work in process (``CorpusPool``, 2 workers, one profile),
  with and without the cost model, the pool's start and the parsing included;
* the CPU time of all processes for the same runs (steadier than wall time on a loaded machine);
* where the time goes, on one core: the tokenizer's start-up, parse (with the collector paused, as the
  workers parse), the o200k counts the cost model needs (one memo per corpus, as the workers count),
  replay, metrics, cost.

``python -m benchmarks.corpus`` prints the section and writes it into docs/benchmarks.md.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.common import best_of, ms
from simulator.corpus_pool import CorpusPool
from simulator.estimates import _fast_encoding
from simulator.evaluate import PreparedTranscript, summarise
from simulator.evaluate.metrics import measure
from simulator.importers import parse_transcript
from simulator.long_lived import building_long_lived
from simulator.presets import PRESETS_BY_KEY
from simulator.profiles import profile_from_document
from simulator.replay import simulate
from simulator.synthetic import synthetic_openclaw_session

SESSIONS = 120
PROFILE = "zeroclaw-documented"
WORKERS = 2
OUT = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
HEADING = "## Corpus evaluation"


def write_corpus(folder: Path, sessions: int = SESSIONS) -> list[Path]:
    files = []
    for i in range(sessions):
        path = folder / f"session-{i:03}.jsonl"
        turns = 10 + (i * 37) % 140
        path.write_text(
            synthetic_openclaw_session(turns, tool_result_chars=1500, session_id=f"bench-{i}"),
            encoding="utf-8",
        )
        files.append(path)
    return files


def _json_loads_all(files: list[Path]) -> int:
    n = 0
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                json.loads(line)
                n += 1
    return n


def _cpu() -> float:
    """CPU seconds of this process and of its children that have been waited for."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _evaluate(files: list[Path], *, priced: bool) -> int:
    profile = profile_from_document(dict(PRESETS_BY_KEY[PROFILE].document), name=PROFILE)
    with CorpusPool(files, workers=WORKERS, priced=priced) as pool:
        (rows,) = pool.evaluate([profile])
    return summarise(profile.name, profile.runtime, rows).calls


def _cpu_of(fn: Callable[[], object]) -> float:
    start = _cpu()
    fn()
    return _cpu() - start


def _stages(files: list[Path]) -> tuple[dict[str, float], tuple[int, int]]:
    """CPU seconds per stage in this process, and (distinct, all) message texts the cost model counts."""
    profile = profile_from_document(dict(PRESETS_BY_KEY[PROFILE].document), name=PROFILE)
    out: dict[str, float] = {}
    start = time.process_time()
    _fast_encoding("o200k_base")  # built afresh: this process loaded its own before the pools forked
    out["tokenizer start-up (o200k ranks, once per process)"] = time.process_time() - start
    start = time.process_time()
    texts = [p.read_text(encoding="utf-8") for p in files]
    out["read files"] = time.process_time() - start
    start = time.process_time()
    with building_long_lived():  # as the corpus workers parse
        transcripts = [parse_transcript(t) for t in texts]
    out["parse (importers)"] = time.process_time() - start
    start = time.process_time()
    bare = [PreparedTranscript.of(t, source="", priced=False) for t in transcripts]
    out["turn map"] = time.process_time() - start
    start = time.process_time()
    counted: dict[str, int] = {}  # one memo for the corpus, as the workers count
    priced = [PreparedTranscript.of(t, source="", counted=counted) for t in transcripts]
    out["o200k counts for the cost model"] = time.process_time() - start - out["turn map"]
    distinct = (len(counted), sum(len(t.messages) for t in transcripts))
    start = time.process_time()
    results = [simulate(t, profile) for t in transcripts]
    out["replay"] = time.process_time() - start
    start = time.process_time()
    for p, r in zip(bare, results, strict=True):
        measure(p, profile, r)
    out["metrics"] = time.process_time() - start
    start = time.process_time()
    for p, r in zip(priced, results, strict=True):
        measure(p, profile, r)
    out["cost model (requests, cache, prices)"] = time.process_time() - start - out["metrics"]
    gc.unfreeze()
    return out, distinct


def run(sessions: int = SESSIONS) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        files = write_corpus(Path(tmp), sessions)
        size = sum(p.stat().st_size for p in files)
        baseline, lines = best_of(3, lambda: _json_loads_all(files))
        unpriced, calls = best_of(2, lambda: _evaluate(files, priced=False))
        priced, _ = best_of(2, lambda: _evaluate(files, priced=True))
        stages, distinct = _stages(files)
        cpu_base = min(_cpu_of(lambda: _json_loads_all(files)) for _ in range(3))
        cpu_eval = min(_cpu_of(lambda: _evaluate(files, priced=False)) for _ in range(2))
        cpu_priced = min(_cpu_of(lambda: _evaluate(files, priced=True)) for _ in range(2))
    return {
        "cpu_json_loads": cpu_base,
        "cpu_evaluate": cpu_eval,
        "cpu_evaluate_priced": cpu_priced,
        "distinct_texts": distinct,
        "sessions": sessions,
        "bytes": size,
        "lines": lines,
        "calls": calls,
        "json_loads": baseline,
        "evaluate": unpriced,
        "evaluate_priced": priced,
        "stages": stages,
    }


def _verdict(ratio: float) -> str:
    """The goal's verdict for one evaluation: at most 2× ``json.loads``."""
    return "met" if ratio <= 2 else "not met"


def report(n: dict[str, object]) -> list[str]:
    base = float(n["json_loads"])  # type: ignore[arg-type]
    unpriced = float(n["evaluate"])  # type: ignore[arg-type]
    priced = float(n["evaluate_priced"])  # type: ignore[arg-type]
    stages: dict[str, float] = n["stages"]  # type: ignore[assignment]
    cpu_base = float(n["cpu_json_loads"])  # type: ignore[arg-type]
    cpu_eval = float(n["cpu_evaluate"])  # type: ignore[arg-type]
    cpu_priced = float(n["cpu_evaluate_priced"])  # type: ignore[arg-type]
    distinct_texts: tuple[int, int] = n["distinct_texts"]  # type: ignore[assignment]
    distinct, texts = distinct_texts
    lines = [
        HEADING,
        "",
        f"{n['sessions']} synthetic sessions ({int(n['bytes']) / 1e6:.1f} MB, {n['lines']:,} JSONL lines, "  # type: ignore[call-overload]
        f"{n['calls']:,} model calls), profile `{PROFILE}`, best of 2-3 runs. Goal: evaluating with "
        f"{WORKERS} workers costs at most 2× `json.loads` reading the same files on one core.",
        "",
        "| | wall time | × json.loads |",
        "|---|---:|---:|",
        f"| `json.loads` of every line, 1 core | {ms(base)} | 1.0× |",
        f"| evaluate, {WORKERS} workers, no cost model (`--no-cost`) | {ms(unpriced)} "
        f"| {unpriced / base:.1f}× |",
        f"| evaluate, {WORKERS} workers, with the cost model | {ms(priced)} | {priced / base:.1f}× |",
        "",
        f"CPU time of all processes (best of 2-3; steadier than wall time on a loaded machine): `json.loads` "
        f"{ms(cpu_base)}, evaluate without the cost model {ms(cpu_eval)} ({cpu_eval / cpu_base:.1f}×), with "
        f"it {ms(cpu_priced)} ({cpu_priced / cpu_base:.1f}×). With {WORKERS} workers the wall time can reach "
        f"half the CPU time at best: {cpu_eval / cpu_base / WORKERS:.1f}× and "
        f"{cpu_priced / cpu_base / WORKERS:.1f}× `json.loads`. Machine load average during the run: "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs.",
        "",
        "Where the time goes, one core, CPU time (× `json.loads`'s CPU time):",
        "",
        "| stage | time | × json.loads |",
        "|---|---:|---:|",
    ]
    lines += [f"| {name} | {ms(t)} | {t / cpu_base:.1f}× |" for name, t in stages.items()]
    ratio = unpriced / base
    ordered = sorted(stages.items(), key=lambda kv: -kv[1])
    lines += [
        "",
        f"Without the cost model {ratio:.1f}× (goal {_verdict(ratio)}); with it {priced / base:.1f}× "
        f"(goal {_verdict(priced / base)}). The largest stages are {ordered[0][0]} "
        f"({ordered[0][1] / cpu_base:.1f}×) "
        f"and {ordered[1][0]} ({ordered[1][1] / cpu_base:.1f}×). Parsing decodes with msgspec (the standard "
        "library only for what it refuses) into frozen msgspec structs; each worker parses its share once "
        "and keeps it for every profile. The cost model counts each distinct message text once per "
        f"worker: this corpus has {distinct:,} distinct texts in {texts:,} messages (the synthetic sessions "
        "reuse their tool results), so its o200k stage is far cheaper than on real sessions, where "
        "repeats are re-reads and standard prompts. The numbers are wall-clock on a machine shared "
        "with other jobs, so compare ratios within one run.",
    ]
    return lines


def write(section: list[str]) -> None:
    """Replace (or append) the corpus section of docs/benchmarks.md."""
    text = OUT.read_text(encoding="utf-8") if OUT.exists() else "# Benchmarks\n"
    if HEADING in text:
        head, _, rest = text.partition(HEADING)
        after = rest.find("\n## ")
        tail = rest[after:] if after >= 0 else "\n"
        text = head + "\n".join(section) + "\n" + tail
    else:
        text = text.rstrip("\n") + "\n\n" + "\n".join(section) + "\n"
    OUT.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    section = report(run())
    print("\n".join(section))
    write(section)
