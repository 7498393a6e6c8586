"""``python -m simulator inspect FILE``: what a transcript holds, as each runtime would size it.

The shell around the pure importers (simulator/importers), turn/pair lint (simulator/turns.py) and estimators
(simulator/estimates.py): it reads the file, prints a summary (or JSON with ``--json``) and maps a
``TranscriptParseError`` to exit code 2 with the error on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from simulator.errors import TranscriptParseError
from simulator.estimates import (
    ai_profile_estimate,
    openclaw_estimate_chars,
    tiktoken_transcript_count,
    zeroclaw_estimate,
)
from simulator.importers import FORMATS, parse_transcript
from simulator.jsonvalue import JSON
from simulator.long_lived import building_long_lived
from simulator.overview import skipped_lines_note
from simulator.transcript import SkippedLine, Transcript
from simulator.turns import lint_tool_pairs, segment_turns


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``inspect`` command to the top-level parser."""
    parser = sub.add_parser(
        "inspect", help="summarise a transcript file: format, turns, tool pairs, token estimates"
    )
    parser.add_argument("file", help="transcript file (JSON, JSONL, or SWE-agent demonstration YAML)")
    parser.add_argument(
        "--format", choices=FORMATS, default=None, help="force a format instead of detecting it"
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.set_defaults(func=_cmd_inspect)


def summarise(transcript: Transcript) -> dict[str, JSON]:
    """The inspect summary of a parsed transcript as plain JSON.

    Args:
        transcript: a parsed transcript.

    Returns:
        Counts, pair lint and per-runtime estimates (``openclaw_tokens`` is chars / 4, rounded up).
    """
    messages = transcript.messages
    groups = segment_turns(messages)
    pairs = lint_tool_pairs(messages)
    roles = Counter(m.role.value for m in messages)
    openclaw_chars = openclaw_estimate_chars(messages)
    provider_input = [
        m.usage.prompt_tokens for m in messages if m.usage is not None and m.usage.prompt_tokens
    ]
    return {
        "format": transcript.format,
        "session_id": transcript.session_id,
        "model": transcript.model,
        "messages": len(messages),
        "roles": {role: roles[role] for role in ("system", "user", "assistant", "tool") if roles[role]},
        "turns": sum(1 for g in groups if g.kind == "turn"),
        "preamble_messages": sum(len(g) for g in groups if g.kind == "preamble"),
        "tool_pairs": len(pairs.pairs),
        "orphan_calls": [{"id": o.call_id, "message": o.call_index} for o in pairs.orphan_calls],
        "orphan_results": [{"id": o.call_id, "message": o.result_index} for o in pairs.orphan_results],
        "duplicate_call_ids": list(pairs.duplicate_call_ids),
        "cache_ttl_markers": len(transcript.cache_ttl_markers),
        "estimates": {
            "zeroclaw_tokens": zeroclaw_estimate(messages),
            "ai_profile_tokens": ai_profile_estimate(messages),
            "openclaw_chars": openclaw_chars,
            "openclaw_tokens": -(-openclaw_chars // 4),
            "o200k_tokens": tiktoken_transcript_count(messages),
        },
        "provider_reported_input_tokens_last": provider_input[-1] if provider_input else None,
        "failed_calls": [
            {"message": i, "error": m.error} for i, m in enumerate(messages) if m.error is not None
        ],
        "developer_instructions": sum(1 for m in messages if m.variant == "developer_instructions"),
        "skipped_lines": [{"line": s.line, "reason": s.reason} for s in transcript.skipped_lines],
        "warnings": list(transcript.warnings),
    }


def _ids(entries: JSON) -> str:
    if not isinstance(entries, list) or not entries:
        return "none"
    shown = [f"{e['id']}@{e['message']}" if isinstance(e, dict) else str(e) for e in entries[:10]]
    more = f" (+{len(entries) - 10} more)" if len(entries) > 10 else ""
    return ", ".join(shown) + more


def format_summary(summary: dict[str, JSON], path: str) -> str:
    """Human-readable lines for :func:`summarise` output."""
    estimates = summary["estimates"]
    est = estimates if isinstance(estimates, dict) else {}
    roles = summary["roles"]
    role_text = ", ".join(f"{k} {v}" for k, v in roles.items()) if isinstance(roles, dict) else ""
    dupes = summary["duplicate_call_ids"]
    dupe_text = ", ".join(str(d) for d in dupes) if isinstance(dupes, list) and dupes else "none"
    lines = [
        f"file:               {path}",
        f"format:             {summary['format']}",
        f"messages:           {summary['messages']} ({role_text})",
        f"turns:              {summary['turns']}",
        f"tool pairs:         {summary['tool_pairs']}",
        f"orphan calls:       {_ids(summary['orphan_calls'])}",
        f"orphan results:     {_ids(summary['orphan_results'])}",
        f"duplicate call ids: {dupe_text}",
        f"cache-ttl markers:  {summary['cache_ttl_markers']}",
        "estimated tokens:",
        f"  zeroclaw:         {est.get('zeroclaw_tokens')}",
        f"  ai-profile:       {est.get('ai_profile_tokens')}",
        f"  openclaw:         {est.get('openclaw_tokens')} ({est.get('openclaw_chars')} chars / 4)",
        f"  o200k tokenizer:  {est.get('o200k_tokens')}",
    ]
    if summary.get("provider_reported_input_tokens_last") is not None:
        lines.append(
            f"provider-reported input tokens (last call): {summary['provider_reported_input_tokens_last']}"
        )
    failed = summary.get("failed_calls")
    if isinstance(failed, list) and failed:
        shown = ", ".join(f"#{f['message']} ({f['error']})" for f in failed if isinstance(f, dict))
        lines.append(f"failed calls:       {len(failed)}: {shown}")
    developer = summary.get("developer_instructions")
    if isinstance(developer, int) and developer:
        lines.append(f"developer instructions: {developer} (kept as system text)")
    note = skipped_lines_note(_skipped(summary.get("skipped_lines")))
    if note is not None:
        lines.append(f"skipped: {note}")
    warnings = summary["warnings"]
    if isinstance(warnings, list):
        lines.extend(f"warning: {w}" for w in warnings)
    return "\n".join(lines)


def _skipped(entries: JSON) -> tuple[SkippedLine, ...]:
    if not isinstance(entries, list):
        return ()
    out: list[SkippedLine] = []
    for entry in entries:
        if isinstance(entry, dict):
            line, reason = entry.get("line"), entry.get("reason")
            if isinstance(line, int) and isinstance(reason, str):
                out.append(SkippedLine(line, reason))
    return tuple(out)


def _cmd_inspect(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    try:
        with building_long_lived():
            transcript = parse_transcript(text, format=args.format, source=str(path))
    except TranscriptParseError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 2
    summary = summarise(transcript)
    if args.json:
        print(json.dumps({"file": str(path), **summary}, indent=2, ensure_ascii=False))
    else:
        print(format_summary(summary, str(path)))
    return 0
