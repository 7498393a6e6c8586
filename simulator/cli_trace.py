"""``python -m simulator trace FILE --profile P --find TEXT [--regex] [--json]``: why did the agent forget X.

Replays the transcript through one profile (a preset key, a config file, ``FILE#NAME``) and follows
every message matching the query through the calls (``simulator.trace``). Bad input — an unreadable
file, an unknown profile, an invalid regular expression — exits 2 with the problem on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from simulator.cli_simulate import _load_profiles
from simulator.errors import SimulatorError
from simulator.importers import FORMATS, parse_transcript
from simulator.presets import PRESETS_BY_KEY
from simulator.replay import changed_contents, simulate
from simulator.trace import Query, Trace, trace, trace_to_json


def _render(found: Trace) -> str:
    lines = [f"{len(found.matches)} message(s) match {found.query!r} over {found.calls} call(s)"]
    for m in found.matches:
        calls = f"in full at calls {m.in_context[0]}–{m.in_context[1]}" if m.in_context else "never in full"
        if m.departure is None:
            fate = "never left"
        else:
            fate = f"left at call {m.departure.call}: {m.departure.kind} ({m.departure.rule})"
            if m.departure.survived:
                fate += f"; the match survived in the {m.departure.survived}"
        lines.append(f"  #{m.message_index} {m.role}: {calls}; {fate}")
        lines.append(f"      {m.excerpt}")
    lines.append(f"{len(found.rereads)} re-read(s) after forgetting")
    for r in found.rereads:
        lines.append(
            f"  {r.tool}({r.arguments}) again at call {r.again_call} (message #{r.again_index}); "
            f"its result #{r.result_index} left at call {r.left_at_call}: {r.kind}"
        )
    return "\n".join(lines)


def _cmd_trace(args: argparse.Namespace) -> int:
    try:
        query = Query.parse(args.find, regex=args.regex)
        text = Path(args.file).read_text(encoding="utf-8")
        transcript = parse_transcript(text, format=args.format, source=args.file)
        profiles = _load_profiles(args.profile)
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: cannot read: {exc}", file=sys.stderr)
        return 2
    except SimulatorError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 2
    if len(profiles) != 1:
        names = ", ".join(p.name for p in profiles)
        print(
            f"error: --profile {args.profile}: {len(profiles)} profiles ({names}); pick one with FILE#NAME",
            file=sys.stderr,
        )
        return 2
    profile = profiles[0]
    result = simulate(transcript, profile)
    found = trace(
        transcript, result, query, contents_at=lambda n: changed_contents(transcript, profile, result, n)
    )
    if args.json:
        print(json.dumps(trace_to_json(found), ensure_ascii=False))
    else:
        print(_render(found))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("trace", help="follow the messages matching a query through a replay's calls")
    parser.add_argument("file", help="the transcript file")
    parser.add_argument(
        "--profile",
        required=True,
        help=f"config file (FILE#NAME for one of several) or preset key ({', '.join(PRESETS_BY_KEY)})",
    )
    parser.add_argument("--find", required=True, help="text, file path or tool-call id (or a regex)")
    parser.add_argument("--regex", action="store_true", help="read --find as a regular expression")
    parser.add_argument("--format", choices=FORMATS, help="force the transcript format")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the report")
    parser.set_defaults(func=_cmd_trace)
