"""Replay speed and memory per runtime on the synthetic coding session, and how it scales.

The session: N turns of user → tool call → ~2 KB tool result → answer (4 messages a turn), with the
operator pausing longer than the cache TTL every 4 turns. Every assistant message is one model call.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchmarks.common import best_of, mib, ms, peak_memory
from simulator.importers import parse_transcript
from simulator.presets import PRESETS_BY_KEY
from simulator.profiles import profile_from_document
from simulator.replay import simulate
from simulator.synthetic import synthetic_openclaw_session

RUNTIME_PRESETS = ("zeroclaw-documented", "zeroclaw-upstream", "ai-profile", "openclaw")
SIZES = (1_000, 10_000, 100_000)


@dataclass(frozen=True)
class ReplayRow:
    preset: str
    messages: int
    calls: int
    trims: int
    seconds: float
    peak_bytes: int | None


def run(sizes: tuple[int, ...] = SIZES) -> tuple[list[ReplayRow], dict[int, float]]:
    rows: list[ReplayRow] = []
    parse_times: dict[int, float] = {}
    for size in sizes:
        text = synthetic_openclaw_session(size // 4, tool_result_chars=2000)
        repeat = 3 if size <= 10_000 else 1
        parse_times[size], transcript = best_of(repeat, lambda text=text: parse_transcript(text))
        for key in RUNTIME_PRESETS:
            preset = PRESETS_BY_KEY[key]
            profile = profile_from_document(dict(preset.document), name=key)
            seconds, result = best_of(repeat, lambda p=profile, t=transcript: simulate(t, p))
            peak = peak_memory(lambda p=profile, t=transcript: simulate(t, p)) if size <= 10_000 else None
            rows.append(
                ReplayRow(key, len(transcript.messages), len(result.calls), result.trims, seconds, peak)
            )
    return rows, parse_times


def report(rows: list[ReplayRow], parse_times: dict[int, float]) -> list[str]:
    lines = [
        "## Session replay (simulator only)",
        "",
        "Synthetic session, every call replayed, best of 3 (1 run at 100k). Default preset of each runtime.",
        "",
        "| profile | messages | calls | calls trimmed | replay | peak memory (tracemalloc) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        peak = mib(r.peak_bytes) if r.peak_bytes is not None else "—"
        lines.append(
            f"| {r.preset} | {r.messages:,} | {r.calls:,} | {r.trims:,} | {ms(r.seconds)} | {peak} |"
        )
    lines += ["", "Parsing the session text (OpenClaw JSONL) before the replay:", ""]
    lines += [f"- {size:,} messages: {ms(t)}" for size, t in parse_times.items()]
    lines += ["", "Scaling (replay time ratio; 10 = linear in session length):", ""]
    by = {(r.preset, r.messages): r.seconds for r in rows}
    sizes = sorted({r.messages for r in rows})
    for preset in RUNTIME_PRESETS:
        steps = [
            f"{a:,}→{b:,}: ×{by[(preset, b)] / by[(preset, a)]:.1f}"
            for a, b in zip(sizes, sizes[1:], strict=False)
            if (preset, a) in by and (preset, b) in by and by[(preset, a)] > 0
        ]
        lines.append(f"- {preset}: " + ", ".join(steps))
    return lines
