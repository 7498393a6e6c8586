"""``python -m simulator simulate FILE --profile P [--profile Q] [--json]``: replay a transcript.

A profile is a TOML/JSON file in the runtime's own keys or the key of a preset
(``simulator.presets``); with no ``--profile`` every runtime's default preset is used. Two or more
profiles add a comparison. Bad input exits 2 with the error on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from simulator.errors import SimulatorError
from simulator.importers import FORMATS, parse_transcript
from simulator.presets import PRESETS_BY_KEY
from simulator.profiles import Profile, profile_from_document, profile_from_text
from simulator.registry import runtimes, versions
from simulator.replay import simulate
from simulator.replay.compare import compare
from simulator.replay.report import render_comparison, render_result, result_to_json

# Each runtime's default version brings its first preset: with no --profile, every runtime is shown.
DEFAULT_PRESETS = tuple(
    versions(runtime)[0].presets[0].key for runtime in runtimes() if versions(runtime)[0].presets
)


def _load_profile(ref: str) -> Profile:
    if ref in PRESETS_BY_KEY:
        preset = PRESETS_BY_KEY[ref]
        return profile_from_document(dict(preset.document), name=preset.key)
    path = Path(ref)
    if not path.is_file():
        raise SimulatorError(
            f"--profile {ref}: no such file and no such preset (presets: {', '.join(PRESETS_BY_KEY)})"
        )
    return profile_from_text(path.read_text(encoding="utf-8"), name=path.stem)


def _cmd_simulate(args: argparse.Namespace) -> int:
    try:
        text = Path(args.file).read_text(encoding="utf-8")
        transcript = parse_transcript(text, format=args.format, source=args.file)
        profiles = [_load_profile(ref) for ref in (args.profile or DEFAULT_PRESETS)]
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    except SimulatorError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 2
    results = [simulate(transcript, p) for p in profiles]
    comparison = compare(transcript, results) if len(results) > 1 else None
    if args.json:
        payload = {
            "transcript": {"format": transcript.format, "messages": len(transcript.messages)},
            "results": [result_to_json(r) for r in results],
        }
        if comparison is not None:
            payload["comparison"] = {
                "first_difference": comparison.first_difference,
                "differing_calls": [row.number for row in comparison.rows if row.differs],
            }
        print(json.dumps(payload, ensure_ascii=False))
        return 0
    print(f"{args.file}: {transcript.format}, {len(transcript.messages):,} messages\n")
    for result in results:
        print(render_result(result))
        print()
    if comparison is not None:
        print(render_comparison(comparison, [p.name for p in profiles]))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("simulate", help="replay a transcript through one or more runtime profiles")
    parser.add_argument("file", help="the transcript file")
    parser.add_argument(
        "--profile",
        action="append",
        help=f"profile TOML/JSON file or preset key ({', '.join(PRESETS_BY_KEY)}); repeat to compare",
    )
    parser.add_argument("--format", choices=FORMATS, help="force the transcript format")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the report")
    parser.set_defaults(func=_cmd_simulate)
