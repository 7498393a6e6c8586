"""OpenClaw's ``context`` hook at each replayed call: the TTL gate, then the pruner - fast or reference.

The decision whether to prune is always the runtime's own: ``ttl_gate.on_context`` (the mirrored
hook). :class:`ReferenceContextHook` runs that hook on the call's messages, pruner included (quadratic
over a session). :class:`FastContextHook` asks the same hook with no messages - the gate decides and
its pruner has nothing to do - and, when the gate is open, answers the pruning pass with the
incremental pruner (``openclaw_fast``), moving the clock with the hook's own ``ttl_gate.after_pass``.
Both satisfy :class:`ContextHook` and give the same records
(``tests/simulator/test_openclaw_fast.py``).

``now=None`` means the transcript has no clock: the gate is skipped and every call is pruned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from simulator.replay.openclaw_fast import FastPrune, IncrementalPruner
from simulator.runtimes.openclaw.messages import AgentMessage
from simulator.runtimes.openclaw.pruner import (
    HardCleared,
    PruneMemo,
    PruneResult,
    SoftTrimmed,
    prune_context_messages,
)
from simulator.runtimes.openclaw.settings import EffectivePruningSettings
from simulator.runtimes.openclaw.ttl_gate import (
    ContextCall,
    PruningRuntime,
    TtlGateState,
    after_pass,
    on_context,
)


@dataclass(frozen=True, slots=True)
class HookOutcome:
    """The gate's decision (``None`` when there was no clock to gate on) and the pruning pass, if any."""

    decision: str | None
    elapsed_ms: float | None
    view: FastPrune | None


class ContextHook(Protocol):
    """The pruning hook before the call that sees native messages ``[0, end)`` at time ``now``."""

    def context(
        self, state: TtlGateState, now: float | None, end: int
    ) -> tuple[HookOutcome, TtlGateState]: ...


def as_view(result: PruneResult) -> FastPrune:
    """The reference pruner's result in the incremental pruner's terms, so both share one rendering."""
    soft = tuple(f.index for f in result.fates if isinstance(f, SoftTrimmed) and f.trimmed)
    images = tuple(f.index for f in result.fates if isinstance(f, SoftTrimmed) and not f.trimmed)
    hard = tuple(f.index for f in result.fates if isinstance(f, HardCleared))
    return FastPrune(
        not result.returned_same,
        result.chars_before,
        result.chars_after,
        result.ratio_before,
        result.ratio_after_soft_trim,
        soft,
        images,
        hard,
        result.skipped,
    )


def pruning_runtime(effective: EffectivePruningSettings, window_tokens: int) -> PruningRuntime:
    return PruningRuntime(
        settings=effective, context_window_tokens=window_tokens, memo=PruneMemo(effective), explain=False
    )


class ReferenceContextHook:
    """The mirrored hook and pruner on the call's messages, every call."""

    def __init__(
        self, natives: Sequence[AgentMessage], runtime: PruningRuntime, model_window: int | None
    ) -> None:
        self._natives = tuple(natives)
        self._runtime = runtime
        self._model_window = model_window

    def context(self, state: TtlGateState, now: float | None, end: int) -> tuple[HookOutcome, TtlGateState]:
        messages = self._natives[:end]
        if now is None:
            result = prune_context_messages(
                messages,
                self._runtime.settings,
                context_window=self._model_window,
                context_window_tokens_override=self._runtime.context_window_tokens,
                memo=self._runtime.memo,
                explain=False,
            )
            return HookOutcome(None, None, as_view(result)), state
        call = ContextCall(now=now, messages=messages, model_context_window=self._model_window)
        outcome, state = on_context(self._runtime, state, call)
        view = as_view(outcome.prune) if outcome.prune is not None else None
        return HookOutcome(outcome.decision, outcome.elapsed_ms, view), state


class FastContextHook:
    """The mirrored hook's gate, with the incremental pruner answering the pass."""

    def __init__(
        self, natives: Sequence[AgentMessage], runtime: PruningRuntime, model_window: int | None
    ) -> None:
        self._natives = natives
        self._runtime = runtime
        self._pruner = IncrementalPruner(
            runtime.settings,
            context_window=model_window,
            context_window_tokens_override=runtime.context_window_tokens,
        )
        self._fed = 0

    def context(self, state: TtlGateState, now: float | None, end: int) -> tuple[HookOutcome, TtlGateState]:
        if self._fed < end:
            self._pruner.extend(self._natives[self._fed : end])
            self._fed = end
        if now is None:
            return HookOutcome(None, None, self._pruner.prune(end)), state
        # The hook's own gate; with no messages its pruner has nothing to do and leaves the clock alone.
        gate, _ = on_context(self._runtime, state, ContextCall(now=now, messages=()))
        if gate.decision != "unchanged":
            return HookOutcome(gate.decision, gate.elapsed_ms, None), state
        view = self._pruner.prune(end)
        decision, state = after_pass(self._runtime.settings, state, now, changed=view.changed)
        return HookOutcome(decision, gate.elapsed_ms, view), state
