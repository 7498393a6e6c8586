"""One OpenClaw embedded attempt: the transforms every model call goes through, in the runtime's order.

openclaw@2026.7.1, ``src/agents/embedded-agent-runner/run/attempt.ts`` (``runEmbeddedAttempt``): the resource
loader gets ``buildEmbeddedExtensionFactories`` (the context-pruning extension only when
``agents.defaults.contextPruning.mode`` is ``"cache-ttl"``, the route is cache-TTL eligible and the settings
resolve), then ``installToolResultContextGuard`` and ``installHistoryImagePruneContextTransform`` each wrap
the agent's ``transformContext``. Each model call (the first of the attempt and every tool-loop continuation)
goes through:

1. the pruning hook (TTL gate + ``pruneContextMessages``), the transcript policy's ``dropThinkingBlocks``
   feeding the pruner's estimate;
2. the tool-result context guard (oversized single results truncated; preemptive overflow stops the call);
3. ``pruneProcessedHistoryImages`` (images and media references of older completed turns);
4. at the stream: ``dropThinkingBlocks`` when the transcript policy says so.

openclaw@2026.9.6 (``installEmbeddedAttemptContextGuards`` and ``submitEmbeddedAttemptPrompt``):

1. history image cleanup (also before the inner transforms now; completed turns counted differently);
2. cache-TTL projection (:mod:`v2026_9_6.cache_ttl`: sticky projections, fixed thresholds, no new rounds when
   Anthropic server-side tool clearing is on);
3. the tool-result context guard (:mod:`v2026_9_6.context_guard`: no preemptive overflow);
4. history image cleanup again;
5. at the stream: the provider-bound tool-result budget (:mod:`v2026_9_6.provider_budget`), then the
   transcript policy;
6. provider-side compaction (OpenAI Responses server compaction, Anthropic ``compact-2026-01-12``) marked
   where the estimated prompt reaches its threshold (:mod:`v2026_9_6.compaction`).

The clock rule: the attempt reads ``lastCacheTouchAt`` from the newest ``openclaw.cache-ttl`` marker of the
same provider/model when it starts, moves it to ``now`` when pruning changed the context (2026.9.6: after
every successful call, to that call's start), and after the attempt (``appendAttemptCacheTtlIfNeeded``)
appends a marker stamped ``Date.now()`` *once the reply has finished* — not when the request started —
unless the attempt compacted. The step is pure: times come in as call facts.

Deliberate divergences: the attempt-start history sanitation (``sanitizeSessionHistory``, tool-pair repair)
and context engines are not modelled; the messages given are taken as the history sent.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw import context_guard as guard_v1
from simulator.runtimes.openclaw.estimate import drop_thinking_blocks
from simulator.runtimes.openclaw.image_prune import prune_processed_history_images
from simulator.runtimes.openclaw.messages import AgentMessage
from simulator.runtimes.openclaw.route import (
    ModelRoute,
    OpenClawVersion,
    drops_thinking_blocks,
    is_cache_ttl_eligible,
)
from simulator.runtimes.openclaw.settings import compute_effective_settings, resolve_context_window_tokens
from simulator.runtimes.openclaw.tools import make_tool_prunable_predicate
from simulator.runtimes.openclaw.ttl_gate import (
    ContextCall,
    PruningRuntime,
    TtlGateOutcome,
    TtlGateState,
    on_context,
)
from simulator.runtimes.openclaw.v2026_9_6 import cache_ttl, compaction, provider_budget
from simulator.runtimes.openclaw.v2026_9_6 import context_guard as guard_v2

CACHE_TTL_CUSTOM_TYPE = "openclaw.cache-ttl"
DEFAULT_CONTEXT_TOKENS = 200_000

InactiveReason = Literal["mode_off", "provider_not_eligible", "settings_invalid"]
Auth = Literal["api_key", "oauth"]


@dataclass(frozen=True, slots=True)
class CacheTtlMarker:
    """An ``openclaw.cache-ttl`` custom entry's data: ``timestamp`` (ms), ``provider``, ``modelId``."""

    timestamp: JSON
    provider: JSON = None
    model_id: JSON = None


@dataclass(frozen=True, slots=True)
class AttemptConfig:
    """The parts of the config and route parameters an attempt reads."""

    context_pruning: JSON = None
    """The raw ``agents.defaults.contextPruning`` block."""
    context_tokens: int | None = None
    """``agents.defaults.contextTokens`` (2026.7.1: caps the pruner's window)."""
    context_token_budget: int | None = None
    """The run's ``contextTokenBudget`` (the guard's window when set; 2026.9.6: also the pruner's)."""
    auth: Auth = "api_key"
    """How the route authenticates (2026.9.6: server-side tool clearing and compaction need an API key)."""
    params: Mapping[str, JSON] = field(default_factory=dict)
    """The model's ``params`` (``responsesServerCompaction``, ``anthropicServerCompaction``, thresholds)."""
    compaction_summary_tokens: int = compaction.DEFAULT_SUMMARY_TOKENS
    """Size of the stand-in summary after a provider-side compaction (a Trimscope setting)."""
    apply_provider_compaction: bool = True
    """Whether later calls send the summary instead of the compacted messages (False: only mark)."""


@dataclass(frozen=True, slots=True)
class AttemptSetup:
    """What an attempt installed when it started."""

    version: OpenClawVersion
    route: ModelRoute
    config: AttemptConfig
    pruning: PruningRuntime | None
    """2026.7.1's pruning runtime; None when pruning is not active (see ``inactive_reason``)."""
    cache_ttl: cache_ttl.CacheTtlSettings | None
    """2026.9.6's cache-TTL settings; None when pruning is not active."""
    inactive_reason: InactiveReason | None
    guard_window_tokens: int
    drop_thinking_blocks: bool
    appends_marker: bool
    server_tool_clearing: bool
    compaction: compaction.CompactionPlan | None

    @property
    def pruning_active(self) -> bool:
        return self.pruning is not None or self.cache_ttl is not None


@dataclass(frozen=True, slots=True)
class AttemptState:
    """What carries from call to call and attempt to attempt."""

    clock: TtlGateState = TtlGateState()
    projections: cache_ttl.ProjectionState = cache_ttl.ProjectionState()
    compacted_through: int | None = None
    """2026.9.6: the message count a provider-side compaction summarised (later calls send the summary)."""


@dataclass(frozen=True, slots=True)
class CompactionPoint:
    """The call where provider-side compaction would fire."""

    plan: compaction.CompactionPlan
    estimated_tokens: int


@dataclass(frozen=True, slots=True)
class AttemptCall:
    """What each transform did to one call's context.

    ``context`` is what the model receives, None when 2026.7.1's guard stopped the call (preemptive
    overflow). Index tuples name the messages each stage changed relative to the stage's input.
    """

    context: tuple[AgentMessage, ...] | None
    pruning: TtlGateOutcome | None
    cache_ttl: cache_ttl.CacheTtlOutcome | None
    guard_truncated_indexes: tuple[int, ...]
    overflow: bool
    image_cleanup_indexes: tuple[int, ...]
    transcript_policy_indexes: tuple[int, ...]
    last_cache_touch_at_before: float | None
    compaction: CompactionPoint | None = None
    transformed: tuple[AgentMessage, ...] | None = None
    """The ``transformContext`` output (before the stream-level transforms)."""
    provider_budget_indexes: tuple[int, ...] = ()
    """2026.9.6: results the provider-bound tool-result budget cut or elided."""


def _mode(raw: JSON) -> JSON:
    return raw.get("mode") if isinstance(raw, dict) else None


def read_last_cache_ttl_timestamp(markers: Sequence[CacheTtlMarker], route: ModelRoute) -> float | None:
    """``readLastCacheTtlTimestamp``: the newest marker of this provider/model (case-insensitive).

    Markers whose timestamp is not a finite non-zero number are skipped.
    """
    provider = route.provider.strip().lower()
    model_id = route.model_id.strip().lower()
    for marker in reversed(markers):
        if provider and (not isinstance(marker.provider, str) or marker.provider.strip().lower() != provider):
            continue
        if model_id and (not isinstance(marker.model_id, str) or marker.model_id.strip().lower() != model_id):
            continue
        ts = marker_time(marker)
        if ts is not None:
            return ts
    return None


def marker_time(marker: CacheTtlMarker) -> float | None:
    """A marker's timestamp as the clock reads it: ``None`` unless a number (not a bool) other than 0."""
    ts = marker.timestamp
    if isinstance(ts, int | float) and not isinstance(ts, bool) and ts:
        return float(ts)
    return None


def _server_tool_clearing(config: AttemptConfig, route: ModelRoute) -> bool:
    """``isAnthropicServerToolClearingEnabled`` under ``mode: "cache-ttl"`` (2026.9.6)."""
    base = (route.base_url or "").strip()
    host_ok = not base or compaction.host_of(base) == "api.anthropic.com"
    return (
        _mode(config.context_pruning) == "cache-ttl"
        and config.auth == "api_key"
        and route.api == "anthropic-messages"
        and route.provider.strip().lower() == "anthropic"
        and host_ok
    )


def start_attempt(
    config: AttemptConfig,
    route: ModelRoute,
    markers: Sequence[CacheTtlMarker],
    state: AttemptState = AttemptState(),
    version: OpenClawVersion = "2026.7.1",
    history: Sequence[AgentMessage] = (),
    reconcile: Callable[[cache_ttl.ProjectionState], cache_ttl.ProjectionState] | None = None,
) -> tuple[AttemptSetup, AttemptState]:
    """What an attempt installs when it starts, and the TTL clock read from the markers.

    Args:
        config: Config, budget, auth and model params.
        route: Provider and model.
        markers: The session's ``openclaw.cache-ttl`` markers so far.
        state: What earlier attempts left (projections, compaction point).
        version: The OpenClaw version reproduced.
        history: The session's messages when the attempt starts (2026.9.6 reconciles projections with it).
        reconcile: What reconciling the projections with ``history`` gives, when the caller knows it
            without reading the history (a replay's fast transforms).

    Returns:
        The setup and the state with the clock read from the markers.
    """
    return begin_attempt(attempt_setup(config, route, version), markers, state, history, reconcile)


def attempt_setup(config: AttemptConfig, route: ModelRoute, version: OpenClawVersion) -> AttemptSetup:
    """What an attempt installs: a function of the config, the route and the version alone (a replay
    whose attempts share them may make it once)."""
    eligible = is_cache_ttl_eligible(route, version)
    drop = drops_thinking_blocks(route)
    guard_tokens = max(
        1,
        math.floor(
            config.context_token_budget or route.context_window or route.max_tokens or DEFAULT_CONTEXT_TOKENS
        ),
    )
    cache_ttl_mode = _mode(config.context_pruning) == "cache-ttl"
    pruning: PruningRuntime | None = None
    ttl_settings: cache_ttl.CacheTtlSettings | None = None
    if cache_ttl_mode and eligible and version == "2026.7.1":
        settings = compute_effective_settings(config.context_pruning)
        if settings is not None:
            window = resolve_context_window_tokens(
                model_context_tokens=route.context_tokens,
                model_context_window=route.context_window,
                agents_context_tokens=config.context_tokens,
            )
            pruning = PruningRuntime(
                settings=settings,
                context_window_tokens=window,
                is_tool_prunable=make_tool_prunable_predicate(settings.tools),
                drop_thinking_blocks=drop,
            )
    elif cache_ttl_mode and eligible:
        ttl_settings = cache_ttl.resolve_cache_ttl_settings(config.context_pruning)
    reason: InactiveReason | None = None
    if not cache_ttl_mode:
        reason = "mode_off"
    elif not eligible:
        reason = "provider_not_eligible"
    elif pruning is None and ttl_settings is None:
        reason = "settings_invalid"
    modern = version != "2026.7.1"
    return AttemptSetup(
        version=version,
        route=route,
        config=config,
        pruning=pruning,
        cache_ttl=ttl_settings,
        inactive_reason=reason,
        guard_window_tokens=guard_tokens,
        drop_thinking_blocks=drop,
        appends_marker=cache_ttl_mode and eligible,
        server_tool_clearing=modern and _server_tool_clearing(config, route),
        compaction=compaction.compaction_plan(route, config.params, oauth=config.auth == "oauth")
        if modern
        else None,
    )


def begin_attempt(
    setup: AttemptSetup,
    markers: Sequence[CacheTtlMarker],
    state: AttemptState = AttemptState(),
    history: Sequence[AgentMessage] = (),
    reconcile: Callable[[cache_ttl.ProjectionState], cache_ttl.ProjectionState] | None = None,
) -> tuple[AttemptSetup, AttemptState]:
    """:func:`start_attempt` from its setup: the clock read from the markers, projections reconciled."""
    touched = read_last_cache_ttl_timestamp(markers, setup.route) if setup.pruning_active else None
    projections = state.projections
    if setup.version != "2026.7.1":
        projections = (
            reconcile(projections)
            if reconcile is not None
            else cache_ttl.reconcile_projections(history, projections)
        )
    return setup, AttemptState(TtlGateState(touched), projections, state.compacted_through)


def _changed(before: Sequence[AgentMessage], after: Sequence[AgentMessage]) -> tuple[int, ...]:
    return tuple(i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a is not b and a != b)


def _step_2026_7(
    setup: AttemptSetup, state: AttemptState, now: float, messages: tuple[AgentMessage, ...]
) -> tuple[AttemptCall, AttemptState]:
    before = state.clock.last_cache_touch_at
    gate: TtlGateOutcome | None = None
    pruned = messages
    if setup.pruning is not None:
        window = float(setup.route.context_window) if setup.route.context_window else None
        gate, clock = on_context(setup.pruning, state.clock, ContextCall(now, messages, window))
        state = replace(state, clock=clock)
        if gate.messages is not None:
            pruned = gate.messages
    guard = guard_v1.apply_tool_result_context_guard(pruned, setup.guard_window_tokens)
    if guard.messages is None:
        return AttemptCall(None, gate, None, guard.truncated_indexes, True, (), (), before), state
    cleaned = prune_processed_history_images(guard.messages) or guard.messages
    sent = drop_thinking_blocks(cleaned) if setup.drop_thinking_blocks else cleaned
    call = AttemptCall(
        context=sent,
        pruning=gate,
        cache_ttl=None,
        guard_truncated_indexes=guard.truncated_indexes,
        overflow=False,
        image_cleanup_indexes=_changed(guard.messages, cleaned),
        transcript_policy_indexes=_changed(cleaned, sent),
        last_cache_touch_at_before=before,
        transformed=cleaned,
    )
    return call, state


def _images_2026_9(messages: tuple[AgentMessage, ...]) -> tuple[AgentMessage, ...]:
    return prune_processed_history_images(messages, count_open_turn=False) or messages


def _step_2026_9(
    setup: AttemptSetup, state: AttemptState, now: float, messages: tuple[AgentMessage, ...]
) -> tuple[AttemptCall, AttemptState]:
    before = state.clock.last_cache_touch_at
    if state.compacted_through is not None and setup.config.apply_provider_compaction:
        messages = compaction.compacted_context(
            messages, state.compacted_through, setup.config.compaction_summary_tokens
        )
    first = _images_2026_9(messages)
    outcome: cache_ttl.CacheTtlOutcome | None = None
    projected: Sequence[AgentMessage] = first
    if setup.cache_ttl is not None:
        outcome = cache_ttl.prune_expired_cache_ttl_tool_results(
            first,
            setup.cache_ttl,
            state.projections,
            context_window_tokens=setup.guard_window_tokens,
            last_cache_touch_at=before,
            now=now,
            drop_thinking_blocks_for_estimate=setup.drop_thinking_blocks,
            prune_new_rounds=not setup.server_tool_clearing,
        )
        projected = outcome.messages
        state = replace(state, projections=outcome.state)
    guard = guard_v2.apply_tool_result_context_guard(projected, setup.guard_window_tokens)
    cleaned = _images_2026_9(guard.messages)
    budget = provider_budget.apply_provider_budget(cleaned, setup.guard_window_tokens, state.projections)
    state = replace(state, projections=budget.state)
    sent = drop_thinking_blocks(budget.messages) if setup.drop_thinking_blocks else budget.messages
    point: CompactionPoint | None = None
    if setup.compaction is not None and state.compacted_through is None:
        tokens = math.ceil(sum(cache_ttl.message_chars(m) for m in sent) / 4)
        if tokens >= setup.compaction.threshold:
            point = CompactionPoint(setup.compaction, tokens)
            state = replace(state, compacted_through=len(messages))
    # recordCacheTouch(startedAt) after every successful call (and onPruned before it): the call's time.
    if setup.cache_ttl is not None:
        state = replace(state, clock=TtlGateState(now))
    call = AttemptCall(
        context=sent,
        pruning=None,
        cache_ttl=outcome,
        guard_truncated_indexes=guard.truncated_indexes,
        overflow=False,
        image_cleanup_indexes=tuple(
            sorted(set(_changed(messages, first)) | set(_changed(guard.messages, cleaned)))
        ),
        transcript_policy_indexes=_changed(budget.messages, sent),
        last_cache_touch_at_before=before,
        compaction=point,
        transformed=cleaned,
        provider_budget_indexes=_changed(cleaned, budget.messages),
    )
    return call, state


def attempt_step(
    setup: AttemptSetup, state: AttemptState, now: float, messages: tuple[AgentMessage, ...]
) -> tuple[AttemptCall, AttemptState]:
    """One model call of the attempt: every transform in the runtime's order.

    Args:
        setup: From :func:`start_attempt`.
        state: Clock, projections and compaction point so far.
        now: ``Date.now()`` at the call (ms).
        messages: The history handed to ``transformContext``.

    Returns:
        What each transform did, and the next state.
    """
    if setup.version == "2026.7.1":
        return _step_2026_7(setup, state, now, messages)
    return _step_2026_9(setup, state, now, messages)


def end_attempt(
    setup: AttemptSetup,
    markers: tuple[CacheTtlMarker, ...],
    reply_finished_at: float,
    *,
    compacted: bool = False,
) -> tuple[CacheTtlMarker, ...]:
    """``appendAttemptCacheTtlIfNeeded``: the marker written once the reply has finished.

    Args:
        setup: The attempt.
        markers: The session's markers so far.
        reply_finished_at: ``Date.now()`` after the reply's entry was written (not the request start).
        compacted: Whether the attempt compacted (then no marker is written).

    Returns:
        The markers, with the new one appended when the runtime appends it.
    """
    if compacted or not setup.appends_marker:
        return markers
    return (*markers, CacheTtlMarker(reply_finished_at, setup.route.provider, setup.route.model_id))
