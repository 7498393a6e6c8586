"""OpenClaw context management (2026.7.1, and 2026.9.6 where it differs), reproduced as pure functions.

Covers cache-TTL session pruning (``pruneContextMessages`` and its TTL gate), the settings and
duration parsing behind it, the CJK-aware size estimate, tool allow/deny globs, the legacy
image-cleanup replay view and the Anthropic smart defaults. Upstream: npm ``openclaw@2026.7.1``
(commit 2d2ddc43); see each module for its source path and deliberate divergences.

``attempt`` composes one embedded attempt's transforms in the runtime's order (pruning, tool-result
context guard, image cleanup, transcript policy, the end-of-reply TTL marker) for either version;
``route`` holds provider eligibility and the transcript policy; ``v2026_9_6`` the modules 2026.9.6
changed; ``versions`` reads a config's schema version. Both versions are checked against whole-session
vectors produced by the real dists (``tests/vectors/openclaw``).

Spec versus vectors: no behavioural disagreement was found; every vector matches the written spec
(shared/spec/openclaw.md). The vectors carry three notes where an *older upstream test* disagrees
with 2026.7.1 (image tool results are prunable; ``softTrimRatio: 10`` is not re-clamped by the
pruner), and this package follows the vectors there. The golden files hold fewer cases than the
spec lists (32 of 64 pruner sessions, 12 of 24 history cases) because they are a random share.
"""

from __future__ import annotations

from simulator.runtimes.openclaw.attempt import (
    AttemptCall,
    AttemptConfig,
    AttemptSetup,
    AttemptState,
    CacheTtlMarker,
    attempt_step,
    end_attempt,
    start_attempt,
)
from simulator.runtimes.openclaw.duration import DurationError, parse_duration_ms
from simulator.runtimes.openclaw.estimate import (
    drop_thinking_blocks,
    estimate_context_chars,
    estimate_message_chars,
    estimate_string_chars,
)
from simulator.runtimes.openclaw.image_prune import prune_processed_history_images
from simulator.runtimes.openclaw.messages import (
    AgentMessage,
    AssistantMessage,
    ContentBlock,
    ImageContent,
    OtherMessage,
    RawBlock,
    RawContent,
    RedactedThinkingContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    message_from_json,
    messages_from_json,
    messages_to_json,
)
from simulator.runtimes.openclaw.pruner import (
    HardCleared,
    MessageFate,
    Protection,
    PruneResult,
    SoftTrimmed,
    prune_context_messages,
)
from simulator.runtimes.openclaw.route import OPENCLAW_VERSIONS, ModelRoute, OpenClawVersion
from simulator.runtimes.openclaw.settings import (
    EffectivePruningSettings,
    OpenClawSettings,
    compute_effective_settings,
    resolve_context_window_tokens,
)
from simulator.runtimes.openclaw.smart_defaults import apply_anthropic_config_defaults
from simulator.runtimes.openclaw.tools import make_tool_prunable_predicate
from simulator.runtimes.openclaw.ttl_gate import (
    ContextCall,
    PruningRuntime,
    TtlGateOutcome,
    TtlGateState,
    on_context,
    record_attempt_marker,
    run_calls,
)
from simulator.runtimes.openclaw.versions import detect_config_version

__all__ = [
    "OPENCLAW_VERSIONS",
    "AgentMessage",
    "AttemptCall",
    "AttemptConfig",
    "AttemptSetup",
    "AttemptState",
    "CacheTtlMarker",
    "ModelRoute",
    "OpenClawVersion",
    "AssistantMessage",
    "ContentBlock",
    "ContextCall",
    "DurationError",
    "EffectivePruningSettings",
    "HardCleared",
    "ImageContent",
    "MessageFate",
    "OpenClawSettings",
    "OtherMessage",
    "Protection",
    "PruneResult",
    "PruningRuntime",
    "RawBlock",
    "RawContent",
    "RedactedThinkingContent",
    "SoftTrimmed",
    "TextContent",
    "ThinkingContent",
    "ToolCall",
    "ToolResultMessage",
    "TtlGateOutcome",
    "TtlGateState",
    "UserMessage",
    "apply_anthropic_config_defaults",
    "attempt_step",
    "compute_effective_settings",
    "detect_config_version",
    "drop_thinking_blocks",
    "end_attempt",
    "estimate_context_chars",
    "estimate_message_chars",
    "estimate_string_chars",
    "make_tool_prunable_predicate",
    "message_from_json",
    "messages_from_json",
    "messages_to_json",
    "on_context",
    "parse_duration_ms",
    "prune_context_messages",
    "prune_processed_history_images",
    "record_attempt_marker",
    "resolve_context_window_tokens",
    "run_calls",
    "start_attempt",
]
