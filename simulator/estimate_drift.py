"""Estimates against reality: per call, the runtime's estimate, o200k and the provider-reported input.

Runtimes trim on their own estimates, and those can be far off (a ZeroClaw meter reading 38,503 of
128,000 while the provider counted 3,012,427 tokens for the request). This module lines the three
numbers up per call, flags a session whose provider count is at least twice the estimate, and names
the likely cause from what the transcript shows:

* images — providers bill images by pixels, estimators count a marker or a few bytes;
* a tokenizer difference — o200k (a real BPE tokenizer) already counts far more than the estimate;
* the system prompt and tool schemas — the provider saw text the transcript never recorded.

The o200k counts come in per transcript message (tokenizing is the caller's, cached, work); a call's
o200k is then a prefix-sum lookup over what it sent, so the whole check is linear in session length.
Content rules that shorten a message at a call are not applied to o200k (it counts messages as held).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from simulator.replay.model import SimulationResult
from simulator.transcript import ImagePart, Role, Transcript

DRIFT_RATIO = 2.0
"""Provider count over the estimate at which a session is flagged."""
TOKENIZER_RATIO = 1.5
"""o200k over the estimate at which the tokenizer alone explains the gap."""

Cause = Literal["images", "tokenizer", "system-and-tools"]


@dataclass(frozen=True, slots=True)
class CallEstimate:
    number: int
    estimate: int
    """The runtime's estimate of what it sent."""
    o200k: int | None
    reported: int | None
    """Provider-reported input tokens of the request (cached or not), where the transcript has them."""


@dataclass(frozen=True, slots=True)
class EstimateCheck:
    calls: tuple[CallEstimate, ...]
    ratio: float | None
    """Reported over estimated, summed over the calls that have a reported count."""
    flagged: bool
    cause: Cause | None
    explanation: str


def _o200k_per_call(
    transcript: Transcript, result: SimulationResult, per_message: Sequence[int]
) -> list[int]:
    native = [sum(per_message[i] for i in origin) for origin in result.origins]
    prefix = [0]
    for count in native:
        prefix.append(prefix[-1] + count)
    in_history = {i for origin in result.origins for i in origin}
    # Messages outside the history (a system prompt sent separately) are sent at every call after them.
    outside = [(i, per_message[i]) for i in range(len(transcript.messages)) if i not in in_history]
    out: list[int] = []
    for call in result.calls:
        sent = sum(prefix[end] - prefix[start] for start, end in call.sent)
        sent += sum(count for i, count in outside if i < call.message_index)
        out.append(sent)
    return out


def estimate_check(
    transcript: Transcript, result: SimulationResult, *, o200k_per_message: Sequence[int] | None = None
) -> EstimateCheck:
    """The three counts per call, and whether (and likely why) the provider counted ≥ 2× the estimate.

    Args:
        transcript: The replayed transcript.
        result: Its replay.
        o200k_per_message: o200k tokens of each transcript message (``tiktoken_count`` of
            ``message_token_text``); without it the o200k column is empty.
    """
    o200k = _o200k_per_call(transcript, result, o200k_per_message) if o200k_per_message is not None else None
    rows = tuple(
        CallEstimate(
            c.number,
            c.tokens_sent,
            o200k[k] if o200k is not None else None,
            c.provider_input_tokens,
        )
        for k, c in enumerate(result.calls)
    )
    reported = [r for r in rows if r.reported is not None]
    if not reported:
        return EstimateCheck(rows, None, False, None, "the transcript records no provider token counts")
    estimated = sum(r.estimate for r in reported)
    ratio = sum(r.reported or 0 for r in reported) / max(estimated, 1)
    if ratio < DRIFT_RATIO:
        return EstimateCheck(rows, ratio, False, None, f"the provider counted {ratio:.2f}× the estimate")
    cause, why = _cause(transcript, reported, estimated)
    return EstimateCheck(rows, ratio, True, cause, f"the provider counted {ratio:.1f}× the estimate: {why}")


def _cause(transcript: Transcript, reported: Sequence[CallEstimate], estimated: int) -> tuple[Cause, str]:
    images = sum(1 for m in transcript.messages for p in m.parts if isinstance(p, ImagePart))
    if images:
        return "images", (
            f"the transcript carries {images:,} image{'s' if images != 1 else ''}; providers count "
            "images by their pixels, the estimator by a marker or its bytes"
        )
    tokenized = [r.o200k for r in reported if r.o200k is not None]
    if tokenized and sum(tokenized) >= TOKENIZER_RATIO * estimated:
        return "tokenizer", (
            f"o200k already counts {sum(tokenized) / max(estimated, 1):.1f}× the estimate for the same "
            "messages: a tokenizer difference"
        )
    has_system = any(m.role is Role.SYSTEM for m in transcript.messages)
    gap = sum((r.reported or 0) - (r.o200k if r.o200k is not None else r.estimate) for r in reported)
    per_call = gap // max(len(reported), 1)
    missing = "no system prompt is recorded" if not has_system else "the tool schemas are not recorded"
    return "system-and-tools", (
        f"about {per_call:,} tokens per call that the transcript does not hold: the system prompt and "
        f"tool schemas the runtime sent ({missing})"
    )


# -- chart geometry (an SVG polyline chart drawn by the template) ----------------------------------------


@dataclass(frozen=True, slots=True)
class EstimateChart:
    width: int
    height: int
    estimate: str
    """SVG ``points`` of the estimate line."""
    o200k: str
    reported: str
    reported_dots: tuple[tuple[float, float, int, int], ...]
    """``(x, y, call, tokens)`` of each call with a provider count (sparse counts stay visible)."""
    y_max: int


def estimate_chart(check: EstimateCheck, *, width: int = 1000, height: int = 120) -> EstimateChart:
    """Coordinates for the three series per call, on one scale from zero to the largest value."""
    values = [r.estimate for r in check.calls]
    values += [r.o200k for r in check.calls if r.o200k is not None]
    values += [r.reported for r in check.calls if r.reported is not None]
    top = int(max(values, default=0) * 1.08) or 1
    step = width / max(len(check.calls), 1)

    def x(k: int) -> float:
        return round((k + 0.5) * step, 2)

    def y(v: int) -> float:
        return round(height - v / top * height, 2)

    def points(series: Sequence[tuple[int, int | None]]) -> str:
        return " ".join(f"{x(k)},{y(v)}" for k, v in series if v is not None)

    calls = check.calls
    return EstimateChart(
        width,
        height,
        points([(k, r.estimate) for k, r in enumerate(calls)]),
        points([(k, r.o200k) for k, r in enumerate(calls)]),
        points([(k, r.reported) for k, r in enumerate(calls)]),
        tuple(
            (x(k), y(r.reported), r.number, r.reported) for k, r in enumerate(calls) if r.reported is not None
        ),
        top,
    )
