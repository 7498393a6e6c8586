"""OpenClaw replays of sessions whose shape makes a transform change old messages at every call.

Two shapes of the synthetic session (``simulator.synthetic.synthetic_openclaw_session``), beside the plain
one: a screenshot in every fourth turn's tool result (history image cleanup replaces each once its turn is
older than the last three completed turns) and thinking in every assistant message on a Claude 3.7 route
(the transcript policy strips it from every assistant but the latest). A replay that ran a whole-history
transform at every call grew with the square of the session; each row's ratio to the plain session's
replay at the same size shows what the shape costs. Times are the replay from a prepared transcript
(``replay_prepared``; each session is prepared once beforehand), best of the runs.

``python -m benchmarks.session_shapes [SIZES...]`` runs it alone and prints the table.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from benchmarks.common import best_of, ms
from simulator.importers import parse_transcript
from simulator.presets import PRESETS_BY_KEY
from simulator.profiles import profile_from_document
from simulator.replay import prepare, replay_prepared
from simulator.synthetic import synthetic_openclaw_session

SIZES = (1_000, 10_000, 100_000)
PRESETS = ("openclaw", "openclaw-2026.9.6")
SHAPES: dict[str, dict[str, object]] = {
    "plain": {},
    "screenshots (every 4th turn)": {"screenshot_every": 4},
    "thinking, dropped (Claude 3.7)": {"thinking": True, "model": "claude-3-7-sonnet-20250219"},
}
UP_TO: dict[tuple[str, str], int] = {}
"""(shape, preset) replays with no fast path yet, measured only up to this many messages (none now)."""


@dataclass(frozen=True)
class ShapeRow:
    shape: str
    preset: str
    messages: int
    calls: int
    seconds: float


def run(sizes: Sequence[int] = SIZES) -> list[ShapeRow]:
    rows: list[ShapeRow] = []
    for size in sizes:
        for shape, options in SHAPES.items():
            text = synthetic_openclaw_session(size // 4, **options)  # type: ignore[arg-type]
            transcript = parse_transcript(text)
            prepared = prepare(transcript, "openclaw")
            for key in PRESETS:
                if size > UP_TO.get((shape, key), size):
                    continue
                profile = profile_from_document(dict(PRESETS_BY_KEY[key].document), name=key)
                seconds, result = best_of(
                    2 if size <= 10_000 else 1, partial(replay_prepared, prepared, profile)
                )
                rows.append(ShapeRow(shape, key, len(transcript.messages), len(result.calls), seconds))
            del transcript, prepared
            gc.collect()
    return rows


def report(rows: list[ShapeRow]) -> list[str]:
    plain = {(r.preset, r.messages): r.seconds for r in rows if r.shape == "plain"}
    capped = ", ".join(f"{shape} on {preset} up to {n:,} messages" for (shape, preset), n in UP_TO.items())
    lines = [
        "## OpenClaw session shapes: old screenshots and dropped thinking",
        "",
        (__doc__ or "").split("\n\n")[1].replace("\n", " "),
        "",
        *([f"Measured only where the replay has no fast path yet: {capped}.", ""] if UP_TO else []),
        "| shape | profile | messages | calls | replay prepared | × plain |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        base = plain.get((r.preset, r.messages))
        ratio = f"{r.seconds / base:.1f}×" if base and r.shape != "plain" else "—"
        lines.append(f"| {r.shape} | {r.preset} | {r.messages:,} | {r.calls:,} | {ms(r.seconds)} | {ratio} |")
    return lines


def main(argv: Sequence[str]) -> None:
    """``[--json] SIZES...``: the table, or (``--json``) the rows as one JSON line last."""
    sizes = tuple(int(a.replace("_", "").replace(",", "")) for a in argv if a != "--json") or SIZES
    rows = run(sizes)
    if "--json" in argv:
        print(json.dumps([dataclasses.asdict(row) for row in rows]))
    else:
        print("\n".join(report(rows)))


def run_apart(sizes: Sequence[int], cwd: str) -> list[ShapeRow]:
    """:func:`run` in a process of its own (after the replay benchmarks in their process, the 100,000-message
    rows read up to 1.5× slower: their leftovers weigh on every collection)."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.session_shapes", "--json", *map(str, sizes)],
        capture_output=True,
        text=True,
        check=True,
        cwd=cwd,
    )
    return [ShapeRow(**row) for row in json.loads(done.stdout.strip().splitlines()[-1])]


if __name__ == "__main__":
    main(sys.argv[1:])
