"""Per-replay tables of the 2026.7.1 fast transforms give what their reference searches give.

* ``ThinkingStrips.count`` reads every ``end``'s answer from a table made once, in C
  (``count_reference`` searches for one ``end``);
* the soft trim reads whether a block is an image from its class when its JSON type is its class's own
  (``_is_image_json`` writes the block's JSON);
* ``IncrementalPruner.extend`` picks each kind's indices in C and asks the tool predicate once per name
  (compared with the pruner fed one message at a time through ``append``, and with a list of candidates
  made the plain way);
* ``IndexSlice`` iterates a window deep in a long list by slicing it (the same items as ``islice``).

Each is checked on generated sessions, and a deliberately broken variant is caught.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate, islice
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.importers import parse_transcript
from simulator.replay import openclaw_fast as openclaw_fast_module
from simulator.replay import openclaw_strips_2026_7 as strips_module
from simulator.replay.model import IndexSlice
from simulator.replay.openclaw_fast import IncrementalPruner
from simulator.replay.openclaw_natives_fast import natives_with_facts
from simulator.replay.openclaw_session import native_messages
from simulator.replay.openclaw_strips_2026_7 import ThinkingStrips
from simulator.replay.openclaw_transforms import media_and_thinking_of
from simulator.runtimes.openclaw import pruner as pruner_module
from simulator.runtimes.openclaw.messages import (
    AgentMessage,
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolResultMessage,
    UserMessage,
    message_from_json,
)
from simulator.runtimes.openclaw.settings import EffectivePruningSettings, compute_effective_settings
from simulator.runtimes.openclaw.tools import make_tool_prunable_predicate
from simulator.synthetic import synthetic_openclaw_session

CLAUDE_37 = "claude-3-7-sonnet-20250219"


def _natives(turns: int, **shape: Any) -> list[AgentMessage]:
    transcript = parse_transcript(synthetic_openclaw_session(turns, **shape), format="openclaw")
    return list(native_messages(transcript))


def _assistant(content: Any) -> AgentMessage:
    return message_from_json({"role": "assistant", "content": content, "stopReason": "stop"})


THOUGHT = {"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig"}
TEXT = {"type": "text", "text": "r"}
MESSAGES = st.sampled_from(
    [
        _assistant([THOUGHT, {"type": "text", "text": "ok"}]),
        _assistant([{"type": "text", "text": "plain"}]),
        _assistant("a string answer"),  # not an array: the count is left to the reference
        _assistant(None),
        message_from_json({"role": "user", "content": "next"}),
        message_from_json(
            {
                "role": "toolResult",
                "toolCallId": "c",
                "toolName": "read",
                "content": [{"type": "text", "text": "r"}],
            }
        ),
    ]
)


def _all_counts(strips: ThinkingStrips, size: int) -> list[int | None]:
    return [strips.count(end) for end in range(size + 1)]


def _counted(natives: list[AgentMessage], thinking: tuple[int, ...]) -> list[int | None]:
    return _all_counts(ThinkingStrips(natives, thinking), len(natives))


def _reference_counts(natives: list[AgentMessage], thinking: tuple[int, ...]) -> list[int | None]:
    reference = ThinkingStrips(natives, thinking)
    return [reference.count_reference(end) for end in range(len(natives) + 1)]


@settings(max_examples=200, deadline=None)
@given(st.lists(MESSAGES, max_size=30), st.data())
def test_the_count_table_is_the_search_at_every_end(natives: list[AgentMessage], data: st.DataObject) -> None:
    _, thinking = media_and_thinking_of(natives)
    strips = ThinkingStrips(natives, thinking)
    # Asked first at any end (the table is made at the first call past the first assistant with thinking).
    first = data.draw(st.integers(0, len(natives)))
    assert strips.count(first) == ThinkingStrips(natives, thinking).count_reference(first)
    assert _all_counts(strips, len(natives)) == _reference_counts(natives, thinking)


@pytest.mark.parametrize("notice", [False, True])
def test_strip_sizes_read_while_preparing_are_the_stored_blocks_sizes(notice: bool) -> None:
    """``ThinkingStrips.delta`` from the sizes preparing read (``prepare_openclaw``'s ``strips``) is the
    sum of each strip sized from its stored blocks (``change_reference``), ASCII and CJK thinking alike."""
    text = "" if notice else "done"
    thoughts = ["plan", "日本語の計画", "x" * 40]
    raws = []
    for k in range(9):
        content: list[Any] = [{"type": "thinking", "thinking": thoughts[k % 3], "thinkingSignature": "s" * k}]
        if text:
            content.append({"type": "text", "text": text})
        raws += [{"role": "user", "content": f"q{k}"}, {"role": "assistant", "content": content}]
    read = natives_with_facts(raws)
    assert all(facts is not None for facts in read.strips)  # each read while preparing
    with_facts = ThinkingStrips(read.natives, read.thinking, read.strips)
    reference = ThinkingStrips(read.natives, read.thinking)
    changes = [reference.change_reference(k) for k in range(len(read.thinking))]
    assert [with_facts.delta(k) for k in range(len(changes) + 1)] == list(accumulate(changes, initial=0))
    assert [reference.delta(k) for k in range(len(changes) + 1)] == list(accumulate(changes, initial=0))
    # Some read by the reference functions (None): those sized from their blocks, one by one.
    mixed = [None if k % 4 == 1 else facts for k, facts in enumerate(read.strips)]
    assert [
        ThinkingStrips(read.natives, read.thinking, mixed).delta(k) for k in range(len(changes) + 1)
    ] == list(accumulate(changes, initial=0))
    # A size read wrong is not the reference's.
    wrong = [(taken + 1, notice, plain) for taken, notice, plain in read.strips]  # type: ignore[misc]
    broken = ThinkingStrips(read.natives, read.thinking, wrong)
    assert broken.delta(len(changes)) != with_facts.delta(len(changes))


@pytest.mark.parametrize("shape", [{"thinking": True, "model": CLAUDE_37}, {"screenshot_every": 3}])
def test_the_count_table_on_generated_sessions(shape: dict[str, Any]) -> None:
    natives = _natives(60, **shape)
    _, thinking = media_and_thinking_of(natives)
    assert _counted(natives, thinking) == _reference_counts(natives, thinking)


def test_a_table_off_by_one_assistant_is_noticed(monkeypatch: pytest.MonkeyPatch) -> None:
    natives = _natives(30, thinking=True, model=CLAUDE_37)
    _, thinking = media_and_thinking_of(natives)
    real = strips_module._count_table

    def shifted(*args: Any) -> list[int | None]:  # every answer one assistant late
        table = real(*args)
        return [table[0], *table[:-1]]

    monkeypatch.setattr(strips_module, "_count_table", shifted)
    assert _counted(natives, thinking) != _reference_counts(natives, thinking)


def test_a_table_that_misses_a_plain_string_answer_is_noticed(monkeypatch: pytest.MonkeyPatch) -> None:
    natives = [*_natives(10, thinking=True, model=CLAUDE_37), _assistant("plain"), _assistant([THOUGHT])]
    _, thinking = media_and_thinking_of(natives)
    assert None in _reference_counts(natives, thinking)
    monkeypatch.setattr(strips_module, "is_not", lambda a, b: False)  # no content is ever irregular
    assert _counted(natives, thinking) != _reference_counts(natives, thinking)


BLOCKS = st.sampled_from(
    [
        TextContent("t"),
        TextContent("t", extra=(("type", "image"),)),
        ImageContent("AAAA", "image/png"),
        ImageContent("AAAA", "image/png", extra=(("type", "text"), ("text", "x"))),
        ImageContent(None, None),
    ]
)


@given(BLOCKS)
def test_an_image_is_read_from_its_class_as_from_its_json(block: Any) -> None:
    assert pruner_module._is_image(block) == pruner_module._is_image_json(block)


@given(st.lists(BLOCKS, max_size=4), st.booleans())
def test_the_parts_are_read_from_the_classes_as_from_the_json(blocks: list[Any], with_images: bool) -> None:
    expected: list[str] = []  # the reference's reading: every block but plain text through its JSON
    for block in blocks:
        if isinstance(block, TextContent):
            expected.append(block.text)
            continue
        obj = block.to_json()
        if obj.get("type") == "text":
            expected.append(obj["text"])
        elif obj.get("type") == "image" and with_images:
            expected.append(pruner_module.IMAGE_REMOVED_MARKER)
    assert pruner_module._collect_parts(tuple(blocks), with_images) == expected


def test_an_image_read_from_a_class_that_ignores_its_extra_fields_is_noticed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    block = ImageContent("AAAA", "image/png", extra=(("type", "text"), ("text", "x")))
    assert not pruner_module._is_image(block)
    monkeypatch.setattr(pruner_module, "_is_image_json", lambda block: isinstance(block, ImageContent))
    assert pruner_module._is_image(block)  # the general reading answers a block with extra fields


def _pruners(natives: list[AgentMessage], effective: EffectivePruningSettings) -> tuple[Any, Any]:
    whole = IncrementalPruner(effective, context_window=None, context_window_tokens_override=60_000)
    one_by_one = IncrementalPruner(effective, context_window=None, context_window_tokens_override=60_000)
    whole.extend(natives[:7])
    whole.extend(natives[7:40])
    whole.extend(natives[40:])
    for message in natives:
        one_by_one.append(message)
    return whole, one_by_one


def _plain_candidates(natives: list[AgentMessage], effective: EffectivePruningSettings) -> list[int]:
    prunable = make_tool_prunable_predicate(effective.tools)
    users = [i for i, m in enumerate(natives) if isinstance(m, UserMessage)]
    if not users:
        return []
    return [
        i
        for i, m in enumerate(natives)
        if isinstance(m, ToolResultMessage) and i > users[0] and prunable(m.tool_name)
    ]


@pytest.mark.parametrize("shape", [{"screenshot_every": 4, "thinking": True, "model": CLAUDE_37}, {}])
def test_the_pruner_fed_in_chunks_is_the_pruner_fed_one_by_one(shape: dict[str, Any]) -> None:
    natives = _natives(40, **shape)
    effective = _effective()
    whole, one_by_one = _pruners(natives, effective)
    assert whole.candidates == one_by_one.candidates == _plain_candidates(natives, effective)
    assert whole._assistants == [i for i, m in enumerate(natives) if isinstance(m, AssistantMessage)]
    for end in range(len(natives) + 1):
        assert whole.prune(end) == one_by_one.prune(end)


def test_a_pruner_that_picks_every_tool_result_is_noticed(monkeypatch: pytest.MonkeyPatch) -> None:
    natives = _natives(20)
    effective = _effective(deny=["read*", "exec*", "browser*", "*"])
    assert _plain_candidates(natives, effective) == []
    monkeypatch.setattr(IncrementalPruner, "_prunable_name", lambda self, name: True)
    whole, _ = _pruners(natives, effective)
    assert whole.candidates != _plain_candidates(natives, effective)


def _effective(deny: list[str] | None = None) -> EffectivePruningSettings:
    raw: dict[str, Any] = {"mode": "cache-ttl"}
    if deny is not None:
        raw["tools"] = {"deny": deny}
    effective = compute_effective_settings(raw)
    assert effective is not None
    return effective


@given(st.lists(st.integers(0, 50), max_size=60), st.integers(0, 70), st.integers(0, 70))
def test_a_window_iterates_as_islice(values: list[int], start: int, stop: int) -> None:
    source = sorted(values)
    for kind in (list, tuple):
        window = IndexSlice(kind(source), start, stop)
        assert list(window) == list(islice(source, start, max(start, stop)))


def test_a_window_that_starts_from_the_list_s_head_is_noticed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(IndexSlice, "__iter__", lambda self: iter(self._source[: self._stop]))
    assert list(IndexSlice([1, 2, 3, 4], 2, 4)) != [3, 4]


@given(st.sets(st.integers(0, 40)), st.sets(st.integers(0, 40)), st.booleans())
def test_the_thinking_before_each_assistant_is_the_search(
    assistants: set[int], thinking: set[int], inside: bool
) -> None:
    ordered = sorted(assistants)
    among = sorted(thinking & assistants if inside else thinking)  # the running count, or the searches
    assert strips_module._thinking_before(among, ordered) == [bisect_left(among, a) for a in ordered]


def test_a_running_count_off_by_one_is_noticed(monkeypatch: pytest.MonkeyPatch) -> None:
    natives = _natives(20, thinking=True, model=CLAUDE_37)
    _, thinking = media_and_thinking_of(natives)

    def counting_itself(thinking: Any, assistants: list[int]) -> list[int]:  # each assistant counted too
        return list(accumulate(map(set(thinking).__contains__, assistants)))

    monkeypatch.setattr(strips_module, "_thinking_before", counting_itself)
    assert _counted(natives, thinking) != _reference_counts(natives, thinking)


class _Answer(AssistantMessage):
    """An assistant of a subclass: isinstance, not its class, makes it an assistant."""


def _plain_kinds(messages: list[AgentMessage], start: int) -> dict[type, list[int]]:
    kinds = (AssistantMessage, UserMessage, ToolResultMessage)
    return {kind: [start + k for k, m in enumerate(messages) if isinstance(m, kind)] for kind in kinds}


@pytest.mark.parametrize("subclassed", [False, True])
def test_each_kind_is_picked_as_isinstance_picks_it(subclassed: bool) -> None:
    messages = _natives(15, screenshot_every=3)
    if subclassed:
        messages[3] = _Answer(content=())
    kinds = openclaw_fast_module._Kinds(messages, 40)
    assert {kind: kinds.of(kind) for kind in _plain_kinds(messages, 40)} == _plain_kinds(messages, 40)


def test_kinds_read_from_the_classes_despite_a_subclass_are_noticed(monkeypatch: pytest.MonkeyPatch) -> None:
    messages = [*_natives(5), _Answer(content=())]
    # Broken: each message's class taken for its kind, so a subclass's message is taken for no kind.
    monkeypatch.setattr(openclaw_fast_module, "message_kinds", lambda found: list(map(type, found)))
    kinds = openclaw_fast_module._Kinds(messages, 0)
    assert kinds.of(AssistantMessage) != _plain_kinds(messages, 0)[AssistantMessage]
