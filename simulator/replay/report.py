"""Plain-text and JSON renderings of replay results (for the CLI and for scripts)."""

from __future__ import annotations

from collections.abc import Sequence

from simulator.jsonvalue import JSON
from simulator.replay.compare import Comparison
from simulator.replay.counts import CallCounter, CallCounts
from simulator.replay.events import wire_frames, wire_shapes
from simulator.replay.model import CallRecord, SimulationResult


def _n(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def call_to_json(call: CallRecord, counts: CallCounts | None = None) -> dict[str, JSON]:
    out: dict[str, JSON] = {
        "number": call.number,
        "message_index": call.message_index,
        "available": call.available,
        "sent": [list(span) for span in call.sent],
        "breadcrumb_at": call.breadcrumb_at,
        "sent_count": call.sent_count,
        "counts": counts.to_json() if counts is not None else None,
        "budget": call.budget,
        "tokens_full": call.tokens_full,
        "tokens_sent": call.tokens_sent,
        "trimmed": call.trimmed,
        "drop_rule": call.drop_rule,
        "fated": [
            {"fate": g.fate.value, "rule": g.rule, "native_indices": list(g.indices)} for g in call.fated
        ],
        "events": wire_frames(call.events),
        "retries": [
            {
                "attempt": r.attempt,
                "budget": r.budget,
                "tokens_before": r.tokens_before,
                "tokens_after": r.tokens_after,
                "dropped": r.dropped,
                "recovered": r.recovered,
            }
            for r in call.retries
        ],
        "overflow": call.overflow,
        "provider_input_tokens": call.provider_input_tokens,
        "notes": list(call.notes),
        "failed": call.failed,
        "error": call.error,
        "tokens_outside_history": call.tokens_outside,
    }
    return out


def result_to_json(result: SimulationResult) -> dict[str, JSON]:
    counter = CallCounter(result)
    return {
        "runtime": result.runtime,
        "version": result.version,
        "runtime_label": result.runtime_label,
        "version_label": result.version_label,
        "profile": result.profile_name,
        "estimator": result.estimator,
        "budget": {
            "value": result.budget.value,
            "bound_by": result.budget.bound_by,
            "steps": list(result.budget.steps),
            "window": result.budget.window,
            "window_source": result.budget.window_source,
            "summary": result.budget.summary,
        },
        "provider_window": result.window,
        "calls": [call_to_json(c, counter.counts(c)) for c in result.calls],
        "summary": {
            "calls": len(result.calls),
            "trims": result.trims,
            "total_tokens_sent": result.total_tokens_sent,
            "overflow_failures": result.overflow_failures,
            "failed_calls": result.failed_calls,
        },
        "warnings": list(result.warnings),
        "native_origins": [list(o) for o in result.origins],
        "dropped_at_call": list(result.dropped_at),
        "drop_rules": list(result.drop_rules),
    }


def render_result(result: SimulationResult) -> str:
    """A readable per-call report: one line per call, rules and events indented below it."""
    lines = [
        f"profile {result.profile_name} — {result.runtime_label or result.runtime} "
        f"{result.version_label or result.version}",
        f"budget {_n(result.budget.value)} (bound by {result.budget.bound_by})",
        *(f"  {step}" for step in result.budget.steps),
        f"estimator: {result.estimator}; provider window {_n(result.window)}",
        *(f"warning: {w}" for w in result.warnings),
        "",
        f"{'call':>5} {'msg':>6} {'sent/held':>11} {'tokens full':>12} {'sent':>10}  what happened",
    ]
    counter = CallCounter(result)
    for c in result.calls:
        k = counter.counts(c)
        marks = []
        if c.failed:
            marks.append(f"✖ failed: {c.error}")
        if c.trimmed:
            marks.append("✂ trimmed")
        if c.breadcrumb_at is not None:
            marks.append("breadcrumb")
        if c.overflow != "none":
            marks.append(f"overflow {c.overflow}")
        lines.append(
            f"{c.number:>5} {c.message_index:>6} {k.sent:>5}/{k.held:<5} {c.tokens_full:>12,} "
            f"{c.tokens_sent:>10,}  {', '.join(marks)}"
        )
        if c.trimmed and c.drop_rule:
            lines.append(f"{'':>32}↳ {c.drop_rule}")
        for group in c.fated:
            lines.append(f"{'':>32}↳ {group.fate.value} ×{len(group.indices)}: {group.rule}")
        for retry in c.retries:
            lines.append(
                f"{'':>32}↳ retry {retry.attempt} at {retry.budget:,}: {retry.tokens_before:,} → "
                f"{retry.tokens_after:,} ({'fits' if retry.recovered else 'still over'})"
            )
        if c.trimmed or c.failed:
            for note in c.notes:
                lines.append(f"{'':>32}· {note}")
        if c.events:
            lines.append(f"{'':>32}event {wire_shapes(c.events[0]).ws}")
    lines += [
        "",
        f"{len(result.calls)} calls, {result.trims} trimmed, "
        f"{result.total_tokens_sent:,} tokens sent in all, "
        f"{result.overflow_failures} overflow failures, {result.failed_calls} failed calls",
    ]
    return "\n".join(lines)


def render_comparison(comparison: Comparison, names: Sequence[str]) -> str:
    head = f"{'call':>5} {'msg':>6}  " + "  ".join(f"{name[:18]:>18}" for name in names)
    lines = ["comparison (tokens sent per call; * = trimmed; ≠ = contexts differ)", head]
    for row in comparison.rows:
        cells = "  ".join(
            f"{tokens:>17,}{'*' if trimmed else ' '}"
            for tokens, trimmed in zip(row.tokens_sent, row.trimmed, strict=True)
        )
        lines.append(f"{row.number:>5} {row.message_index:>6}  {cells}{'  ≠' if row.differs else ''}")
    first = comparison.first_difference
    lines.append("")
    lines.append("first call where they differ: " + ("none" if first is None else str(first)))
    for s in comparison.summaries:
        lines.append(
            f"{s.profile_name}: {s.total_tokens_sent:,} tokens sent, {s.trims} trims, "
            f"{s.messages_lost:,} messages no longer sent at the last call, "
            f"{s.overflow_failures} overflow failures"
        )
    return "\n".join(lines)
