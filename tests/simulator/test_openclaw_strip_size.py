"""What stripping an assistant's thinking changes of its estimate, read from its blocks once, is the change
between the two messages' estimates (what a replay sums over a session's stripped assistants)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulator.replay.openclaw_strips_2026_7 import strip_size_typed
from simulator.runtimes.openclaw.estimate import estimate_message_chars, strip_size_change, strip_thinking
from simulator.runtimes.openclaw.messages import AgentMessage, message_from_json

TEXTS = st.sampled_from(["", "ok", "考虑 " * 40, "x" * 3_000, "\ud83d lone"])
BLOCKS = st.one_of(
    st.builds(lambda t, s: {"type": "thinking", "thinking": t, "thinkingSignature": s}, TEXTS, TEXTS),
    st.builds(lambda t: {"type": "thinking", "thinking": t, "redacted": True}, TEXTS),
    st.builds(lambda d: {"type": "redacted_thinking", "data": d, "thinkingSignature": "sig"}, TEXTS),
    st.just({"type": "thinking"}),
    st.builds(lambda t: {"type": "text", "text": t}, TEXTS),
    st.builds(
        lambda n: {"type": "toolCall", "id": "c", "name": "read", "arguments": {"n": n}}, st.integers()
    ),
    st.just({"type": "image", "data": "AAAA", "mimeType": "image/png"}),
    st.sampled_from([{"type": "mystery", "thinking": "x"}, None, 7, "a string block"]),
)


def _assistant(content: Any) -> AgentMessage:
    return message_from_json({"role": "assistant", "content": content, "stopReason": "stop"})


def _as_estimated(message: AgentMessage) -> int:
    return estimate_message_chars(strip_thinking(message)) - estimate_message_chars(message)


@given(st.lists(BLOCKS, max_size=5) | st.sampled_from(["plain answer", None]))
def test_the_change_read_from_the_blocks_is_the_estimates_change(content: Any) -> None:
    message = _assistant(content)
    assert strip_size_change(message) == _as_estimated(message)


def test_a_thinking_only_answer_is_sent_as_the_omission_notice_and_a_change_without_it_is_noticed() -> None:
    thought = {"type": "thinking", "thinking": "t" * 400}
    only, mixed = _assistant([thought]), _assistant([thought, {"type": "text", "text": "done"}])
    assert strip_size_change(only) == _as_estimated(only) > -400  # the notice put in
    assert strip_size_change(mixed) == _as_estimated(mixed) == -400
    assert strip_size_change(_assistant([{"type": "text", "text": "done"}])) == 0


EXTRA_BLOCKS = st.one_of(
    BLOCKS,
    st.builds(lambda t: {"type": "thinking", "thinking": t, "note": "x"}, TEXTS),
    st.builds(lambda t: {"type": "text", "text": t, "textSignature": "s", "type2": 1}, TEXTS),
)


def _typed_answers(message: AgentMessage) -> bool:
    """Whether every block is one of the five classes with no extra field (the typed reading's domain)."""
    content = getattr(message, "content", None)
    return isinstance(content, tuple) and all(type(b).__name__ != "RawBlock" and not b.extra for b in content)


@given(st.lists(EXTRA_BLOCKS, max_size=5) | st.sampled_from(["plain answer", None]))
def test_the_change_read_from_the_block_classes_is_the_reference_change(content: Any) -> None:
    message = _assistant(content)
    typed = strip_size_typed(message)
    assert (typed is not None) == _typed_answers(message)
    if typed is not None:
        assert typed == strip_size_change(message)


def test_a_typed_reading_that_forgets_the_signature_is_noticed(monkeypatch) -> None:
    from simulator.replay import openclaw_strips_2026_7 as strips

    message = _assistant([{"type": "thinking", "thinking": "abc", "thinkingSignature": "sig" * 10}])
    assert (
        strip_size_typed(message)
        == strip_size_change(message)
        == estimate_message_chars(strip_thinking(message)) - estimate_message_chars(message)
    )
    real = strips.estimate_string_chars
    monkeypatch.setattr(
        strips, "estimate_string_chars", lambda text: 0 if text.startswith("sig") else real(text)
    )
    assert strip_size_typed(message) != strip_size_change(message)


def test_a_session_s_strips_are_summed_from_the_typed_reading(monkeypatch) -> None:
    from simulator.replay import openclaw_strips_2026_7 as strips

    natives = [
        _assistant([{"type": "thinking", "thinking": "t" * n}, {"type": "text", "text": "ok"}])
        for n in (3, 5)
    ]
    monkeypatch.setattr(strips, "strip_size_change", lambda message: pytest.fail("the reference was asked"))
    thinking = strips.ThinkingStrips(natives, (0, 1))
    assert thinking.delta(2) == -8
