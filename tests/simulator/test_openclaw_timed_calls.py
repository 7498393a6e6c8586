"""``timed_calls`` reads each call's time, attempt start, attempt end and route key as it was first
written (kept below): compared on generated sessions -- times missing, out of order or repeated, real and
tool-result user messages, failed calls, system messages -- and on synthetic sessions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.importers import parse_transcript
from simulator.replay import openclaw_session
from simulator.replay.loop import ModelCall
from simulator.replay.openclaw_session import DAY_MS, CallTimes, prepare_openclaw, timed_calls
from simulator.synthetic import synthetic_openclaw_session
from simulator.transcript import Message, Role, TextPart, ToolResult, Transcript


def _timed_calls_as_before(
    messages: Sequence[Message], calls: Sequence[ModelCall], clocked: bool
) -> tuple[CallTimes, ...]:
    """``timed_calls`` as it was first written (the call before kept as a tuple, the messages between two
    replies walked as a slice)."""
    out: list[CallTimes] = []
    latest: float | None = None
    seen = 0
    previous: tuple[ModelCall, float, bool, Any] | None = None
    for call in calls:
        index = call.message_index
        starts = call.number == 1
        for message in messages[seen:index]:
            stamp = message.timestamp_ms
            if stamp is not None and (latest is None or stamp > latest):
                latest = stamp
            if message.role is Role.USER and message.tool_result is None:
                starts = True
        seen = index + 1
        reply = messages[index]
        stamp = reply.timestamp_ms
        if not clocked:
            now: float = call.number * DAY_MS
        elif stamp is not None:
            now = stamp
        else:
            now = latest if latest is not None else 0
        if stamp is not None and (latest is None or stamp > latest):
            latest = stamp
        if previous is not None:
            p_call, p_now, p_starts, p_key = previous
            end = openclaw_session._end_of(p_call, p_now, messages) if starts else None
            out.append((p_now, p_starts, end, p_key))
        raw = reply.raw
        api = raw.get("api") if isinstance(raw, dict) else None
        previous = (call, now, starts, (reply.provider, reply.model, api if isinstance(api, str) else None))
    if previous is not None:
        p_call, p_now, p_starts, p_key = previous
        out.append((p_now, p_starts, openclaw_session._end_of(p_call, p_now, messages), p_key))
    return tuple(out)


_stamp = st.none() | st.integers(0, 5) | st.sampled_from([1.5, 3.0])
_message = st.builds(
    Message,
    role=st.sampled_from(list(Role)),
    parts=st.just((TextPart("x"),)),
    tool_result=st.none() | st.just(ToolResult("t1", "read")),
    timestamp_ms=_stamp,
    written_ms=_stamp,
    provider=st.none() | st.sampled_from(["anthropic", "openai"]),
    model=st.none() | st.just("m"),
    raw=st.none() | st.sampled_from([{"api": "anthropic-messages"}, {"api": 3}, {}, ["api"]]),
    error=st.none() | st.just("fetch failed"),
)


def _assert_as_before(transcript: Transcript, timed: Any = timed_calls) -> None:
    prepared = prepare_openclaw(transcript)
    for clocked in (True, False):
        got = timed(transcript.messages, prepared.calls, clocked)
        want = _timed_calls_as_before(transcript.messages, prepared.calls, clocked)
        assert got == want
        assert repr(got) == repr(want)  # an int time stays an int, a float a float


@settings(max_examples=400, deadline=None)
@given(st.lists(_message, max_size=12), st.sampled_from(["openclaw", "claude-code"]))
def test_generated_sessions_are_timed_as_before(messages, format):
    _assert_as_before(Transcript(format, tuple(messages)))


@pytest.mark.parametrize("turns", [1, 40])
def test_synthetic_sessions_are_timed_as_before(turns):
    _assert_as_before(parse_transcript(synthetic_openclaw_session(turns, tool_result_chars=50)))


def _every_call_opening(
    messages: Sequence[Message], calls: Sequence[ModelCall], clocked: bool
) -> tuple[CallTimes, ...]:
    """A wrong ``timed_calls``: every call opens an attempt."""
    return tuple((now, True, end, key) for now, _, end, key in timed_calls(messages, calls, clocked))


def test_a_wrong_timing_would_be_noticed():
    transcript = parse_transcript(synthetic_openclaw_session(2, tool_result_chars=50))
    _assert_as_before(transcript)
    with pytest.raises(AssertionError):
        _assert_as_before(transcript, _every_call_opening)
