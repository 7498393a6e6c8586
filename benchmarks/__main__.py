"""``python -m benchmarks [--quick]``: run every benchmark and write docs/benchmarks.md."""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from pathlib import Path

from benchmarks import (
    corpus,
    dashboard_pages,
    fleet_load,
    fleet_pages,
    langchain_baseline,
    replay,
    session_shapes,
)
from benchmarks.common import machine

OUT = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
# Sections written by hand (not measured here) that a rerun keeps as they are.
KEPT_SECTIONS = (
    "## Speed work of",
    "## Task overhead of a chunked evaluation",
    "## Mutation testing",
    "## OpenClaw replay before and after",
    "## Parsing and corpus evaluation before and after",
    # The 50k/100k pages take minutes: a default run (1k, 10k) keeps the recorded long-session table.
    "## Dashboard session pages up to",
)


def kept_sections(text: str) -> list[str]:
    """The lines of each section in ``KEPT_SECTIONS`` found in ``text``, up to the next ``## `` heading."""
    kept: list[str] = []
    keeping = False
    for line in text.splitlines():
        if line.startswith("## "):
            keeping = line.startswith(KEPT_SECTIONS)
        if keeping:
            kept.append(line)
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--quick", action="store_true", help="skip 100k sessions; time every 25th LangChain call"
    )
    parser.add_argument(
        "--long-sessions",
        action="store_true",
        help="dashboard pages at 50k and 100k messages too (several minutes on 2 cores)",
    )
    parser.add_argument(
        "--fleet-events",
        type=int,
        help="events stored for the fleet pages benchmark (default 10,000,000; 200,000 with --quick)",
    )
    args = parser.parse_args()
    sizes = (1_000, 10_000) if args.quick else replay.SIZES
    lines = [
        "# Benchmarks",
        "",
        f"Written by `make bench` on {datetime.date.today().isoformat()} ({machine()}). "
        "Numbers are wall-clock on a shared 2-core machine; rerun to compare.",
        "",
    ]
    print("replay …", flush=True)
    rows, parse_times = replay.run(sizes)
    lines += replay.report(rows, parse_times) + [""]
    lines += session_shapes.report(session_shapes.run(sizes)) + [""]
    print("langchain baseline …", flush=True)
    numbers = langchain_baseline.run(10_000, sample_every=25 if args.quick else 1)
    at_10k = {r.preset: r.seconds for r in rows if r.messages == 10_000}
    lines += langchain_baseline.report(numbers, at_10k) + [""]
    print("corpus evaluation …", flush=True)
    lines += corpus.report(corpus.run(40 if args.quick else corpus.SESSIONS)) + [""]
    print("dashboard …", flush=True)
    pages = dashboard_pages.LONG_SIZES if args.long_sessions else dashboard_pages.SIZES
    lines += dashboard_pages.report(dashboard_pages.run(pages)) + [""]
    print("live ingestion …", flush=True)
    runtimes = 20 if args.quick else 100
    # A process of its own: its throwaway database is chosen when Django starts.
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.fleet_load", str(runtimes), "200", "--json"],
        capture_output=True,
        text=True,
        check=True,
        cwd=OUT.parent.parent,
    )
    lines += fleet_load.report(json.loads(done.stdout.strip().splitlines()[-1]), runtimes) + [""]
    events = args.fleet_events or (200_000 if args.quick else 10_000_000)
    print(f"fleet pages at {events:,} events (PostgreSQL) …", flush=True)
    # A process of its own too: it points Django at a PostgreSQL database it creates.
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.fleet_pages", str(events)],
        capture_output=True,
        text=True,
        check=True,
        cwd=OUT.parent.parent,
    )
    lines += fleet_pages.report(json.loads(done.stdout.strip().splitlines()[-1])) + [""]
    if OUT.exists():
        lines += kept_sections(OUT.read_text(encoding="utf-8"))
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {OUT}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
