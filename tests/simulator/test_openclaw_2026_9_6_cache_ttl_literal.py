"""OpenClaw 2026.9.6's cache-TTL projection, case by case: settings, keys, sizes, soft trim, replay, pruning.

Each case pins a rule of ``simulator/runtimes/openclaw/v2026_9_6/cache_ttl.py``, which mirrors
openclaw@2026.9.6 ``src/agents/embedded-agent-runner/tool-result-truncation.ts``
(``resolveCacheTtlPruningSettings``, ``pruneExpiredCacheTtlToolResults``, ``softPruneCacheTtlToolResult``,
``cacheTtlMessageChars``, ``projectToolResultBranch``) and ``session-prompt-state.ts`` (projection keys,
records, reconciliation).
The 2026.7.1 rules it keeps (settings grammar, TTL gate, soft trim layout, hard clear order, the protected
tail) are in spec/openclaw.md §2, §4, §5 and §12; the fixed 2026.9.6 thresholds (0.3 / 0.5, 3 assistants,
50,000 chars, 4,000 / 1,500 / 1,500) and the sticky projections are in the module's docstring.
"""

from __future__ import annotations

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.messages import (
    AgentMessage,
    TextContent,
    ToolResultMessage,
    block_from_json,
    message_from_json,
    messages_to_json,
)
from simulator.runtimes.openclaw.v2026_9_6.cache_ttl import (
    CacheTtlOutcome,
    CacheTtlSettings,
    Projection,
    ProjectionState,
    merge_projection,
    message_chars,
    projection_key,
    prune_expired_cache_ttl_tool_results,
    reconcile_projections,
    replay_projections,
    resolve_cache_ttl_settings,
    soft_prune,
    source_texts,
)

IMAGE: JSON = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
BAD_TEXT: JSON = {"type": "text", "text": 5}
IMAGE_BLOCK = block_from_json(IMAGE)
IMAGE_MARKER = "[image removed during context pruning]"
CLEARED = "[Old tool result content cleared]"


def tool_result(content: JSON, call_id: JSON = "c1", name: JSON = "read", **extra: JSON) -> ToolResultMessage:
    body: JSON = [{"type": "text", "text": content}] if isinstance(content, str) else content
    raw: dict[str, JSON] = {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": body,
        "isError": False,
    }
    message = message_from_json({**raw, **extra})
    assert isinstance(message, ToolResultMessage)
    return message


def user(content: JSON) -> AgentMessage:
    return message_from_json({"role": "user", "content": content})


def assistant(*blocks: JSON) -> AgentMessage:
    return message_from_json({"role": "assistant", "content": list(blocks)})


def call(call_id: str) -> AgentMessage:
    return assistant({"type": "toolCall", "id": call_id, "name": "read", "arguments": {}})


def settings(**raw: JSON) -> CacheTtlSettings:
    resolved = resolve_cache_ttl_settings({"mode": "cache-ttl", **raw})
    assert resolved is not None
    return resolved


def content_of(message: AgentMessage) -> JSON:
    out = messages_to_json([message])[0]
    assert isinstance(out, dict)
    return out.get("content")


def texts_of(messages: tuple[AgentMessage, ...]) -> list[JSON]:
    return [content_of(m) for m in messages]


# --- resolveCacheTtlPruningSettings ------------------------------------------------------------------------


def test_only_an_object_whose_mode_is_exactly_cache_ttl_turns_the_projection_on():
    # spec §2 step 1: not an object, or mode !== "cache-ttl" (case-sensitive, missing included) -> off.
    raws: list[JSON] = [None, [], "cache-ttl", {}, {"mode": "Cache-TTL"}, {"mode": "off"}]
    for raw in raws:
        assert resolve_cache_ttl_settings(raw) is None


def test_the_defaults_are_five_minutes_hard_clear_on_the_stock_placeholder_and_every_tool_prunable():
    resolved = settings()
    assert (resolved.ttl_ms, resolved.hard_clear, resolved.placeholder) == (300_000, True, CLEARED)
    assert [resolved.is_tool_prunable(n) for n in ("read", "", "exec")] == [True, True, True]


def test_a_ttl_is_a_duration_whose_bare_number_means_minutes_and_a_bad_one_keeps_five_minutes():
    # spec §2 step 3: parseDurationMs(ttl, {defaultUnit: "m"}); any parse error keeps 300000; "0" is 0.
    ttls: list[JSON] = ["2", "90s", "1h", "0", "", "soon", 5, None]
    expected = [120_000, 90_000, 3_600_000, 0, 300_000, 300_000, 300_000, 300_000]
    assert [settings(ttl=t).ttl_ms for t in ttls] == expected


def test_hard_clear_reads_a_boolean_enabled_and_a_trimmed_non_empty_placeholder():
    # spec §2 step 6: enabled only if boolean; placeholder only if its trim is non-empty, stored trimmed.
    off = settings(hardClear={"enabled": False, "placeholder": "  [gone]\n"})
    assert (off.hard_clear, off.placeholder) == (False, "[gone]")
    ignored = settings(hardClear={"enabled": "false", "placeholder": "   "})
    assert (ignored.hard_clear, ignored.placeholder) == (True, CLEARED)
    on = settings(hardClear={"enabled": True, "placeholder": 7})
    assert (on.hard_clear, on.placeholder) == (True, CLEARED)
    hards: list[JSON] = [[], "off", None]
    for hard in hards:
        resolved = settings(hardClear=hard)
        assert (resolved.hard_clear, resolved.placeholder) == (True, CLEARED)


def test_tools_allow_and_deny_build_the_predicate_and_deny_wins():
    # spec §6: allow ["ex*"], deny ["exec"] -> "Exec" false, "EXEC_2" true, "Browser" false.
    resolved = settings(tools={"allow": ["ex*"], "deny": ["exec"], "other": ["browser"]})
    assert [resolved.is_tool_prunable(n) for n in ("Exec", "EXEC_2", "Browser")] == [False, True, False]
    assert settings(tools={"deny": ["exec"]}).is_tool_prunable("exec") is False
    assert settings(tools=["exec"]).is_tool_prunable("exec") is True


# --- getToolResultProjectionBaseKey, getToolResultTextBlocks ------------------------------------------------


def test_a_projection_key_is_the_tool_call_id_and_the_timestamp_as_javascript_prints_it():
    assert projection_key(tool_result("x", timestamp=1_700_000_000_000)) == "tool:c1:1700000000000"
    assert projection_key(tool_result("x", timestamp=0)) == "tool:c1:0"
    assert projection_key(tool_result("x", timestamp=1.5)) == "tool:c1:1.5"
    assert projection_key(tool_result("x", timestamp=1e21)) == "tool:c1:1e+21"
    assert projection_key(tool_result("x", timestamp=2.0)) == "tool:c1:2"


def test_a_timestamp_that_is_not_a_number_is_left_out_of_the_key():
    assert projection_key(tool_result("x", timestamp=True)) == "tool:c1"
    assert projection_key(tool_result("x", timestamp="12")) == "tool:c1"
    assert projection_key(tool_result("x")) == "tool:c1"


def test_without_a_tool_call_id_the_key_is_the_timestamp_alone_or_there_is_none():
    assert projection_key(tool_result("x", call_id="", timestamp=42)) == "timestamp:42"
    assert projection_key(tool_result("x", call_id=None, timestamp=4.25)) == "timestamp:4.25"
    assert projection_key(tool_result("x", call_id="")) is None
    assert projection_key(tool_result("x", call_id=7, timestamp=False)) is None


def test_only_tool_results_have_a_key_and_the_last_timestamp_field_wins():
    assert projection_key(user("x")) is None
    twice = ToolResultMessage((), "read", "c9", None, (("timestamp", 1), ("ts", 3), ("timestamp", 2)))
    assert projection_key(twice) == "tool:c9:2"


def test_source_texts_are_the_text_blocks_in_order_with_a_non_string_text_as_empty():
    message = tool_result(
        [{"type": "text", "text": "a"}, IMAGE, BAD_TEXT, None, {"type": "text", "text": "b"}]
    )
    assert source_texts(message) == ("a", "", "b")
    assert source_texts(tool_result([])) == ()
    assert source_texts(message_from_json({"role": "toolResult", "content": "abc"})) == ()
    assert source_texts(user([{"type": "text", "text": "a"}])) == ()


# --- cacheTtlMessageChars -----------------------------------------------------------------------------------


def test_a_user_string_counts_its_weighted_length_and_other_roles_count_256():
    # spec §3 size estimate: user string -> estimateStringChars; any other role is a flat 256.
    assert message_chars(user("abc")) == 3
    assert message_chars(user("你好")) == 8
    assert message_chars(message_from_json({"role": "custom", "content": "x" * 1000})) == 256
    assert message_chars(message_from_json(None)) == 256
    assert message_chars(message_from_json({"role": "user"})) == 0


def test_user_blocks_count_text_images_8000_and_a_malformed_text_as_its_json():
    blocks: JSON = [
        {"type": "text", "text": "ab"},
        IMAGE,
        BAD_TEXT,
        {"type": "thinking", "thinking": "xyz"},
        None,
    ]
    # '{"type":"text","text":5}' is 24 characters; thinking counts only in assistant messages.
    assert message_chars(user(blocks)) == 2 + 8000 + 24


def test_tool_result_blocks_count_like_user_blocks_and_string_content_counts_nothing():
    blocks: JSON = [
        {"type": "text", "text": "中"},
        IMAGE,
        BAD_TEXT,
        {"type": "toolCall", "arguments": {"a": 1}},
    ]
    assert message_chars(tool_result(blocks)) == 4 + 8000 + 24
    assert message_chars(message_from_json({"role": "toolResult", "content": "abc"})) == 0
    assert message_chars(tool_result([{"type": "redacted_thinking", "data": "abcd"}])) == 0


def test_assistant_blocks_count_text_images_thinking_and_tool_call_arguments():
    thinking: JSON = {"type": "thinking", "thinking": "abc", "thinkingSignature": "sig", "data": "zzzzz"}
    redacted: JSON = {"type": "redacted_thinking", "data": "dddd", "thinkingSignature": "ss", "thinking": "t"}
    blocks: list[JSON] = [
        "loose",
        {"type": "text", "text": "ab"},
        BAD_TEXT,
        IMAGE,
        thinking,
        redacted,
        {"type": "toolCall", "id": "x", "name": "n", "arguments": {"a": 1}},
        {"type": "toolCall", "id": "y", "name": "n"},
    ]
    # non-object 0, text 2, malformed text 0, image 8000, thinking 3 + 3 (its "data" is not read),
    # redacted 4 + 2 + 1, '{"a":1}' 7, absent arguments '{}' 2.
    assert message_chars(assistant(*blocks)) == 2 + 0 + 8000 + 6 + 7 + 7 + 2
    assert message_chars(assistant({"type": "thinking", "thinking": "中", "thinkingSignature": 5})) == 4


# --- softPruneCacheTtlToolResult ----------------------------------------------------------------------------


def test_text_of_at_most_4000_characters_without_images_is_returned_as_it_is():
    exact = tool_result([{"type": "text", "text": "a" * 2000}, {"type": "text", "text": "b" * 1999}])
    assert soft_prune(exact) is exact
    string_content = message_from_json({"role": "toolResult", "content": "x" * 5000})
    assert isinstance(string_content, ToolResultMessage)
    assert soft_prune(string_content) is string_content


def test_longer_text_keeps_the_first_and_last_1500_characters_and_says_so():
    message = tool_result("a" * 1500 + "b" * 1001 + "c" * 1500, details={"k": 1})
    trimmed = soft_prune(message)
    note = "[Tool result trimmed: kept first 1500 chars and last 1500 chars of 4001 chars.]"
    assert messages_to_json([trimmed])[0] == {
        "role": "toolResult",
        "content": [{"type": "text", "text": "a" * 1500 + "\n...\n" + "c" * 1500 + "\n\n" + note}],
        "toolCallId": "c1",
        "toolName": "read",
        "isError": False,
        "details": {"k": 1},
    }


def test_the_length_is_that_of_the_newline_joined_texts():
    message = tool_result([{"type": "text", "text": "a" * 2000}, {"type": "text", "text": "b" * 2000}])
    note = "[Tool result trimmed: kept first 1500 chars and last 1500 chars of 4001 chars.]"
    assert content_of(soft_prune(message)) == [
        {"type": "text", "text": "a" * 1500 + "\n...\n" + "b" * 1500 + "\n\n" + note}
    ]


def test_images_become_a_marker_even_when_the_text_is_short():
    assert content_of(soft_prune(tool_result([IMAGE]))) == [{"type": "text", "text": IMAGE_MARKER}]
    mixed = tool_result([IMAGE, None, {"type": "text", "text": "hi"}, BAD_TEXT])
    assert content_of(soft_prune(mixed)) == [
        {"type": "text", "text": IMAGE_MARKER + "\nhi\n" + '{"type":"text","text":5}'}
    ]


def test_an_image_marker_counts_toward_the_length_of_a_trimmed_result():
    message = tool_result([{"type": "text", "text": "x" * 3962}, IMAGE])
    # 3962 + "\n" + 38-character marker = 4001.
    note = "[Tool result trimmed: kept first 1500 chars and last 1500 chars of 4001 chars.]"
    tail = ("x" * 3962 + "\n" + IMAGE_MARKER)[-1500:]
    assert content_of(soft_prune(message)) == [
        {"type": "text", "text": "x" * 1500 + "\n...\n" + tail + "\n\n" + note}
    ]


def test_an_image_result_of_exactly_4000_characters_with_its_marker_is_not_trimmed():
    message = tool_result([{"type": "text", "text": "x" * 3961}, IMAGE])
    assert content_of(soft_prune(message)) == [{"type": "text", "text": "x" * 3961 + "\n" + IMAGE_MARKER}]


def test_the_head_and_tail_never_split_a_surrogate_pair():
    head_split = soft_prune(tool_result("a" * 1499 + "😀" + "b" * 3000))
    note = "[Tool result trimmed: kept first 1500 chars and last 1500 chars of 4501 chars.]"
    assert content_of(head_split) == [
        {"type": "text", "text": "a" * 1499 + "\n...\n" + "b" * 1500 + "\n\n" + note}
    ]
    tail_split = soft_prune(tool_result("a" * 3000 + "😀" + "b" * 1499))
    assert content_of(tail_split) == [
        {"type": "text", "text": "a" * 1500 + "\n...\n" + "b" * 1499 + "\n\n" + note}
    ]


# --- recordToolResultPromptProjection, mergeProjectedToolResultMessage --------------------------------------


def test_recording_keeps_a_cache_ttl_projection_whole_and_an_ordinary_one_as_its_text_blocks():
    message = tool_result([{"type": "text", "text": "a", "textSignature": "s"}, IMAGE, BAD_TEXT])
    state = ProjectionState().record("k1", message, "soft").record("k2", message, None)
    assert state.lookup() == {
        "k1": Projection("soft", message.content if isinstance(message.content, tuple) else ()),
        "k2": Projection(None, (TextContent("a"),)),
    }
    assert state.frozen == frozenset({"k1", "k2"})
    captioned = tool_result([None, {"type": "image", "text": "alt"}, {"type": "text", "text": "b"}])
    assert ProjectionState().record("k", captioned, None).lookup() == {
        "k": Projection(None, (TextContent("b"),))
    }
    string_content = message_from_json({"role": "toolResult", "content": "abc"})
    assert isinstance(string_content, ToolResultMessage)
    assert ProjectionState().record("k", string_content, "hard").lookup() == {"k": Projection("hard", ())}


def test_recording_a_key_again_replaces_its_projection_in_place():
    first, second = tool_result("one"), tool_result("two")
    state = (
        ProjectionState().record("a", first, "soft").record("b", first, "soft").record("a", second, "hard")
    )
    assert [k for k, _ in state.projections] == ["a", "b"]
    assert state.lookup()["a"] == Projection("hard", (TextContent("two"),))


def test_a_cache_ttl_projection_replaces_the_whole_content_when_the_source_is_unchanged():
    message = tool_result([{"type": "text", "text": "long"}, IMAGE])
    projection = Projection("soft", (TextContent("short"),))
    assert content_of(merge_projection(message, projection, ("long",))) == [{"type": "text", "text": "short"}]
    assert content_of(merge_projection(message, projection, None)) == [{"type": "text", "text": "short"}]
    assert merge_projection(message, projection, ("other",)) is message


def test_a_projection_replaces_content_that_is_not_a_list_whatever_the_source():
    message = message_from_json({"role": "toolResult", "toolCallId": "c1", "content": "abc"})
    assert isinstance(message, ToolResultMessage)
    merged = merge_projection(message, Projection(None, (TextContent("P"),)), ("zzz",))
    assert content_of(merged) == [{"type": "text", "text": "P"}]


def test_an_ordinary_projection_replaces_the_texts_one_for_one_and_keeps_other_blocks():
    message = tool_result(
        [
            {"type": "text", "text": "a", "textSignature": "sig"},
            IMAGE,
            BAD_TEXT,
            {"type": "text", "text": "c", "textSignature": 9},
        ]
    )
    projection = Projection(None, (TextContent("X"), IMAGE_BLOCK, TextContent("Y"), TextContent("Z")))
    assert content_of(merge_projection(message, projection, ("a", "", "c"))) == [
        {"type": "text", "text": "X", "textSignature": "sig"},
        IMAGE,
        {"type": "text", "text": "Y"},
        {"type": "text", "text": "Z"},
    ]


def test_an_ordinary_projection_with_another_number_of_texts_is_not_applied():
    message = tool_result([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])
    assert merge_projection(message, Projection(None, (TextContent("X"),)), None) is message
    longer = Projection(None, (TextContent("X"), TextContent("Y"), TextContent("Z")))
    assert merge_projection(message, longer, None) is message


# --- projectToolResultBranch, reconcileToolResultPromptProjectionState -------------------------------------


def test_replay_sends_every_recorded_projection_again_and_records_each_source_once():
    state = ProjectionState().record("tool:c1:1", tool_result("short", timestamp=1), "soft")
    messages = (
        user("go"),
        tool_result("long output", timestamp=1),
        tool_result("fresh", call_id="c2", timestamp=2),
        tool_result("keyless", call_id=""),
    )
    out, recorded, replayed = replay_projections(messages, state)
    assert replayed == (1,)
    assert texts_of(out) == [
        "go",
        [{"type": "text", "text": "short"}],
        [{"type": "text", "text": "fresh"}],
        [{"type": "text", "text": "keyless"}],
    ]
    assert (out[0] is messages[0], out[2] is messages[2], out[3] is messages[3]) == (True, True, True)
    assert recorded.sources == (("tool:c1:1", ("long output",)), ("tool:c2:2", ("fresh",)))
    assert (recorded.projections, recorded.frozen) == (state.projections, state.frozen)


def test_a_result_whose_text_changed_since_its_source_was_recorded_is_not_projected():
    state = ProjectionState().record("tool:c1:1", tool_result("short", timestamp=1), "hard")
    _, recorded, _ = replay_projections((tool_result("long output", timestamp=1),), state)
    changed = (tool_result("long output, edited", timestamp=1),)
    out, again, replayed = replay_projections(changed, recorded)
    assert (out, again, replayed) == (changed, recorded, ())


def test_reconciling_keeps_only_keys_in_the_history_whose_texts_are_those_recorded():
    projection = Projection("soft", (TextContent("p"),))
    state = ProjectionState(
        projections=tuple((k, projection) for k in ("tool:a", "tool:b", "tool:c", "tool:d")),
        sources=(("tool:a", ("x",)), ("tool:b", ("old",)), ("tool:c", ("x",))),
        frozen=frozenset({"tool:a", "tool:b", "tool:c", "tool:d"}),
    )
    history = (
        user("go"),
        tool_result("x", call_id="a"),
        tool_result("new", call_id="b"),
        tool_result("y", call_id="d"),
    )
    assert reconcile_projections(history, state) == ProjectionState(
        projections=(("tool:a", projection), ("tool:d", projection)),
        sources=(("tool:a", ("x",)),),
        frozen=frozenset({"tool:a", "tool:d"}),
    )


# --- pruneExpiredCacheTtlToolResults ------------------------------------------------------------------------
#
# The session below has five assistants (indexes 1, 3, 5, 7, 9): the protected tail starts at the third-last
# one (index 5), so results A (2) and B (4) are candidates and C (6) and D (8) are not. Everything but A and B
# weighs 16 characters: "go" 2, four tool calls '{}' 2 each, "c" 1, "d" 1, "done" 4.

NOW, TOUCHED = 301_000, 1_000


def session(a: JSON, b: JSON) -> tuple[AgentMessage, ...]:
    return (
        user("go"),
        call("c1"),
        tool_result(a, "c1", timestamp=1),
        call("c2"),
        tool_result(b, "c2", "grep", timestamp=2),
        call("c3"),
        tool_result("c", "c3", timestamp=3),
        call("c4"),
        tool_result("d", "c4", timestamp=4),
        assistant({"type": "text", "text": "done"}),
    )


def prune(
    messages: tuple[AgentMessage, ...],
    window: float,
    *,
    state: ProjectionState | None = None,
    resolved: CacheTtlSettings | None = None,
    touched: float | None = TOUCHED,
    now: float = NOW,
    drop: bool = False,
    new_rounds: bool = True,
) -> CacheTtlOutcome:
    return prune_expired_cache_ttl_tool_results(
        messages,
        resolved or settings(),
        state or ProjectionState(),
        context_window_tokens=window,
        last_cache_touch_at=touched,
        now=now,
        drop_thinking_blocks_for_estimate=drop,
        prune_new_rounds=new_rounds,
    )


TRIMMED_A = (
    "a" * 1500
    + "\n...\n"
    + "a" * 1500
    + "\n\n[Tool result trimmed: kept first 1500 chars and last 1500 chars of 5000 chars.]"
)


def test_once_the_ttl_expired_an_oversized_candidate_is_soft_trimmed_and_its_projection_recorded():
    messages = session("a" * 5000, "b" * 100)
    outcome = prune(messages, 4000)
    # 5116 / 16000 >= 0.3; after the trim 3086 + 100 + 16 = 3202 characters.
    assert (outcome.soft_trimmed, outcome.hard_cleared, outcome.replayed, outcome.pruned) == (
        (2,),
        (),
        (),
        True,
    )
    assert outcome.ratio == 3202 / 16000
    assert [i for i, (m, o) in enumerate(zip(messages, outcome.messages, strict=True)) if m is not o] == [2]
    assert content_of(outcome.messages[2]) == [{"type": "text", "text": TRIMMED_A}]
    assert outcome.state.lookup() == {"tool:c1:1": Projection("soft", (TextContent(TRIMMED_A),))}
    assert outcome.state.frozen == frozenset({"tool:c1:1"})
    assert [k for k, _ in outcome.state.sources] == ["tool:c1:1", "tool:c2:2", "tool:c3:3", "tool:c4:4"]


def test_new_rounds_are_pruned_only_when_the_ttl_has_fully_elapsed_since_a_recorded_touch():
    # spec §5 step 2: no touch (null or 0) or ttl 0 never prunes; elapsed == ttl prunes.
    messages = session("a" * 5000, "b" * 100)
    zero_ttl = settings(ttl="0")
    cases = [
        prune(messages, 4000, now=TOUCHED + 299_999),
        prune(messages, 4000, now=TOUCHED + 300_000),
        prune(messages, 4000, touched=None),
        prune(messages, 4000, touched=0, now=300_000),
        prune(messages, 4000, resolved=zero_ttl),
        prune(messages, 4000, resolved=zero_ttl, now=TOUCHED - 1),
        prune(messages, 4000, new_rounds=False),
        prune(messages, 4000, resolved=settings(ttl="1ms"), now=TOUCHED + 1),
    ]
    assert [(o.soft_trimmed, o.hard_cleared, o.pruned, o.ratio) for o in cases] == [
        ((), (), False, None),
        ((2,), (), True, 3202 / 16000),
        ((), (), False, None),
        ((), (), False, None),
        ((), (), False, None),
        ((), (), False, None),
        ((), (), False, None),
        ((2,), (), True, 3202 / 16000),
    ]
    assert cases[0].messages == messages and cases[0].state.projections == ()


def test_new_rounds_are_pruned_unless_the_caller_says_server_side_clearing_is_on():
    # pruneNewRounds defaults to true; attempt.py passes false with Anthropic server-side tool clearing.
    outcome = prune_expired_cache_ttl_tool_results(
        session("a" * 5000, "b" * 100),
        settings(),
        ProjectionState(),
        context_window_tokens=4000,
        last_cache_touch_at=TOUCHED,
        now=NOW,
        drop_thinking_blocks_for_estimate=False,
    )
    assert (outcome.soft_trimmed, outcome.pruned) == ((2,), True)


def test_pruning_starts_at_a_ratio_of_exactly_0_3_and_reports_the_ratio_below_it():
    # 7984 + 4000 + 16 = 12000 characters; a 10,000-token window is 40,000 characters: exactly 0.3.
    messages = session("a" * 7984, "b" * 4000)
    at = prune(messages, 10_000)
    assert (at.soft_trimmed, at.hard_cleared, at.pruned) == ((2,), (), True)
    below = prune(messages, 10_000.5)
    assert (below.messages, below.soft_trimmed, below.pruned, below.ratio) == (
        messages,
        (),
        False,
        12_000 / 40_002,
    )
    assert below.state.projections == ()


def test_results_before_the_first_user_message_and_from_the_third_last_assistant_on_are_kept():
    # spec §12 pitfalls 1-2: the protected tail starts AT the third-last assistant (inclusive).
    big = "x" * 5000
    messages = (
        call("c0"),
        tool_result(big, "c0", timestamp=0),
        user("go"),
        call("c1"),
        tool_result(big, "c1", timestamp=1),
        call("c2"),
        tool_result(big, "c2", timestamp=2),
        call("c3"),
        tool_result(big, "c3", timestamp=3),
        call("c4"),
        tool_result(big, "c4", timestamp=4),
        assistant({"type": "text", "text": "done"}),
    )
    outcome = prune(messages, 10_000)
    assert (outcome.soft_trimmed, outcome.pruned) == ((4, 6), True)


def test_with_fewer_than_three_assistants_or_no_user_message_nothing_is_pruned_or_measured():
    first = (user("go"), tool_result("a" * 5000, "c0", timestamp=0), call("c1"), tool_result("b", "c1"))
    three = (*first, assistant({"type": "text", "text": "x"}), assistant({"type": "text", "text": "y"}))
    assert (prune(three, 4000).soft_trimmed, prune(three, 4000).pruned) == ((1,), True)
    two = (*first, assistant({"type": "text", "text": "x"}))
    assert (prune(two, 4000).pruned, prune(two, 4000).ratio) == (False, None)
    no_user = three[1:]
    assert (prune(no_user, 4000).pruned, prune(no_user, 4000).ratio) == (False, None)


def test_a_third_last_assistant_first_in_the_context_protects_everything_but_the_ratio_is_measured():
    messages: tuple[AgentMessage, ...] = (
        call("c1"),
        user("go"),
        tool_result("a" * 5000, "c1"),
        call("c2"),
        tool_result("b", "c2"),
        assistant({"type": "text", "text": "done"}),
    )
    # The assistants are at 0, 3 and 5: the protected tail starts at index 0. 2 + 2 + 5000 + 2 + 1 + 4.
    outcome = prune(messages, 4000)
    assert (outcome.soft_trimmed, outcome.pruned, outcome.ratio) == ((), False, 5011 / 16_000)


def test_only_prunable_tools_are_candidates_and_a_missing_tool_name_is_the_empty_name():
    messages = session("a" * 5000, "b" * 5000)
    assert prune(messages, 4000, resolved=settings(tools={"deny": ["read"]})).soft_trimmed == (4,)
    assert prune(messages, 4000, resolved=settings(tools={"allow": ["read"]})).soft_trimmed == (2,)
    nameless = session("a" * 5000, "b" * 100)
    unnamed = (*nameless[:2], tool_result("a" * 5000, "c1", None, timestamp=1), *nameless[3:])
    assert prune(unnamed, 4000, resolved=settings(tools={"deny": ["x*"]})).soft_trimmed == (2,)
    assert prune(unnamed, 4000, resolved=settings(tools={"allow": ["x*"]})).soft_trimmed == ()


def test_thinking_is_left_out_of_the_estimate_when_the_transcript_policy_drops_it():
    thinking: JSON = {"type": "thinking", "thinking": "t" * 4000}
    base = session("a" * 5000, "b" * 100)
    tool_call: JSON = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}
    messages = (base[0], assistant(thinking, tool_call), *base[2:])
    # 9116 / 24000 counts the thinking of the first assistant; without it 5116 / 24000 is under 0.3.
    kept = prune(messages, 6000)
    dropped = prune(messages, 6000, drop=True)
    assert (kept.soft_trimmed, kept.ratio) == ((2,), (9116 - 5000 + 3086) / 24_000)
    assert (dropped.soft_trimmed, dropped.pruned, dropped.ratio) == ((), False, 5116 / 24_000)


def test_hard_clear_needs_a_ratio_of_0_5_and_50000_candidate_characters_and_stops_below_0_5():
    # A weighs 48,000 (4,000 rare CJK characters at 12, not soft-trimmed: 4,000 UTF-16 units), B 2,000.
    messages = session("\u3400" * 4000, "b" * 2000)
    outcome = prune(messages, 25_000)
    assert (outcome.soft_trimmed, outcome.hard_cleared, outcome.pruned) == ((), (2,), True)
    assert outcome.ratio == (50_016 - 48_000 + 33) / 100_000
    assert content_of(outcome.messages[2]) == [{"type": "text", "text": CLEARED}]
    assert outcome.messages[4] is messages[4]
    assert outcome.state.lookup() == {"tool:c1:1": Projection("hard", (TextContent(CLEARED),))}
    # 50,016 / 100,032 is exactly 0.5: still cleared.
    assert prune(messages, 25_008).hard_cleared == (2,)
    assert prune(messages, 25_008.5).hard_cleared == ()


def test_hard_clear_is_skipped_below_50000_candidate_characters_or_when_disabled():
    short = session("\u3400" * 4000, "b" * 1999)
    outcome = prune(short, 25_000)
    assert (outcome.messages, outcome.hard_cleared, outcome.pruned, outcome.ratio) == (
        short,
        (),
        False,
        50_015 / 100_000,
    )
    disabled = settings(hardClear={"enabled": False})
    assert prune(session("\u3400" * 4000, "b" * 2000), 25_000, resolved=disabled).hard_cleared == ()


def test_hard_clear_goes_oldest_first_with_the_configured_placeholder_while_the_ratio_stays_high():
    messages = session("a" * 2000, "\u3400" * 4000)
    outcome = prune(messages, 20_000, resolved=settings(hardClear={"placeholder": "[x]"}))
    assert (outcome.soft_trimmed, outcome.hard_cleared) == ((), (2, 4))
    assert outcome.ratio == (50_016 - 2000 + 3 - 48_000 + 3) / 80_000
    sent = texts_of(outcome.messages)
    assert (sent[2], sent[4]) == ([{"type": "text", "text": "[x]"}], [{"type": "text", "text": "[x]"}])


def test_a_soft_trimmed_result_counts_its_trimmed_size_and_can_then_be_cleared():
    outcome = prune(session("a" * 5000, "\u3400" * 4000), 20_000)
    assert (outcome.soft_trimmed, outcome.hard_cleared) == ((2,), (2, 4))
    assert outcome.ratio == (5000 + 48_000 + 16 - 5000 + 3086 - 3086 + 33 - 48_000 + 33) / 80_000
    assert outcome.state.lookup()["tool:c1:1"] == Projection("hard", (TextContent(CLEARED),))


def test_the_50000_minimum_sums_the_candidates_sizes_after_the_soft_trim():
    # Before the trim 5,000 + 46,800 >= 50,000; after it 3,086 + 46,800 is not.
    outcome = prune(session("a" * 5000, "\u3400" * 3900), 20_000)
    assert (outcome.soft_trimmed, outcome.hard_cleared, outcome.ratio) == (
        (2,),
        (),
        (3086 + 46_800 + 16) / 80_000,
    )


def test_a_projection_is_sent_again_on_every_call_even_before_the_ttl_expires():
    messages = session("a" * 5000, "b" * 100)
    first = prune(messages, 4000)
    again = prune(messages, 4000, state=first.state, touched=NOW, now=NOW + 1)
    assert (again.messages, again.replayed, again.soft_trimmed, again.pruned, again.ratio) == (
        first.messages,
        (2,),
        (),
        False,
        None,
    )
    assert again.state == first.state


def test_a_soft_projection_stays_a_candidate_for_hard_clear_but_is_not_trimmed_again():
    messages = session("a" * 5000, "\u3400" * 4000)
    small = ProjectionState(projections=(("tool:c1:1", Projection("soft", (TextContent("s" * 40),))),))
    # Replayed A weighs 40: 40 + 48,000 + 16 = 48,056 of 80,000; candidates 48,040 < 50,000.
    kept = prune(messages, 20_000, state=small)
    assert (kept.replayed, kept.soft_trimmed, kept.hard_cleared, kept.pruned) == ((2,), (), (), False)
    assert (kept.ratio, kept.state.projections) == (48_056 / 80_000, small.projections)
    assert content_of(kept.messages[2]) == [{"type": "text", "text": "s" * 40}]
    # A projection of 2,000 characters brings the candidates to 50,000: A is cleared first, then B.
    large = ProjectionState(projections=(("tool:c1:1", Projection("soft", (TextContent("s" * 2000),))),))
    cleared = prune(messages, 20_000, state=large)
    assert (cleared.soft_trimmed, cleared.hard_cleared) == ((), (2, 4))
    assert cleared.ratio == (2000 + 48_000 + 16 - 2000 + 33 - 48_000 + 33) / 80_000


def test_a_hard_cleared_result_is_no_longer_a_candidate_nor_counted_toward_the_minimum():
    b_projection = Projection("soft", (TextContent("\u3400" * 4000 + "b" * 1967),))
    state = ProjectionState(
        projections=(("tool:c1:1", Projection("hard", (TextContent(CLEARED),))), ("tool:c2:2", b_projection))
    )
    outcome = prune(session("\u3400" * 4000, "b"), 10_000, state=state)
    # Replayed A weighs 33 and replayed B 49,967: B alone is under 50,000, so nothing is cleared.
    assert (outcome.replayed, outcome.soft_trimmed, outcome.hard_cleared, outcome.pruned) == (
        (2, 4),
        (),
        (),
        False,
    )
    assert outcome.ratio == (33 + 49_967 + 16) / 40_000
    # A result after a cleared one is still a candidate.
    only_a = ProjectionState(projections=state.projections[:1])
    after = prune(session("\u3400" * 4000, "b" * 5000), 4000, state=only_a)
    assert (after.replayed, after.soft_trimmed, after.ratio) == ((2,), (4,), (33 + 3086 + 16) / 16_000)


def test_an_ordinary_projection_is_replayed_but_the_soft_trim_is_made_from_the_original_result():
    state = ProjectionState().record("tool:c1:1", tool_result("tiny"), None)
    outcome = prune(session("a" * 5000, "b" * 100), 100, state=state)
    # The replayed "tiny" weighs 4: 4 + 100 + 16 = 120 of 400 is 0.3; the trim is of the 5,000 original.
    assert (outcome.replayed, outcome.soft_trimmed, outcome.hard_cleared) == ((2,), (2,), ())
    assert outcome.ratio == (120 - 4 + 3086) / 400
    assert content_of(outcome.messages[2]) == [{"type": "text", "text": TRIMMED_A}]
    assert outcome.state.lookup()["tool:c1:1"] == Projection("soft", (TextContent(TRIMMED_A),))


def test_an_image_result_is_soft_trimmed_to_its_marker_and_a_keyless_one_is_not_recorded():
    base = session("a", "b" * 100)
    messages = (*base[:2], tool_result([IMAGE], ""), *base[3:])
    outcome = prune(messages, 5000)
    # 8000 + 100 + 16 = 8116 of 20,000 >= 0.3; the image becomes the 38-character marker.
    assert (outcome.soft_trimmed, outcome.ratio) == ((2,), (38 + 100 + 16) / 20_000)
    assert content_of(outcome.messages[2]) == [{"type": "text", "text": IMAGE_MARKER}]
    assert outcome.state.projections == ()
