"""Where each runtime puts Anthropic ``cache_control`` breakpoints, as small policies.

A policy reads one request (its segments in order) and returns the positions whose end carries a
breakpoint. Segment granularity is a message: a breakpoint on a message's last content block is a
breakpoint at the end of that segment. Tool definitions are not part of Trimscope's requests; the
runtimes that cache them put them before the system prompt, so they ride with the system breakpoint.

Sources (read from the runtimes' code):

* ``zeroclaw`` -- ZeroClaw master 15d28660 ``crates/zeroclaw-providers/src/anthropic.rs``: the system
  prompt always carries ``cache_control`` (``convert_messages``, since #3990), the last tool definition
  does, and ``should_cache_conversation`` (more than 1 non-system message) puts one on the last message's
  last block when that block is text or a ``tool_result`` (``apply_cache_to_last_message``; a ``tool_use``,
  image or thinking block gets none). Always the 5-minute ``ephemeral`` type, no ``ttl``.
* ``pi`` -- OpenClaw's provider layer, pi-ai ``packages/ai/src/providers/anthropic.ts`` (badlogic/pi-mono
  02befc3d): ``cache_control`` on the system prompt block(s) and on the last block of the last message when
  it is a user message (tool results are sent as user messages); ``cacheRetention`` ``"short"`` (default,
  5 minutes), ``"long"`` (1 hour on api.anthropic.com), ``"none"`` (no breakpoints).
* ``none`` -- ai-profile 0.1.7 sends no chat requests (its client only lists models), so it places no
  breakpoints; what is cached is up to the application that sends the trimmed history.
* ``automatic`` -- Anthropic's top-level ``cache_control`` (automatic caching): one breakpoint on the last
  cacheable block, moving forward as the conversation grows. Offered for ai-profile callers that use it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from simulator.cost.cache import Segment, listed_segments

BreakpointPolicy = Callable[[Sequence[Segment]], tuple[int, ...]]


def _last_system(segments: Sequence[Segment]) -> int | None:
    last = None
    for index, segment in enumerate(segments):
        if segment.role != "system":
            break
        last = index
    return last


def _more_than_one_conversational(segments: Sequence[Segment]) -> bool:
    # Stops at the second non-system segment: the request holds the whole history, the answer is early.
    seen = 0
    for segment in segments:
        if segment.role != "system":
            seen += 1
            if seen > 1:
                return True
    return False


def zeroclaw_breakpoints(segments: Sequence[Segment]) -> tuple[int, ...]:
    """ZeroClaw: the system prompt, and the last message once there is more than one non-system one."""
    # Read from the list behind a shared prefix: this runs for every call of a priced replay.
    items, n = listed_segments(segments)
    points: list[int] = []
    system = _last_system(segments)
    if system is not None:
        points.append(system)
    last = items[n - 1] if n else None
    if (
        last is not None
        and last.cacheable_end
        and last.role != "system"
        and _more_than_one_conversational(segments)
    ):
        points.append(n - 1)
    return tuple(points)


def pi_breakpoints(segments: Sequence[Segment]) -> tuple[int, ...]:
    """OpenClaw via pi-ai: the system prompt, and the last message when it is a user or tool message."""
    points: list[int] = []
    system = _last_system(segments)
    if system is not None:
        points.append(system)
    items, n = listed_segments(segments)
    if n and items[n - 1].role in ("user", "tool") and items[n - 1].cacheable_end:
        points.append(n - 1)
    return tuple(points)


def no_breakpoints(segments: Sequence[Segment]) -> tuple[int, ...]:
    """No ``cache_control`` anywhere: nothing is cached on Anthropic."""
    return ()


def automatic_breakpoints(segments: Sequence[Segment]) -> tuple[int, ...]:
    """Anthropic automatic caching: one breakpoint on the last cacheable block."""
    for index in range(len(segments) - 1, -1, -1):
        if segments[index].cacheable_end:
            return (index,)
    return ()


PolicyName = Literal["zeroclaw", "pi", "none", "automatic"]

BREAKPOINT_POLICIES: Mapping[PolicyName, BreakpointPolicy] = {
    "zeroclaw": zeroclaw_breakpoints,
    "pi": pi_breakpoints,
    "none": no_breakpoints,
    "automatic": automatic_breakpoints,
}

RUNTIME_POLICY: Mapping[str, PolicyName] = {
    "zeroclaw": "zeroclaw",
    "openclaw": "pi",
    "ai_profile": "none",
    "ai-profile": "none",
}
"""The policy each reproduced runtime uses (keyed by ``SimulationResult.runtime``)."""

FORMAT_POLICY: Mapping[str, PolicyName] = {
    "openclaw": "pi",
    "zeroclaw-chat": "zeroclaw",
    "zeroclaw-conversation": "zeroclaw",
}
"""For the ``as-recorded`` baseline: the policy of the runtime that wrote a transcript format, where known.

Other formats (Claude Code, the provider logs) use ``automatic``, one breakpoint at the end of the request;
Claude Code's own placement was not researched.
"""


def policy_for_format(format: str) -> PolicyName:
    return FORMAT_POLICY.get(format, "automatic")


__all__ = [
    "BREAKPOINT_POLICIES",
    "RUNTIME_POLICY",
    "FORMAT_POLICY",
    "BreakpointPolicy",
    "PolicyName",
    "automatic_breakpoints",
    "no_breakpoints",
    "pi_breakpoints",
    "policy_for_format",
    "zeroclaw_breakpoints",
]
