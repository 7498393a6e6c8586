"""``python -m simulator simulate FILE --profile P [--profile Q] [--json]``: replay a transcript.

A profile is a config file (``simulator.config_files``: a runtime's whole config or a Trimscope
profile, TOML or JSON5) or the key of a preset (``simulator.presets``); a file yields every profile
in it (one per agent, runtime profile or preset), ``FILE#NAME`` exactly one. With no ``--profile``
every runtime's default preset is used. Two or more profiles add a comparison. Bad input exits 2
with the error on stderr.

Every result is priced (``simulator.cost``): ``--pricing KEY`` picks the price table entry (default:
the model the transcript records when the table has it, else the table's default, with a warning),
``--assumed-gap SECONDS`` the time between calls of a transcript without timestamps (read by the cache
model and by OpenClaw's TTL pruning alike; default ``simulator.assumed_times.DEFAULT_GAP_SECONDS``, stated
in the report and in each result's ``warnings``), ``--cache-ttl 5m|1h`` the lifetime of cache writes
(Anthropic's 1-hour writes cost 2x input instead of 1.25x). ``--json`` gives each call a ``cost`` object,
each result ``pricing``, ``summary.cost_usd`` and ``cost_model`` (gap, baseline, cache breaks, recorded
usage).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from simulator.assumed_times import DEFAULT_GAP_SECONDS
from simulator.config_files import read_config_text
from simulator.cost.compare import cost_comparison
from simulator.cost.priced import ResultCost, with_cost
from simulator.cost.pricing import CACHE_TTLS
from simulator.costing import profile_cost
from simulator.errors import SimulatorError
from simulator.importers import FORMATS, parse_transcript
from simulator.long_lived import building_long_lived
from simulator.presets import PRESETS_BY_KEY
from simulator.profiles import Profile, profile_from_document
from simulator.registry import runtimes, versions
from simulator.replay import simulate
from simulator.replay.compare import compare
from simulator.replay.report import render_comparison, render_result, result_to_json

# Each runtime's default version brings its first preset: with no --profile, every runtime is shown.
DEFAULT_PRESETS = tuple(
    versions(runtime)[0].presets[0].key for runtime in runtimes() if versions(runtime)[0].presets
)


def _load_profiles(ref: str) -> list[Profile]:
    """A preset, every profile of a config file, or (``FILE#NAME``) the one called NAME."""
    if ref in PRESETS_BY_KEY:
        preset = PRESETS_BY_KEY[ref]
        return [profile_from_document(dict(preset.document), name=preset.key)]
    path, name = Path(ref), None
    if not path.is_file() and "#" in ref:
        file_part, _, name = ref.rpartition("#")
        path = Path(file_part)
    if not path.is_file():
        raise SimulatorError(f"no such file and no such preset (presets: {', '.join(PRESETS_BY_KEY)})")
    config = read_config_text(path.read_text(encoding="utf-8"), filename=path.name)
    return [config.select(name)] if name is not None else list(config.profiles)


def _profile_notes(profile: Profile) -> list[str]:
    """What the config reader said about a profile: its warnings and every key kept, not modelled."""
    kept = [f"kept, not modelled: {k.path}" for k in profile.kept]
    return [*profile.notes, *kept]


def _cmd_simulate(args: argparse.Namespace) -> int:
    try:
        text = Path(args.file).read_text(encoding="utf-8")
        with building_long_lived():
            transcript = parse_transcript(text, format=args.format, source=args.file)
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    except SimulatorError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 2
    profiles: list[Profile] = []
    for ref in args.profile or DEFAULT_PRESETS:
        try:
            profiles.extend(_load_profiles(ref))
        except (OSError, UnicodeDecodeError) as exc:
            print(f"error: --profile {ref}: cannot read it: {exc}", file=sys.stderr)
            return 2
        except SimulatorError as exc:
            print(f"error: --profile {ref}: {exc.message}", file=sys.stderr)
            return 2
    gap = args.assumed_gap
    results = [simulate(transcript, p, assumed_gap_seconds=gap) for p in profiles]
    try:
        costs = [
            profile_cost(transcript, p, r, pricing=args.pricing, assumed_gap_seconds=gap, ttl=args.cache_ttl)
            for p, r in zip(profiles, results, strict=True)
        ]
    except SimulatorError as exc:
        print(f"error: --pricing {args.pricing}: {exc.message}", file=sys.stderr)
        return 2
    comparison = compare(transcript, results) if len(results) > 1 else None
    if args.json:
        payload = {
            "transcript": {"format": transcript.format, "messages": len(transcript.messages)},
            "results": [
                {
                    **with_cost(result_to_json(r), c),
                    "warnings": _notes(p, c, r.warnings),
                }
                for r, p, c in zip(results, profiles, costs, strict=True)
            ],
        }
        if comparison is not None:
            money = cost_comparison([c.session for c in costs])
            payload["comparison"] = {
                "first_difference": comparison.first_difference,
                "differing_calls": [row.number for row in comparison.rows if row.differs],
                "cost_usd": list(money.totals),
                "cost_difference_usd": list(money.differences),
                "overtakes": [
                    {"profile": x.other, "against": x.first, "call": x.call, "cheaper": x.cheaper_after}
                    for x in money.crossings
                ],
            }
        print(json.dumps(payload, ensure_ascii=False))
        return 0
    print(f"{args.file}: {transcript.format}, {len(transcript.messages):,} messages\n")
    for result, profile, cost in zip(results, profiles, costs, strict=True):
        print(render_result(result))
        print(_render_cost(cost))
        notes = _notes(profile, cost, ())
        print(*(f"note: {n}" for n in notes), sep="\n", end="\n\n")
    if comparison is not None:
        print(render_comparison(comparison, [p.name for p in profiles]))
    return 0


def _cost_notes(cost: ResultCost) -> list[str]:
    notes = [cost.lookup.warning] if cost.lookup.warning else []
    if cost.gap_source != "timestamps":
        notes.append(cost.gap_statement)
    return notes


def _notes(profile: Profile, cost: ResultCost, warnings: Sequence[str]) -> list[str]:
    """Profile, cost and replay notes, each once (a clocked replay states the gap as the cost does)."""
    return list(dict.fromkeys([*_profile_notes(profile), *_cost_notes(cost), *warnings]))


def _render_cost(cost: ResultCost) -> str:
    pricing = cost.lookup.pricing
    s = cost.session
    diff = cost.difference_usd
    against = f"${-diff:.4f} less than" if diff < 0 else f"${diff:.4f} more than"
    if diff == 0:
        against = "the same as"
    lines = [
        f"cost ${cost.usd:.4f} at {pricing.key} (price table {cost.table_version}; {cost.gap_statement}; "
        f"{cost.ttl_statement}): "
        f"{s.input_tokens:,} uncached, {s.cache_write_tokens:,} cache-write, {s.cache_read_tokens:,} "
        f"cache-read, {s.output_tokens:,} output tokens; {against} as-recorded (${cost.baseline_usd:.4f})",
        *(f"  {b.sentence()}" for b in cost.breaks),
    ]
    return "\n".join(lines)


def _seconds(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {raw!r}") from None
    if not 0 <= value <= 7 * 24 * 3600:  # NaN fails both comparisons
        raise argparse.ArgumentTypeError(f"{raw} is outside 0 to 604800 seconds")
    return value


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("simulate", help="replay a transcript through one or more runtime profiles")
    parser.add_argument("file", help="the transcript file")
    parser.add_argument(
        "--profile",
        action="append",
        help=(
            "config file (TOML/JSON5; every profile it yields, FILE#NAME for one) or preset key "
            f"({', '.join(PRESETS_BY_KEY)}); repeat to compare"
        ),
    )
    parser.add_argument("--format", choices=FORMATS, help="force the transcript format")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the report")
    parser.add_argument(
        "--pricing",
        metavar="KEY",
        help="price table key, e.g. anthropic/claude-sonnet-4-5 (default: the transcript's model, else the "
        "table's default)",
    )
    parser.add_argument(
        "--assumed-gap",
        type=_seconds,
        metavar="SECONDS",
        help="time between calls for a transcript without timestamps (cache model and OpenClaw TTL pruning; "
        f"default {DEFAULT_GAP_SECONDS:g})",
    )
    parser.add_argument(
        "--cache-ttl",
        choices=CACHE_TTLS,
        default="5m",
        help="lifetime of cache writes: 5m (1.25x input on Anthropic) or 1h (2x input; Anthropic only)",
    )
    parser.set_defaults(func=_cmd_simulate)
