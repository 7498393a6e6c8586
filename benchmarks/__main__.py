"""``python -m benchmarks [--quick]``: run every benchmark and write docs/benchmarks.md."""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from pathlib import Path

from benchmarks import (
    compiled_replay,
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


SECTIONS = ("replay", "shapes", "compiled", "langchain", "corpus", "pages", "ingestion", "fleet")
"""What ``--only`` names, in the order of the document."""


def _is_section(name: str, heading: str, *, long_sessions: bool) -> bool:
    """Whether ``heading`` is the heading of section ``name`` as written by a run (with ``long_sessions``:
    the long-session pages, written beside the default run's table)."""
    if name == "pages":
        if long_sessions:
            return heading.startswith("## Dashboard session pages up to")
        return heading == "## Dashboard session pages"
    prefixes = {
        "replay": "## Session replay (simulator only)",
        "shapes": "## OpenClaw session shapes",
        "compiled": "## Compiled hot modules beside Python",
        "langchain": "## Against LangChain",
        "corpus": "## Corpus evaluation",
        "ingestion": "## Live ingestion",
        "fleet": "## Fleet pages at",
    }
    return heading.startswith(prefixes[name])


def spliced_document(text: str, fresh: dict[str, list[str]], *, long_sessions: bool) -> list[str]:
    """``text`` with each section named in ``fresh`` replaced in place by its new lines (appended when the
    document has none), every other section kept as it is."""
    out: list[str] = []
    placed: set[str] = set()
    skipping = False
    for line in text.splitlines():
        if line.startswith("## "):
            name = next((n for n in fresh if _is_section(n, line, long_sessions=long_sessions)), None)
            skipping = name is not None
            if name is not None and name not in placed:
                out += fresh[name]
                placed.add(name)
        if not skipping:
            out.append(line)
    for name, lines in fresh.items():
        if name not in placed:
            out += ["", *lines]
    return out


def _sections(args: argparse.Namespace, chosen: tuple[str, ...]) -> dict[str, list[str]]:
    """Each chosen section measured, as its lines (a blank line last)."""
    out: dict[str, list[str]] = {}
    sizes = (1_000, 10_000) if args.quick else replay.SIZES
    rows: list[replay.ReplayRow] = []
    if "replay" in chosen or "langchain" in chosen:
        print("replay …", flush=True)
        # LangChain alone is compared with the replay at 10,000 messages only.
        rows, parse_times = replay.run(sizes if "replay" in chosen else (10_000,))
        if "replay" in chosen:
            out["replay"] = replay.report(rows, parse_times) + [""]
    if "shapes" in chosen:
        out["shapes"] = session_shapes.report(session_shapes.run_apart(sizes, str(OUT.parent.parent))) + [""]
    if "compiled" in chosen:
        print("compiled hot modules beside Python …", flush=True)
        at = (10_000,) if args.quick else compiled_replay.SIZES
        out["compiled"] = compiled_replay.report(compiled_replay.run_apart(at, str(OUT.parent.parent))) + [""]
    if "langchain" in chosen:
        print("langchain baseline …", flush=True)
        numbers = langchain_baseline.run(10_000, sample_every=25 if args.quick else 1)
        at_10k = {r.preset: r.seconds for r in rows if r.messages == 10_000}
        out["langchain"] = langchain_baseline.report(numbers, at_10k) + [""]
    if "corpus" in chosen:
        print("corpus evaluation …", flush=True)
        out["corpus"] = corpus.report(corpus.run(40 if args.quick else corpus.SESSIONS)) + [""]
    if "pages" in chosen:
        print("dashboard …", flush=True)
        pages = dashboard_pages.LONG_SIZES if args.long_sessions else dashboard_pages.SIZES
        found = dashboard_pages.report(dashboard_pages.run_apart(pages, str(OUT.parent.parent)))
        if args.long_sessions:
            today = datetime.date.today().isoformat()
            found[0] = f"## Dashboard session pages up to {max(pages):,} messages ({today})"
        out["pages"] = found + [""]
    if "ingestion" in chosen:
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
        out["ingestion"] = fleet_load.report(json.loads(done.stdout.strip().splitlines()[-1]), runtimes) + [
            ""
        ]
    if "fleet" in chosen:
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
        out["fleet"] = fleet_pages.report(json.loads(done.stdout.strip().splitlines()[-1])) + [""]
    return out


def _only(raw: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in raw.split(",") if n.strip())
    unknown = [n for n in names if n not in SECTIONS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown section {', '.join(unknown) or '(none)'}; one of {', '.join(SECTIONS)}"
        )
    return names


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
    parser.add_argument(
        "--only",
        type=_only,
        help=f"re-measure only these sections ({','.join(SECTIONS)}); the rest of the document is kept",
    )
    args = parser.parse_args()
    chosen = args.only or SECTIONS
    fresh = _sections(args, chosen)
    header = [
        "# Benchmarks",
        "",
        f"Written by `make bench` on {datetime.date.today().isoformat()} ({machine()}). "
        "Numbers are wall-clock on a shared 2-core machine; rerun to compare.",
        "",
    ]
    if args.only and OUT.exists():
        for name, section in fresh.items():
            # Each section re-measured alone says when and where (the document's header is older).
            when = f"{datetime.date.today().isoformat()} ({machine()})"
            section[1:1] = ["", f"Re-measured on {when} with `python -m benchmarks --only {name}`."]
        lines = spliced_document(OUT.read_text(encoding="utf-8"), fresh, long_sessions=args.long_sessions)
    else:
        lines = header + [line for name in SECTIONS if name in fresh for line in fresh[name]]
        if OUT.exists():
            old = OUT.read_text(encoding="utf-8")
            if args.long_sessions:  # the long-session table just measured replaces the one recorded
                old = "\n".join(spliced_document(old, {"pages": []}, long_sessions=True))
            lines += kept_sections(old)
    OUT.parent.mkdir(exist_ok=True)
    # One newline at the end of the document, however the last section ends.
    OUT.write_text("\n".join(lines).rstrip("\n") + "\n", encoding="utf-8")
    print(f"wrote {OUT}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
