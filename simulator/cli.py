"""Command line: ``python -m simulator {conform,inspect,simulate,trace,evaluate,tune} ...``.

This is the imperative shell of the library: it reads files and prints; everything it calls is pure.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from simulator.conformance.runner import format_failure, run_paths


def _vector_files(paths: Sequence[str]) -> list[Path]:
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(path.rglob("*.json")))
        elif path.is_file():
            found.append(path)
        else:
            raise FileNotFoundError(f"no such vector file or folder: {raw}")
    return found


def _cmd_conform(args: argparse.Namespace) -> int:
    try:
        files = _vector_files(args.paths)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report = run_paths([(str(f), f.read_text(encoding="utf-8")) for f in files])
    for failure in report.failures():
        print(format_failure(failure))
    print(f"{report.passed} passed, {report.failed} failed")
    return 0 if report.failed == 0 else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m simulator", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    conform = sub.add_parser("conform", help="run conformance vectors against the reproduced runtimes")
    conform.add_argument("paths", nargs="+", help="vector files or folders (searched for *.json)")
    conform.set_defaults(func=_cmd_conform)
    _register_more(sub)
    return parser


def _register_more(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Commands defined in their own modules register here, keeping this file a dispatcher."""
    from simulator import cli_evaluate, cli_inspect, cli_simulate, cli_trace

    cli_inspect.register(sub)
    cli_simulate.register(sub)
    cli_trace.register(sub)
    cli_evaluate.register(sub)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code
