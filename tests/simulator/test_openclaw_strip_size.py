"""What stripping an assistant's thinking changes of its estimate, read from its blocks once, is the change
between the two messages' estimates (what a replay sums over a session's stripped assistants)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

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
