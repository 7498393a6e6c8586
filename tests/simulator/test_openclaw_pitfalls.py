"""The pitfalls of OpenClaw 2026.7.1 pruning (spec section 12), one behaviour per test."""

from __future__ import annotations

import pytest

from simulator.errors import ProfileError
from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw import (
    AgentMessage,
    ContextCall,
    EffectivePruningSettings,
    OpenClawSettings,
    PruningRuntime,
    SoftTrimmed,
    TtlGateState,
    apply_anthropic_config_defaults,
    compute_effective_settings,
    estimate_message_chars,
    estimate_string_chars,
    make_tool_prunable_predicate,
    message_from_json,
    messages_from_json,
    on_context,
    parse_duration_ms,
    prune_context_messages,
    prune_processed_history_images,
    resolve_context_window_tokens,
)
from simulator.runtimes.openclaw.settings import HardClearSettings, SoftTrimSettings


def user(text: str) -> JSON:
    return {"role": "user", "content": text, "timestamp": 1}


def assistant(text: str = "ok") -> JSON:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "timestamp": 2}


def tool(text: str, name: str = "exec", image: bool = False) -> JSON:
    content: list[JSON] = [{"type": "text", "text": text}]
    if image:
        content.append({"type": "image", "data": "abc", "mimeType": "image/png"})
    return {"role": "toolResult", "toolCallId": "c", "toolName": name, "content": content, "isError": False}


def content_of(message: AgentMessage) -> JSON:
    out = message.to_json()
    assert isinstance(out, dict)
    return out.get("content")


SMALL_SOFT_TRIM = SoftTrimSettings(10, 3, 3)


def settings(
    *,
    ttl_ms: float = 300_000,
    keep_last_assistants: float = 0,
    soft_trim_ratio: float = 0,
    hard_clear_ratio: float = 0,
    min_prunable_tool_chars: float = 0,
    soft_trim: SoftTrimSettings = SMALL_SOFT_TRIM,
) -> EffectivePruningSettings:
    return EffectivePruningSettings(
        ttl_ms=ttl_ms,
        keep_last_assistants=keep_last_assistants,
        soft_trim_ratio=soft_trim_ratio,
        hard_clear_ratio=hard_clear_ratio,
        min_prunable_tool_chars=min_prunable_tool_chars,
        soft_trim=soft_trim,
        hard_clear=HardClearSettings(True, "[cleared]"),
    )


def prune(history: list[JSON], s: EffectivePruningSettings, window: float = 1000):
    return prune_context_messages(messages_from_json(history), s, context_window=window)


def test_fewer_assistants_than_keep_last_assistants_skips_pruning_entirely():
    result = prune([user("u"), tool("x" * 5000), assistant()], settings(keep_last_assistants=2))
    assert result.returned_same
    assert result.skipped == "too_few_assistants"


def test_protected_tail_starts_at_the_kth_last_assistant_and_covers_the_tool_loop():
    history = [user("u"), tool("x" * 5000), assistant(), tool("y" * 5000), assistant(), tool("z" * 5000)]
    result = prune(history, settings(keep_last_assistants=2))
    assert result.changed_indexes == (1,)
    assert {p.index for p in result.protections if p.reason == "keep_last_assistants"} == {2, 3, 4, 5}


def test_keep_last_assistants_zero_protects_nothing():
    history = [user("u"), assistant(), tool("x" * 5000)]
    assert prune(history, settings()).changed_indexes == (2,)


def test_tool_results_before_the_first_user_message_are_counted_but_never_pruned():
    history = [tool("x" * 5000), user("u"), tool("y" * 5000)]
    result = prune(history, settings(hard_clear_ratio=10))
    assert result.changed_indexes == (2,)
    assert result.chars_before == 5000 + 1 + 5000
    assert any(p.index == 0 and p.reason == "before_first_user" for p in result.protections)


def test_ttl_gate_needs_a_marker_a_positive_ttl_and_an_expired_window():
    history = messages_from_json([user("u"), tool("x" * 5000)])
    runtime = PruningRuntime(settings(ttl_ms=1000), context_window_tokens=1000)
    no_marker, state = on_context(runtime, TtlGateState(None), ContextCall(10_000, history))
    assert no_marker.decision == "no_marker" and state.last_cache_touch_at is None
    fresh, state = on_context(runtime, TtlGateState(5000), ContextCall(5999, history))
    assert fresh.decision == "ttl_not_expired" and state.last_cache_touch_at == 5000
    expired, state = on_context(runtime, TtlGateState(5000), ContextCall(6000, history))
    assert expired.decision == "pruned" and state.last_cache_touch_at == 6000
    disabled = PruningRuntime(settings(ttl_ms=0), context_window_tokens=1000)
    assert (
        on_context(disabled, TtlGateState(5000), ContextCall(99_999, history))[0].decision == "ttl_disabled"
    )


def test_ttl_clock_is_not_reset_when_pruning_changes_nothing():
    history = messages_from_json([user("u"), assistant()])
    runtime = PruningRuntime(settings(ttl_ms=1000), context_window_tokens=1000)
    outcome, state = on_context(runtime, TtlGateState(5000), ContextCall(9000, history))
    assert outcome.decision == "unchanged" and outcome.messages is None
    assert state.last_cache_touch_at == 5000


def test_soft_trim_processes_every_candidate_without_stopping_early():
    history = [user("u")] + [tool("x" * 100) for _ in range(4)]
    result = prune(history, settings(hard_clear_ratio=10))
    assert result.changed_indexes == (1, 2, 3, 4)
    assert all(isinstance(f, SoftTrimmed) and f.trimmed for f in result.fates)


def test_hard_clear_goes_oldest_first_and_stops_once_below_the_ratio():
    history = [user("u"), tool("a" * 2000), tool("b" * 2000), tool("c" * 2000)]
    s = settings(soft_trim=SoftTrimSettings(100_000, 0, 0), hard_clear_ratio=0.5)
    result = prune(history, s, window=1100)
    assert result.changed_indexes == (1, 2)
    assert result.stop == "cleared_until_below_hard_clear_ratio"


def test_hard_clear_also_clears_tiny_results():
    result = prune([user("u"), tool("hi")], settings())
    assert content_of(result.messages[1]) == [{"type": "text", "text": "[cleared]"}]


def test_min_prunable_tool_chars_sums_every_candidate_after_soft_trim():
    history = [user("u"), tool("a" * 30), tool("b" * 30)]
    s = settings(soft_trim=SoftTrimSettings(100_000, 0, 0), min_prunable_tool_chars=60)
    assert prune(history, s, window=1).changed_indexes == (1, 2)
    s_more = settings(soft_trim=SoftTrimSettings(100_000, 0, 0), min_prunable_tool_chars=61)
    assert prune(history, s_more, window=1).returned_same


def test_image_results_get_the_marker_even_when_no_trim_is_needed():
    result = prune(
        [user("u"), tool("short", image=True)],
        settings(soft_trim=SoftTrimSettings(5000, 10, 10), hard_clear_ratio=10),
    )
    text = content_of(result.messages[1])
    assert text == [{"type": "text", "text": "short\n[image removed during context pruning]"}]
    assert estimate_message_chars(message_from_json(tool("short", image=True))) == 5 + 8000


def test_trim_note_uses_configured_head_tail_and_utf16_raw_length():
    history = [user("u"), tool("你" * 20)]
    result = prune(history, settings(soft_trim=SoftTrimSettings(10, 3, 4), hard_clear_ratio=10))
    text = content_of(result.messages[1])
    assert text == [
        {
            "type": "text",
            "text": "你你你\n...\n你你你你\n\n"
            "[Tool result trimmed: kept first 3 chars and last 4 chars of 20 chars.]",
        }
    ]


def test_head_slice_can_split_a_surrogate_pair_like_javascript():
    history = [user("u"), tool("😀" * 10)]
    result = prune(history, settings(soft_trim=SoftTrimSettings(5, 3, 0), hard_clear_ratio=10))
    text = content_of(result.messages[1])
    assert isinstance(text, list) and isinstance(text[0], dict)
    body = text[0]["text"]
    assert isinstance(body, str) and body.startswith("😀\ud83d\n...\n")


def test_estimate_weights_cjk_and_counts_other_roles_and_tool_call_arguments():
    assert estimate_string_chars("hi你好") == 10
    assert estimate_string_chars("\U00020000") == 4
    assert estimate_string_chars("😀") == 2
    assert estimate_message_chars(message_from_json({"role": "custom", "content": "x" * 9999})) == 256
    call: JSON = {
        "role": "assistant",
        "content": [{"type": "toolCall", "id": "1", "name": "n", "arguments": {"q": "你"}}],
    }
    assert estimate_message_chars(message_from_json(call)) == len('{"q":"你"}')
    malformed: JSON = {"role": "toolResult", "toolName": "t", "content": [{"type": "text", "text": {"a": 1}}]}
    assert estimate_message_chars(message_from_json(malformed)) == len('{"type":"text","text":{"a":1}}')


def test_allow_and_deny_are_case_insensitive_globs_where_deny_wins():
    predicate = make_tool_prunable_predicate({"allow": ["ex*", "web_?"], "deny": ["exec"]})
    assert [predicate(n) for n in ("Exec", "EXEC_2", "Browser", "web_?", "web_x")] == [
        False,
        True,
        False,
        True,
        False,
    ]
    assert make_tool_prunable_predicate({"allow": [""]})("anything")


def test_image_cleanup_counts_completed_turns_not_assistant_messages():
    turn: list[JSON] = [user("more"), assistant()]
    loop: list[JSON] = [
        {"role": "user", "content": [{"type": "image", "data": "abc", "mimeType": "image/png"}]},
        assistant(),
        tool("bytes"),
        assistant(),
    ]
    assert prune_processed_history_images(messages_from_json(loop + turn * 2)) is None
    pruned = prune_processed_history_images(messages_from_json(loop + turn * 3))
    assert pruned is not None
    assert content_of(pruned[0]) == [
        {"type": "text", "text": "[image data removed - already processed by model]"}
    ]


def test_media_uri_scrub_stops_at_the_next_slash():
    history = [user("see media://inbound/abc/def.png")] + [user("more"), assistant()] * 4
    history.insert(1, assistant())
    pruned = prune_processed_history_images(messages_from_json(history))
    assert pruned is not None
    assert content_of(pruned[0]) == "see [media reference removed - already processed by model]/def.png"


def test_smart_defaults_seed_ttl_only_when_mode_is_unset():
    profiles: JSON = {"profiles": {"p": {"provider": "anthropic", "mode": "oauth"}}}
    unset = apply_anthropic_config_defaults({"auth": profiles, "agents": {"defaults": {}}}, {})
    assert unset == {
        "auth": profiles,
        "agents": {
            "defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "1h"}, "heartbeat": {"every": "1h"}}
        },
    }
    explicit = apply_anthropic_config_defaults(
        {"auth": profiles, "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}}}, {}
    )
    assert explicit == {
        "auth": profiles,
        "agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}, "heartbeat": {"every": "1h"}}},
    }
    no_defaults: JSON = {"auth": profiles}
    assert apply_anthropic_config_defaults(no_defaults, {}) is no_defaults


def test_settings_clamp_only_in_compute_effective_settings():
    effective = compute_effective_settings(
        {
            "mode": "cache-ttl",
            "softTrimRatio": 2,
            "keepLastAssistants": "5",
            "ttl": "soon",
            "hardClear": {"placeholder": " x "},
        }
    )
    assert effective is not None
    assert (effective.soft_trim_ratio, effective.keep_last_assistants, effective.ttl_ms) == (1, 3, 300_000)
    assert effective.hard_clear.placeholder == "x"
    assert compute_effective_settings({"mode": "CACHE-TTL"}) is None
    assert parse_duration_ms("10", "m") == 600_000


def test_profile_validation_names_the_field_and_the_allowed_range():
    with pytest.raises(ProfileError) as excinfo:
        OpenClawSettings(softTrimRatio=1.5).validate()
    assert excinfo.value.field == "contextPruning.softTrimRatio"
    assert excinfo.value.allowed == "number in [0, 1]"
    with pytest.raises(ProfileError) as unknown:
        OpenClawSettings.from_json({"mode": "cache-ttl", "stripThinking": True})
    assert unknown.value.field == "contextPruning.stripThinking"


def test_profile_round_trips_to_effective_settings_and_window():
    profile = OpenClawSettings.from_json(
        {"mode": "cache-ttl", "ttl": "1h", "softTrim": {"maxChars": 100}},
        model_context_window=300_000,
        context_tokens=150_000,
    )
    profile.validate()
    effective = profile.effective()
    assert effective is not None and effective.ttl_ms == 3_600_000 and effective.soft_trim.max_chars == 100
    assert profile.context_window_tokens() == 150_000
    assert resolve_context_window_tokens() == 200_000
