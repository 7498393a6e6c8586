"""OpenClaw's cache-TTL gate at its boundaries, each outcome literal (spec §5)."""

from __future__ import annotations

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw import (
    ContextCall,
    EffectivePruningSettings,
    PruningRuntime,
    TtlGateOutcome,
    TtlGateState,
    messages_from_json,
    on_context,
    prune_context_messages,
    record_attempt_marker,
    run_calls,
)
from simulator.runtimes.openclaw.settings import HardClearSettings
from simulator.runtimes.openclaw.ttl_gate import after_pass

THINKING: JSON = {"role": "assistant", "content": [{"type": "thinking", "thinking": "t" * 200}]}
HISTORY = messages_from_json(
    [
        {"role": "user", "content": "u" * 100},
        THINKING,
        {"role": "toolResult", "toolName": "exec", "content": [{"type": "text", "text": "x" * 100}]},
        {"role": "assistant", "content": [{"type": "text", "text": "a"}]},
    ]
)


def settings(*, ttl_ms: float = 1, mode: str = "cache-ttl") -> EffectivePruningSettings:
    return EffectivePruningSettings(
        mode=mode,
        ttl_ms=ttl_ms,
        keep_last_assistants=1,
        soft_trim_ratio=0,
        hard_clear_ratio=0,
        min_prunable_tool_chars=0,
        hard_clear=HardClearSettings(True, "[cleared]"),
    )


def runtime(**fields) -> PruningRuntime:
    return PruningRuntime(settings(**fields), context_window_tokens=100)


def test_a_one_millisecond_ttl_prunes_once_one_millisecond_has_passed():
    outcome, state = on_context(runtime(), TtlGateState(1000), ContextCall(1001, HISTORY))
    expected = prune_context_messages(HISTORY, settings(), context_window_tokens_override=100)
    assert outcome == TtlGateOutcome("pruned", expected.messages, 1, expected)
    assert expected.changed_indexes == (2,)
    assert state == TtlGateState(1001)


def test_before_the_ttl_the_gate_reports_the_elapsed_time_and_keeps_the_clock():
    outcome, state = on_context(runtime(ttl_ms=10), TtlGateState(1000), ContextCall(1009, HISTORY))
    assert outcome == TtlGateOutcome("ttl_not_expired", None, 9, None)
    assert state == TtlGateState(1000)


def test_a_zero_ttl_disables_the_gate_and_reports_the_elapsed_time():
    outcome, state = on_context(runtime(ttl_ms=0), TtlGateState(1000), ContextCall(5000, HISTORY))
    assert outcome == TtlGateOutcome("ttl_disabled", None, 4000, None)
    assert state == TtlGateState(1000)


def test_an_unchanged_prune_reports_its_result_and_keeps_the_clock():
    quiet = PruningRuntime(settings(), context_window_tokens=100, is_tool_prunable=lambda name: False)
    outcome, state = on_context(quiet, TtlGateState(1000), ContextCall(2000, HISTORY))
    expected = prune_context_messages(
        HISTORY, settings(), context_window_tokens_override=100, is_tool_prunable=lambda name: False
    )
    assert outcome == TtlGateOutcome("unchanged", None, 1000, expected)
    assert state == TtlGateState(1000)


def test_the_runtime_passes_its_thinking_policy_and_explain_flag_to_the_pruner():
    lean = PruningRuntime(settings(), context_window_tokens=100, drop_thinking_blocks=True, explain=False)
    outcome, _ = on_context(lean, TtlGateState(1000), ContextCall(2000, HISTORY))
    assert outcome.prune is not None
    assert outcome.prune.chars_before == 100 + 29 + 100 + 1
    assert outcome.prune.protections == ()
    full, _ = on_context(runtime(), TtlGateState(1000), ContextCall(2000, HISTORY))
    assert full.prune is not None
    assert full.prune.chars_before == 100 + 200 + 100 + 1
    assert full.prune.protections != ()


def test_a_mode_other_than_cache_ttl_prunes_every_call_and_never_moves_the_clock():
    outcome, state = on_context(runtime(mode="off"), TtlGateState(None), ContextCall(5, HISTORY))
    assert outcome.decision == "pruned"
    assert outcome.elapsed_ms is None
    assert state == TtlGateState(None)


def test_run_calls_folds_the_clock_through_every_call():
    calls = [ContextCall(1000, HISTORY), ContextCall(1001, HISTORY), ContextCall(1001, HISTORY)]
    outcomes, state = run_calls(runtime(), TtlGateState(999), calls)
    assert [o.decision for o in outcomes] == ["pruned", "pruned", "ttl_not_expired"]
    assert [o.elapsed_ms for o in outcomes] == [1, 1, 0]
    assert state == TtlGateState(1001)


def test_a_finished_attempt_restarts_the_ttl_window():
    assert record_attempt_marker(TtlGateState(5), 42) == TtlGateState(42)
    assert record_attempt_marker(TtlGateState(None), 7) == TtlGateState(7)


def test_after_a_pass_only_a_change_in_cache_ttl_mode_moves_the_clock_to_now():
    before = TtlGateState(1_000)
    assert after_pass(settings(), before, 9_000, changed=False) == ("unchanged", before)
    assert after_pass(settings(), before, 9_000, changed=True) == ("pruned", TtlGateState(9_000))
    assert after_pass(settings(mode="off"), before, 9_000, changed=True) == ("pruned", before)
    assert after_pass(settings(mode="off"), before, 9_000, changed=False) == ("unchanged", before)
