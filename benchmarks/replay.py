"""Replay speed and memory per runtime on the synthetic coding session, and how it scales.

The session: N turns of user → tool call → ~2 KB tool result → answer (4 messages a turn), with the
operator pausing longer than the cache TTL every 4 turns. Every assistant message is one model call.

The parse is timed twice: as a library call (which pauses the collector while it builds, nothing frozen)
and as the command line and the corpus workers run it (:func:`simulator.long_lived.building_long_lived`:
collector paused, the parsed transcript frozen), each beside ``json.loads`` decoding the same lines.
The replays run on the frozen transcript, as they do there.
"""

from __future__ import annotations

import gc
import json
from dataclasses import dataclass
from functools import partial

from benchmarks.common import best_of, mib, ms, peak_memory
from simulator.importers import parse_transcript
from simulator.long_lived import building_long_lived
from simulator.presets import PRESETS_BY_KEY
from simulator.profiles import profile_from_document
from simulator.replay import prepare, replay_prepared, simulate
from simulator.synthetic import synthetic_openclaw_session

RUNTIME_PRESETS = ("zeroclaw-documented", "zeroclaw-upstream", "ai-profile", "openclaw", "openclaw-2026.9.6")
SIZES = (1_000, 10_000, 100_000)
QUADRATIC_UP_TO: dict[str, int] = {}
"""Presets whose replay has no fast path yet: measured only up to this many messages (none now: 2026.9.6
has its fast transforms)."""


def _parse_long_lived(text: str) -> object:
    with building_long_lived():
        return parse_transcript(text)


@dataclass(frozen=True)
class ReplayRow:
    preset: str
    messages: int
    calls: int
    trims: int
    seconds: float
    peak_bytes: int | None
    prepare_seconds: float
    """Preparing the transcript for the preset's runtime (done once per transcript and runtime)."""
    prepared_seconds: float
    """Replaying the preset from that preparation (what a knob change costs)."""


def _json_loads_lines(text: str) -> int:
    """The yardstick: the standard library decoding every line, nothing kept (as ``benchmarks.corpus``)."""
    n = 0
    for line in text.splitlines():
        if line.strip():
            json.loads(line)
            n += 1
    return n


ParseTimes = dict[int, tuple[float, float, float]]
"""Per size: ``json.loads`` of every line, the library call, the parse with the collector paused."""


def run(sizes: tuple[int, ...] = SIZES) -> tuple[list[ReplayRow], ParseTimes]:
    rows: list[ReplayRow] = []
    parse_times: ParseTimes = {}
    for size in sizes:
        text = synthetic_openclaw_session(size // 4, tool_result_chars=2000)
        repeat = 3 if size <= 10_000 else 2
        # Side by side, alternating, so that a burst of load on the shared machine hits all three.
        loads = plain = paused = float("inf")
        for _ in range(repeat):
            loads = min(loads, best_of(1, partial(_json_loads_lines, text))[0])
            gc.collect()
            plain = min(plain, best_of(1, partial(parse_transcript, text))[0])
            gc.collect()
            paused = min(paused, best_of(1, partial(_parse_long_lived, text))[0])
            gc.unfreeze()
            gc.collect()
        transcript = parse_transcript(text)
        gc.freeze()
        parse_times[size] = (loads, plain, paused)
        for key in RUNTIME_PRESETS:
            if size > QUADRATIC_UP_TO.get(key, size):
                continue
            preset = PRESETS_BY_KEY[key]
            profile = profile_from_document(dict(preset.document), name=key)
            seconds, result = best_of(repeat, partial(simulate, transcript, profile))
            peak = peak_memory(partial(simulate, transcript, profile)) if size <= 10_000 else None
            preparing, prepared = best_of(repeat, partial(prepare, transcript, profile.runtime))
            again, _ = best_of(repeat, partial(replay_prepared, prepared, profile))
            rows.append(
                ReplayRow(
                    key,
                    len(transcript.messages),
                    len(result.calls),
                    result.trims,
                    seconds,
                    peak,
                    preparing,
                    again,
                )
            )
        del transcript
        gc.unfreeze()
        gc.collect()
    return rows, parse_times


def report(rows: list[ReplayRow], parse_times: ParseTimes) -> list[str]:
    lines = [
        "## Session replay (simulator only)",
        "",
        "Synthetic session, every call replayed, best of 3 (1 run at 100k). Default preset of each runtime. "
        "The replays run on a parsed transcript frozen out of the cyclic collector, as the command line and "
        "the corpus workers hold it.",
        "",
        "*replay* is `simulate` (the transcript converted and sized, then replayed); *prepare* is that "
        "conversion and sizing alone (`prepare`, once per transcript and runtime) and *replay prepared* "
        "the replay from it (`replay_prepared`: what another profile or knob value costs). "
        + (
            f"{', '.join(f'{k} is measured up to {n:,} messages' for k, n in QUADRATIC_UP_TO.items())} "
            "(no fast path yet)."
            if QUADRATIC_UP_TO
            else ""
        ),
        "",
        "| profile | messages | calls | calls trimmed | replay | prepare | replay prepared "
        "| peak memory (tracemalloc) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        peak = mib(r.peak_bytes) if r.peak_bytes is not None else "—"
        lines.append(
            f"| {r.preset} | {r.messages:,} | {r.calls:,} | {r.trims:,} | {ms(r.seconds)} "
            f"| {ms(r.prepare_seconds)} | {ms(r.prepared_seconds)} | {peak} |"
        )
    lines += [
        "",
        "Parsing the session text (OpenClaw JSONL) before the replay, as a library call (which pauses the "
        "collector while it builds) and as the command line and corpus workers run it (collector paused, "
        "then the transcript frozen), "
        "beside the standard library's `json.loads` decoding every line of the same text (best of the "
        "runs, the three alternating). Goal at 100,000 messages: under 2 s.",
        "",
        "| messages | `json.loads` | library call | × json.loads | paused and frozen | × json.loads |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {size:,} | {ms(loads)} | {ms(plain)} | {plain / loads:.1f}× | {ms(paused)} "
        f"| {paused / loads:.1f}× |"
        for size, (loads, plain, paused) in parse_times.items()
    ]
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
