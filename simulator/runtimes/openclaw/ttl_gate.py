"""The cache-TTL gate around the pruner (``contextPruningExtension`` ``context`` hook) as a pure step.

Upstream: openclaw@2026.7.1 ``src/agents/agent-hooks/context-pruning/extension.ts`` and
``runtime.ts``. Before every model call the hook prunes only when a cache-TTL marker exists
(``lastCacheTouchAt`` non-null and non-zero), ``ttlMs > 0`` and ``now - lastCacheTouchAt >= ttlMs``;
the clock is reset to ``now`` only when pruning actually changed the context. The pruned view is used
for that call only. A runtime whose mode is not ``"cache-ttl"`` (never produced by
``computeEffectiveSettings``) skips the gate and prunes on every call without touching the clock.

Deliberate divergence: upstream keeps the mutable runtime in a WeakMap and reads ``Date.now()``;
here the state is an immutable value and ``now`` is passed in, so a step is
``(state, call) -> (outcome, new_state)`` with no clock reads. The marker appended after each
finished attempt is modelled by :func:`record_attempt_marker`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from simulator.runtimes.openclaw.messages import AgentMessage
from simulator.runtimes.openclaw.pruner import PruneMemo, PruneResult, ToolPrunable, prune_context_messages
from simulator.runtimes.openclaw.settings import EffectivePruningSettings

GateDecision = Literal["no_marker", "ttl_disabled", "ttl_not_expired", "unchanged", "pruned"]


@dataclass(frozen=True, slots=True)
class PruningRuntime:
    """Per-session runtime built when a run starts (settings, window, predicate, thinking policy)."""

    settings: EffectivePruningSettings
    context_window_tokens: float | None = None
    is_tool_prunable: ToolPrunable | None = None
    drop_thinking_blocks: bool = False
    memo: PruneMemo | None = None
    """Per-message work reused across calls (a replay); does not change any result."""
    explain: bool = True
    """Whether each prune lists its protections."""


@dataclass(frozen=True, slots=True)
class TtlGateState:
    """The mutable part of the runtime: when the provider cache was last known to be touched (ms)."""

    last_cache_touch_at: float | None = None


@dataclass(frozen=True, slots=True)
class ContextCall:
    """One ``context`` event: the wall-clock time (ms) and the messages about to be sent."""

    now: float
    messages: tuple[AgentMessage, ...]
    model_context_window: float | None = None


@dataclass(frozen=True, slots=True)
class TtlGateOutcome:
    """What the hook did: ``messages`` is None when it returned undefined (model gets the original)."""

    decision: GateDecision
    messages: tuple[AgentMessage, ...] | None
    elapsed_ms: float | None
    prune: PruneResult | None


def on_context(
    runtime: PruningRuntime, state: TtlGateState, call: ContextCall
) -> tuple[TtlGateOutcome, TtlGateState]:
    """One step of the TTL-gated pruning hook.

    Args:
        runtime: Settings and window of the session.
        state: The current clock (``lastCacheTouchAt``).
        call: The event time and messages.

    Returns:
        The outcome and the next state (the clock moves to ``call.now`` only when pruning changed
        the messages).
    """
    closed = gate_closed(runtime.settings, state, call.now)
    if closed is not None:
        return closed, state
    elapsed = elapsed_since_touch(state, call.now)
    result = prune_context_messages(
        call.messages,
        runtime.settings,
        context_window=call.model_context_window,
        context_window_tokens_override=runtime.context_window_tokens,
        is_tool_prunable=runtime.is_tool_prunable,
        drop_thinking_blocks_for_estimate=runtime.drop_thinking_blocks,
        memo=runtime.memo,
        explain=runtime.explain,
    )
    decision, next_state = after_pass(runtime.settings, state, call.now, changed=not result.returned_same)
    messages = None if result.returned_same else result.messages
    return TtlGateOutcome(decision, messages, elapsed, result), next_state


_NO_MARKER = TtlGateOutcome("no_marker", None, None, None)
"""The one closed outcome without a clock (immutable, so shared)."""
_new = object.__new__
_set_decision = TtlGateOutcome.__dict__["decision"].__set__
_set_messages = TtlGateOutcome.__dict__["messages"].__set__
_set_elapsed = TtlGateOutcome.__dict__["elapsed_ms"].__set__
_set_prune = TtlGateOutcome.__dict__["prune"].__set__


def gate_outcome(decision: GateDecision, elapsed: float | None) -> TtlGateOutcome:
    """``TtlGateOutcome(decision, None, elapsed, None)``, each slot set through its own descriptor: a replay
    asks the gate before every call, and the frozen ``__init__`` costs about twice as much."""
    outcome: TtlGateOutcome = _new(TtlGateOutcome)
    _set_decision(outcome, decision)
    _set_messages(outcome, None)
    _set_elapsed(outcome, elapsed)
    _set_prune(outcome, None)
    return outcome


def gate_closed(settings: EffectivePruningSettings, state: TtlGateState, now: float) -> TtlGateOutcome | None:
    """The gate's outcome when it lets no pruning pass run at ``now`` (the hook returns undefined), else
    ``None``: the first half of :func:`on_context`, which needs no messages (a replay asks it every call)."""
    if settings.mode != "cache-ttl":
        return None
    touched = state.last_cache_touch_at  # elapsed_since_touch, inline (asked before every call)
    if not touched:
        return _NO_MARKER
    elapsed = now - touched
    ttl = settings.ttl_ms
    if ttl <= 0:
        return gate_outcome("ttl_disabled", elapsed)
    if elapsed < ttl:
        return gate_outcome("ttl_not_expired", elapsed)
    return None


def elapsed_since_touch(state: TtlGateState, now: float) -> float | None:
    """``now - lastCacheTouchAt`` as the hook reports it: ``None`` while no marker set the clock (or it is
    zero)."""
    touched = state.last_cache_touch_at
    return now - touched if touched else None


def after_pass(
    settings: EffectivePruningSettings, state: TtlGateState, now: float, *, changed: bool
) -> tuple[Literal["unchanged", "pruned"], TtlGateState]:
    """What a pruning pass the gate let run decides: its name, and the clock after it.

    The one place the clock moves on a pass: to ``now`` only when the pass changed the context, and only
    in the cache-ttl mode (any other mode prunes on every call and owns no clock). :func:`on_context` and
    the replay's incremental hooks (``simulator.replay.openclaw_gate``, ``openclaw_transforms``) all call it.
    """
    if not changed:
        return "unchanged", state
    if settings.mode == "cache-ttl":
        return "pruned", _touched_at(now)
    return "pruned", state


_set_touch = TtlGateState.__dict__["last_cache_touch_at"].__set__


def _touched_at(now: float) -> TtlGateState:
    """``TtlGateState(now)`` (its one field) through the slot's descriptor, as :func:`gate_outcome` does."""
    state: TtlGateState = _new(TtlGateState)
    _set_touch(state, now)
    return state


def run_calls(
    runtime: PruningRuntime, state: TtlGateState, calls: Sequence[ContextCall]
) -> tuple[tuple[TtlGateOutcome, ...], TtlGateState]:
    """Fold :func:`on_context` over a sequence of calls.

    Returns:
        Every outcome in order and the final state.
    """
    outcomes: list[TtlGateOutcome] = []
    for call in calls:
        outcome, state = on_context(runtime, state, call)
        outcomes.append(outcome)
    return tuple(outcomes), state


def record_attempt_marker(state: TtlGateState, finished_at: float) -> TtlGateState:
    """The ``openclaw.cache-ttl`` marker appended after an attempt without compaction.

    The next run reads it as ``lastCacheTouchAt``, restarting the TTL window.
    """
    return replace(state, last_cache_touch_at=finished_at)
