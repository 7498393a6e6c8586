"""Judge mutmut's mutants of simulator/runtimes/ with mutmut's verdict rule, in one pytest session.

`mutmut run` starts a fresh pytest session per mutant (collection included) and needs a full traced run
of the selection first; on a loaded 2-core machine that is 1-10 s per mutant. This judge collects the
selection of `[tool.mutmut]` once, records which tests reach which function (one traced run, in a forked
child so no cache of the parent holds results of the original code), then forks one child per mutant
that runs the tests reaching the mutated function, fastest first, stopping at the first failure.
The verdict is mutmut's (killed when a test that reaches the function fails; a CPU-limit or wall-clock
timeout counts as killed), only cheaper: a mutant a literal test kills never waits for a whole session.

Usage, from the repository root after the mutants exist (`make mutate`, or `--generate` here):

    TRIMSCOPE_SHARED=../shared nice -n 15 .venv/bin/python tools/mutate_judge.py [--generate] [--jobs 2] \
        [--only survivors.txt] [--out results.jsonl] 'simulator.runtimes.zeroclaw.budget.*' ...

Writes one JSON line per mutant (name, status, the killing test) and prints a per-module summary.
"""

from __future__ import annotations

import argparse
import fnmatch
import gc
import json
import os
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _generate() -> None:
    from mutmut.__main__ import create_mutants
    from mutmut.mutation.trampoline import set_mutant_under_test
    from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir

    set_mutant_under_test("mutant_generation")
    os.makedirs("mutants", exist_ok=True)
    copy_src_dir()
    copy_also_copy_files()
    create_mutants(1)
    os.environ.pop("MUTANT_UNDER_TEST", None)


def _mutant_names(patterns: list[str]) -> dict[str, str]:
    """Every generated mutant matching a pattern -> its module's meta file, in the order of the patterns."""
    found: list[tuple[int, str, str]] = []
    for meta in sorted(Path("mutants/simulator/runtimes").rglob("*.py.meta")):
        data = json.loads(meta.read_text())
        for key in data["exit_code_by_key"]:
            rank = next(
                (i for i, p in enumerate(patterns) if fnmatch.fnmatch(key, p)), None if patterns else 0
            )
            if rank is not None:
                found.append((rank, key, str(meta)))
    return {key: meta for _, key, meta in sorted(found, key=lambda row: row[0])}


def _function_key(mutant: str) -> str:
    from mutmut.utils.format_utils import mangled_name_from_mutant_name

    return mangled_name_from_mutant_name(mutant.replace("__init__.", ""))


class Judge:
    def __init__(self, args: argparse.Namespace, mutants: dict[str, str]) -> None:
        self.args = args
        self.mutants = mutants

    def _stats(self, session: Any) -> tuple[dict[str, set[str]], dict[str, float]]:
        """Which test reaches which function, and each test's duration, from one traced run in a child."""
        from _pytest.runner import runtestprotocol

        out = Path(self.args.out).with_suffix(".stats.json")
        if out.exists() and not self.args.fresh_stats:
            data = json.loads(out.read_text())
            return {k: set(v) for k, v in data["tests"].items()}, data["durations"]
        pid = os.fork()
        if pid == 0:
            from mutmut.mutation.trampoline import set_mutant_under_test

            set_mutant_under_test("stats")
            durations: dict[str, float] = {}
            tests: dict[str, set[str]] = defaultdict(set)
            items = session.items
            for i, item in enumerate(items):
                _HITS.clear()
                start = time.perf_counter()
                runtestprotocol(item, nextitem=items[i + 1] if i + 1 < len(items) else None, log=False)
                durations[item.nodeid] = time.perf_counter() - start
                for fn in set(_HITS):
                    tests[fn].add(item.nodeid)
            out.write_text(
                json.dumps({"tests": {k: sorted(v) for k, v in tests.items()}, "durations": durations})
            )
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        if status != 0 or not out.exists():
            raise SystemExit(f"traced run failed (status {status})")
        data = json.loads(out.read_text())
        return {k: set(v) for k, v in data["tests"].items()}, data["durations"]

    def run(self, session: Any) -> None:
        if self.args.judges:
            # Re-judging survivors against named files: every collected test judges every mutant.
            every = {item.nodeid for item in session.items}
            durations = dict.fromkeys(every, 0.0)
            tests_by_fn: dict[str, set[str]] = {_function_key(m): every for m in self.mutants}
        else:
            tests_by_fn, durations = self._stats(session)
        by_id = {item.nodeid: item for item in session.items}
        # Forked children share the parent's heap copy-on-write; a frozen heap is not touched by their GC.
        gc.collect()
        gc.freeze()
        done: set[str] = set()
        out_path = Path(self.args.out)
        if out_path.exists() and not self.args.only:
            done = {json.loads(line)["name"] for line in out_path.read_text().splitlines() if line.strip()}
        queue = [m for m in self.mutants if m not in done]
        running: dict[int, tuple[str, float, float, list[str], int]] = {}
        killers: dict[str, list[str]] = {}
        if out_path.exists():
            for line in out_path.read_text().splitlines():
                row = json.loads(line) if line.strip() else {}
                if row.get("by"):
                    killers.setdefault(_function_key(row["name"]), []).insert(0, row["by"])
        started = time.monotonic()
        finished = 0
        with out_path.open("a") as out:
            while queue or running:
                while queue and len(running) < self.args.jobs:
                    name = queue.pop(0)
                    fn = _function_key(name)
                    reaching = [t for t in tests_by_fn.get(fn, ()) if t in by_id]
                    ids = sorted(
                        (t for t in reaching if durations[t] <= self.args.max_test_seconds), key=durations.get
                    )
                    # The test that killed the previous mutant of a function usually kills the next one.
                    ids.sort(key=lambda t: t not in killers.get(fn, ()))
                    slow = len(reaching) - len(ids)
                    if not ids:
                        out.write(json.dumps({"name": name, "status": "no tests", "slow": slow}) + "\n")
                        continue
                    estimate = sum(durations[t] for t in ids)
                    result_file = Path(f"/tmp/mutate_judge.{os.getpid()}.{name}")
                    pid = os.fork()
                    if pid == 0:
                        self._child(name, [by_id[t] for t in ids], estimate, result_file)
                    running[pid] = (name, time.monotonic(), estimate, ids, slow)
                pid, status = _wait_any(running, self.args.wall_factor)
                name, begun, estimate, ids, slow = running.pop(pid)
                result_file = Path(f"/tmp/mutate_judge.{os.getpid()}.{name}")
                killer = result_file.read_text() if result_file.exists() else ""
                if killer:
                    killers.setdefault(_function_key(name), []).insert(0, killer)
                result_file.unlink(missing_ok=True)
                if status == "timeout":
                    verdict = "timeout"
                elif os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
                    verdict = "survived"
                elif os.WIFEXITED(status) and os.WEXITSTATUS(status) == 1:
                    verdict = "killed"
                else:
                    verdict = "timeout"  # SIGXCPU / killed for CPU
                row = {"name": name, "status": verdict, "by": killer, "tests": len(ids), "slow": slow}
                row["seconds"] = round(time.monotonic() - begun, 2)
                out.write(json.dumps(row) + "\n")
                out.flush()
                finished += 1
                if finished % 50 == 0:
                    rate = finished / (time.monotonic() - started)
                    print(
                        f"  {finished} judged, {len(queue)} queued, {rate:.1f}/s",
                        file=sys.__stderr__,
                        flush=True,
                    )

    @staticmethod
    def _child(name: str, items: list[Any], estimate: float, result_file: Path) -> None:
        from _pytest.runner import runtestprotocol
        from mutmut.mutation.trampoline import set_mutant_under_test

        limit = int(10 + 4 * estimate)
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 1))
        set_mutant_under_test(name.replace("__init__.", ""))
        code = 0
        for i, item in enumerate(items):
            reports = runtestprotocol(item, nextitem=items[i + 1] if i + 1 < len(items) else None, log=False)
            if any(r.failed for r in reports):
                result_file.write_text(item.nodeid)
                code = 1
                break
        os._exit(code)


_HITS: set[str] = set()


def _patch_stats_recorder() -> None:
    """Record trampoline hits into _HITS (mutmut's recorder keys them by the current test name)."""
    import mutmut.mutation.trampoline as trampoline

    def record(orig_qual_name: str, caller: Any = None) -> None:
        _HITS.add(orig_qual_name)

    trampoline.record_trampoline_hit = record  # type: ignore[assignment]


def _wait_any(running: dict[int, Any], wall_factor: float) -> tuple[int, Any]:
    while True:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid:
            return pid, status
        now = time.monotonic()
        for pid, (_, begun, estimate, *_) in running.items():
            if now - begun > 60 + wall_factor * estimate:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                return pid, "timeout"
        time.sleep(0.005)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("patterns", nargs="*")
    parser.add_argument("--generate", action="store_true", help="(re)generate mutants/ first (mtime-aware)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--only", help="file of mutant names to (re)judge, one a line")
    parser.add_argument("--out", default="mutants/judge.jsonl")
    parser.add_argument("--fresh-stats", action="store_true", help="redo the traced run (tests changed)")
    parser.add_argument("--wall-factor", type=float, default=20.0)
    parser.add_argument(
        "--judges", nargs="*", help="test files that judge every selected mutant (no traced run)"
    )
    parser.add_argument(
        "--max-test-seconds",
        type=float,
        default=float("inf"),
        help="leave out judges slower than this in the traced run (whole-session suites); a lower bound then",
    )
    args = parser.parse_args()
    os.chdir(ROOT)
    if args.generate or not Path("mutants/simulator").exists():
        _generate()
    mutants = _mutant_names(args.patterns)
    if args.only:
        wanted = {line.strip() for line in Path(args.only).read_text().splitlines() if line.strip()}
        mutants = {k: v for k, v in mutants.items() if k in wanted}
    print(f"{len(mutants)} mutants selected", flush=True)
    args.out = str(Path(args.out).resolve())

    from mutmut.configuration import config

    cfg = config()
    _patch_stats_recorder()
    os.chdir("mutants")
    sys.path.insert(0, str(Path.cwd()))
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT]
    sys.path.insert(0, str(Path.cwd()))
    judge = Judge(args, mutants)

    class Plugin:
        def pytest_runtestloop(self, session: Any) -> bool:
            judge.run(session)
            return True

    import pytest

    selection = args.judges or cfg.pytest_add_cli_args_test_selection
    pytest.main(
        ["--rootdir=.", "-q", "-p", "no:randomly", *selection, *cfg.pytest_add_cli_args],
        plugins=[Plugin()],
    )
    _summary(args.out, mutants)


def _summary(out: str, mutants: dict[str, str]) -> None:
    verdicts = {}
    for line in Path(out).read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            verdicts[row["name"]] = row["status"]
    per_module: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for name in mutants:
        from mutmut.utils.format_utils import get_module_from_key

        module = get_module_from_key(name)
        per_module[module][verdicts.get(name, "not judged")] += 1
    for module, counts in sorted(per_module.items()):
        print(module, dict(counts))


if __name__ == "__main__":
    main()
