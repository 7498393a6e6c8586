"""``python -m simulator evaluate PATH... --profile P`` and ``python -m simulator tune PATH... --runtime R``.

``evaluate`` replays every transcript under each profile and prints per-profile totals; ``tune`` searches
one runtime's knobs for the profile that best meets an objective under the given limits. Both read the
corpus once into a local process pool (``--workers``). Unreadable files are listed under ``failed`` and the
rest go on; bad arguments exit 2 with the problem on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from simulator.corpus_pool import CorpusPool, Failure, corpus_files
from simulator.errors import SimulatorError
from simulator.evaluate import OBJECTIVES, Constraints, ProfileSummary, Scored, summarise, tune
from simulator.jsonvalue import JSON
from simulator.presets import PRESETS_BY_KEY
from simulator.profiles import RUNTIMES, Profile, profile_from_document, profile_from_text, profile_to_toml


class UsageError(Exception):
    """A bad argument: printed on stderr, exit 2."""


def _profile(ref: str) -> Profile:
    if ref in PRESETS_BY_KEY:
        preset = PRESETS_BY_KEY[ref]
        return profile_from_document(dict(preset.document), name=preset.key)
    path = Path(ref)
    if not path.is_file():
        raise UsageError(
            f"--profile {ref}: no such file and no such preset (presets: {', '.join(PRESETS_BY_KEY)})"
        )
    try:
        return profile_from_text(path.read_text(encoding="utf-8"), name=path.stem)
    except SimulatorError as exc:
        raise UsageError(f"--profile {ref}: {exc.message}") from None


def _files(paths: Sequence[str]) -> list[Path]:
    try:
        return corpus_files(paths)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None


def _failed_json(failed: Sequence[Failure]) -> list[JSON]:
    return [{"file": f.file, "error": f.error} for f in failed]


def _workers(raw: int | None) -> int:
    if raw is None:
        return max(1, min(os.cpu_count() or 1, 4))
    if raw < 1:
        raise UsageError(f"--workers must be at least 1, got {raw}")
    return raw


def _summaries(pool: CorpusPool, profiles: Sequence[Profile]) -> list[ProfileSummary]:
    return [
        summarise(p.name, p.runtime, rows) for p, rows in zip(profiles, pool.evaluate(profiles), strict=True)
    ]


def _print_rows(rows: Sequence[ProfileSummary]) -> None:
    print(
        f"{'profile':<40} {'sessions':>8} {'calls':>8} {'trims':>7} {'overflow':>8} {'dropped':>9} "
        f"{'tokens sent':>14} {'cost $':>10}"
    )
    for s in rows:
        print(
            f"{s.profile[:40]:<40} {s.sessions:>8,} {s.calls:>8,} {s.trims:>7,} {s.overflow_failures:>8,} "
            f"{s.messages_dropped:>9,} {s.tokens_sent:>14,} {s.cost_usd if s.priced else float('nan'):>10.4f}"
        )


def _cmd_evaluate(args: argparse.Namespace) -> int:
    try:
        profiles = [_profile(ref) for ref in args.profile]
        files = _files(args.paths)
        workers = _workers(args.workers)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with CorpusPool(files, workers=workers, priced=not args.no_cost) as pool:
        rows = _summaries(pool, profiles)
        failed = pool.failed
        sessions = pool.sessions
    if args.json:
        payload: dict[str, JSON] = {
            "sessions": sessions,
            "failed": _failed_json(failed),
            "profiles": [s.row() for s in rows],
        }
        print(json.dumps(payload, ensure_ascii=False))
        return 0
    print(f"{sessions:,} sessions, {len(failed)} unreadable\n")
    _print_rows(rows)
    for f in failed:
        print(f"unreadable: {f.file}: {f.error}")
    return 0


def _scored_json(scored: Scored) -> dict[str, JSON]:
    return {"profile": scored.candidate.document, "metrics": scored.summary.row()}


def _fraction(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {raw!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {raw}")
    return value


def _count(raw: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {raw!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {raw}")
    return value


def _cmd_tune(args: argparse.Namespace) -> int:
    try:
        files = _files(args.paths)
        workers = _workers(args.workers)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    constraints = Constraints(
        max_overflow=args.max_overflow,
        min_kept_turns=args.min_kept_turns,
        kept_at=args.kept_at,
        max_trims_per_session=args.max_trims,
    )
    with CorpusPool(files, workers=workers) as pool:
        if pool.sessions == 0:
            print("error: no readable transcript in the given paths", file=sys.stderr)
            for f in pool.failed:
                print(f"unreadable: {f.file}: {f.error}", file=sys.stderr)
            return 2
        result = tune(
            args.runtime,
            lambda profiles: _summaries(pool, profiles),
            constraints=constraints,
            objective=args.objective,
        )
    if args.json:
        payload: dict[str, JSON] = {
            "best": None if result.best is None else _scored_json(result.best),
            "front": [_scored_json(s) for s in result.front],
        }
        print(json.dumps(payload, ensure_ascii=False))
    else:
        feasible = sum(s.feasible for s in result.scored)
        print(f"{len(result.scored)} candidates tried, {feasible} meet the limits\n")
        if result.best is not None:
            print(f"recommended: {result.best.candidate.profile.name}")
            for reason in result.reasons:
                print(f"  - {reason}")
            print()
            print(profile_to_toml(result.best.candidate.profile))
        print("Pareto front (cost against mean share of turns kept):")
        for s in result.front:
            kept = s.summary.mean_kept_turn_fraction
            print(f"  ${s.summary.cost_usd:>10.4f}  {kept:6.1%}  {s.candidate.profile.name}")
    if result.best is None:
        print("no candidate meets the constraints", file=sys.stderr)
        return 1
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    evaluate = sub.add_parser("evaluate", help="replay a corpus of transcripts under one or more profiles")
    evaluate.add_argument("paths", nargs="+", metavar="PATH", help="transcript files or folders (recursive)")
    evaluate.add_argument(
        "--profile",
        action="append",
        required=True,
        help=f"profile TOML/JSON file or preset key ({', '.join(PRESETS_BY_KEY)}); repeat for more",
    )
    evaluate.add_argument("--workers", type=int, help="worker processes (default: CPUs, at most 4)")
    evaluate.add_argument(
        "--no-cost", action="store_true", help="skip the cost model (cost_usd is null); much faster"
    )
    evaluate.add_argument("--json", action="store_true", help="print JSON instead of the table")
    evaluate.set_defaults(func=_cmd_evaluate)

    search = sub.add_parser("tune", help="search one runtime's knobs for the best profile over a corpus")
    search.add_argument("paths", nargs="+", metavar="PATH", help="transcript files or folders (recursive)")
    search.add_argument("--runtime", required=True, choices=RUNTIMES)
    search.add_argument(
        "--max-overflow", type=_count, default=0, help="overflow failures allowed (default 0)"
    )
    search.add_argument(
        "--min-kept-turns", type=_fraction, default=0.0, help="least share of turns kept, 0-1 (default 0)"
    )
    search.add_argument(
        "--kept-at",
        choices=("every", "average"),
        default="every",
        help="--min-kept-turns holds at every call (default) or on average over calls",
    )
    search.add_argument("--max-trims", type=_count, help="most trims allowed in any one session")
    search.add_argument("--objective", choices=OBJECTIVES, default="cost")
    search.add_argument("--workers", type=int, help="worker processes (default: CPUs, at most 4)")
    search.add_argument("--json", action="store_true", help="print JSON instead of the report")
    search.set_defaults(func=_cmd_tune)
