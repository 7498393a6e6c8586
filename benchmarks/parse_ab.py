"""Parsing and corpus evaluation of two source trees side by side: ``python -m benchmarks.parse_ab OLD NEW``.

Each tree is measured in its own process (``PYTHONPATH=tree``), the two alternating for ``--rounds``
rounds; the best of each is kept. Only the API both trees have is used (``parse_transcript``,
``CorpusPool``, ``building_long_lived``), so a tree from before a change can be compared with one after
it. Every time is given with ``json.loads`` of the same text measured in the same process, and CPU time
beside wall time: on a loaded shared machine the CPU ratios are the steadier ones.

Prints a Markdown table (and ``--json`` the numbers).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

MEASURE = r"""
import gc, json, resource, sys, time
from pathlib import Path
from simulator.corpus_pool import CorpusPool
from simulator.importers import parse_transcript
from simulator.long_lived import building_long_lived
from simulator.presets import PRESETS_BY_KEY
from simulator.profiles import profile_from_document
from simulator.synthetic import synthetic_openclaw_session

folder, size = Path(sys.argv[1]), int(sys.argv[2])
files = sorted(folder.glob("*.jsonl"))
texts = [p.read_text(encoding="utf-8") for p in files]

def cpu():
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

def timed(fn):
    c, w = cpu(), time.perf_counter()
    fn()
    return time.perf_counter() - w, cpu() - c

def loads_all(ts):  # as benchmarks.corpus: every line decoded, nothing kept
    n = 0
    for t in ts:
        for line in t.splitlines():
            if line.strip():
                json.loads(line)
                n += 1
    return n

def parse_paused(ts):
    with building_long_lived():
        out = [parse_transcript(t) for t in ts]
    gc.unfreeze()
    return out

def evaluate(priced):
    profile = profile_from_document(dict(PRESETS_BY_KEY["zeroclaw-documented"].document), name="p")
    with CorpusPool(files, workers=2, priced=priced) as pool:
        pool.evaluate([profile])

out = {}
out["corpus json.loads"] = timed(lambda: loads_all(texts))
out["corpus parse, 1 core, collector paused"] = timed(lambda: parse_paused(texts))
gc.collect()
out["evaluate, 2 workers, no cost model"] = timed(lambda: evaluate(False))
out["evaluate, 2 workers, with the cost model"] = timed(lambda: evaluate(True))
if size:
    big = [synthetic_openclaw_session(size // 4, tool_result_chars=2000)]
    out[f"{size:,} messages: json.loads"] = timed(lambda: loads_all(big))
    gc.collect()
    out[f"{size:,} messages: parse, library call"] = timed(lambda: parse_transcript(big[0]))
    gc.collect()
    out[f"{size:,} messages: parse, collector paused"] = timed(lambda: parse_paused(big))
print(json.dumps(out))
"""


def _measure(tree: str, folder: str, size: int) -> dict[str, list[float]]:
    env = {**os.environ, "PYTHONPATH": tree}
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, folder, str(size)],
        env=env,
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    numbers: dict[str, list[float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return numbers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--sessions", type=int, default=120)
    parser.add_argument("--size", type=int, default=100_000, help="messages of the long session (0: none)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from benchmarks.corpus import write_corpus  # noqa: PLC0415 -- the corpus of benchmarks.corpus

    best: dict[str, dict[str, tuple[float, float]]] = {"old": {}, "new": {}}
    with tempfile.TemporaryDirectory() as tmp:
        write_corpus(Path(tmp), args.sessions)
        for _ in range(args.rounds):
            for side, tree in (("old", args.old), ("new", args.new)):
                for name, (wall, cpu) in _measure(tree, tmp, args.size).items():
                    was = best[side].get(name, (float("inf"), float("inf")))
                    best[side][name] = (min(was[0], wall), min(was[1], cpu))
    if args.json:
        print(json.dumps(best))
        return
    print("| | before: wall | CPU | after: wall | CPU | CPU before → after |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, (wall, cpu) in best["new"].items():
        old_wall, old_cpu = best["old"][name]
        print(
            f"| {name} | {old_wall:.2f} s | {old_cpu:.2f} s | {wall:.2f} s | {cpu:.2f} s "
            f"| {old_cpu / cpu:.1f}× less |"
        )
    print()
    for side in ("old", "new"):
        numbers = best[side]
        base = numbers["corpus json.loads"][1]
        ratios = ", ".join(
            f"{name} {cpu / base:.1f}×"
            for name, (_, cpu) in numbers.items()
            if name.startswith(("corpus p", "eval"))
        )
        print(f"- {side}, CPU × corpus `json.loads`: {ratios}")
        big = [k for k in numbers if k.endswith("json.loads") and not k.startswith("corpus")]
        if big:
            base_big = numbers[big[0]][1]
            prefix = big[0].split(":")[0]
            parse = ", ".join(
                f"{name.split(': ')[1]} {cpu / base_big:.1f}× (wall {wall:.2f} s)"
                for name, (wall, cpu) in numbers.items()
                if name.startswith(prefix) and "parse" in name
            )
            print(f"- {side}, {prefix} CPU × its `json.loads`: {parse}")


if __name__ == "__main__":
    main()
