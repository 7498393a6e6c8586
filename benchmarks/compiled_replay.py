"""The OpenClaw replay with its hot modules compiled (mypyc) beside the same replay as Python.

One process per build, alternating (``TRIMSCOPE_COMPILED=0`` for Python; ``simulator/replay/compiled.py``),
each on the same synthetic sessions: the plain one and the browser-heavy one (a screenshot in every fourth
turn's tool result, thinking in every assistant on a Claude 3.7 route). Per session: ``prepare`` (shared by
both OpenClaw versions), 2026.9.6's first replay of the prepared session (it makes the session's facts),
another 2026.9.6 replay (what a knob change costs) and a 2026.7.1 replay; CPU time of the process, best of
the rounds. The ratio is Python over compiled.

``python -m benchmarks.compiled_replay [--json] [SIZES...]`` runs it alone and prints the table.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TypeVar

from benchmarks.common import ms

SIZES = (10_000, 100_000)
SHAPES: dict[str, dict[str, object]] = {
    "plain": {},
    "browser-heavy": {"screenshot_every": 4, "thinking": True, "model": "claude-3-7-sonnet-20250219"},
}
STEPS = ("prepare", "2026.9.6 first replay", "2026.9.6 another replay", "2026.7.1 replay")
ROUNDS = 2
T = TypeVar("T")


@dataclass(frozen=True)
class Row:
    shape: str
    messages: int
    step: str
    compiled: bool
    seconds: float


def _cpu(run: Callable[[], T]) -> tuple[float, T]:
    start = time.process_time()
    value = run()
    return time.process_time() - start, value


def measure(sizes: Sequence[int]) -> list[Row]:
    """Every step on every session in this process (compiled or not, as the package was imported)."""
    from simulator.importers import parse_transcript
    from simulator.presets import PRESETS_BY_KEY
    from simulator.profiles import profile_from_document
    from simulator.replay import COMPILED, prepare, replay_prepared
    from simulator.synthetic import synthetic_openclaw_session

    newer = profile_from_document(dict(PRESETS_BY_KEY["openclaw-2026.9.6"].document), name="9.6")
    older = profile_from_document(dict(PRESETS_BY_KEY["openclaw"].document), name="7.1")
    rows: list[Row] = []
    for size in sizes:
        for shape, options in SHAPES.items():
            text = synthetic_openclaw_session(size // 4, session_id=f"compiled-{size}", **options)  # type: ignore[arg-type]
            gc.disable()
            transcript = parse_transcript(text)
            gc.freeze()  # as the command line and the corpus workers hold a parsed transcript
            gc.enable()
            seconds, prepared = _cpu(partial(prepare, transcript, "openclaw"))
            first, _ = _cpu(partial(replay_prepared, prepared, newer))
            again, _ = _cpu(partial(replay_prepared, prepared, newer))
            old, _ = _cpu(partial(replay_prepared, prepared, older))
            for step, value in zip(STEPS, (seconds, first, again, old), strict=True):
                rows.append(Row(shape, len(transcript.messages), step, COMPILED.active, value))
            gc.unfreeze()
            gc.collect()
    return rows


def run_apart(sizes: Sequence[int], cwd: str, rounds: int = ROUNDS) -> list[Row]:
    """:func:`measure` in a fresh process per build and round, the builds alternating; the best of each."""
    best: dict[tuple[str, int, str, bool], Row] = {}
    for _ in range(rounds):
        for compiled in (True, False):
            env = {**os.environ, "TRIMSCOPE_COMPILED": "1" if compiled else "0"}
            done = subprocess.run(
                [sys.executable, "-m", "benchmarks.compiled_replay", "--json", *map(str, sizes)],
                capture_output=True,
                text=True,
                check=True,
                cwd=cwd,
                env=env,
            )
            for raw in json.loads(done.stdout.strip().splitlines()[-1]):
                row = Row(**raw)
                if row.compiled != compiled:
                    raise RuntimeError(f"asked for compiled={compiled}, ran compiled={row.compiled}")
                key = (row.shape, row.messages, row.step, row.compiled)
                if key not in best or row.seconds < best[key].seconds:
                    best[key] = row
    return list(best.values())


def report(rows: list[Row]) -> list[str]:
    lines = [
        "## Compiled hot modules beside Python",
        "",
        " ".join((__doc__ or "").split("\n\n")[1].split()),
        "",
        "| session | messages | step | Python | compiled | Python / compiled |",
        "|---|---:|---|---:|---:|---:|",
    ]
    by = {(r.shape, r.messages, r.step, r.compiled): r.seconds for r in rows}
    for shape, messages, step in sorted({(r.shape, r.messages, r.step) for r in rows}, key=_order):
        python, native = by.get((shape, messages, step, False)), by.get((shape, messages, step, True))
        if python is None or native is None:
            continue
        ratio = f"{python / native:.2f}×" if native > 0 else "—"
        lines.append(f"| {shape} | {messages:,} | {step} | {ms(python)} | {ms(native)} | {ratio} |")
    return lines


def _order(key: tuple[str, int, str]) -> tuple[int, int, int]:
    shape, messages, step = key
    return messages, list(SHAPES).index(shape), STEPS.index(step)


def main(argv: Sequence[str]) -> None:
    sizes = tuple(int(a.replace("_", "").replace(",", "")) for a in argv if a != "--json") or SIZES
    if "--json" in argv:
        print(json.dumps([dataclasses.asdict(row) for row in measure(sizes)]))
    else:
        print("\n".join(report(run_apart(sizes, str(Path(__file__).resolve().parent.parent)))))


if __name__ == "__main__":
    main(sys.argv[1:])
