"""The replay's shortcuts give what the general code gives: model calls found in one pass, records built
through their slots."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.convert import to_ai_profile, to_openclaw, to_zeroclaw_chat
from simulator.importers import parse_transcript
from simulator.replay.loop import model_calls, sorted_model_calls
from simulator.replay.model import CallRecord, Change, Fate, RetryStep, slot_builder
from simulator.synthetic import synthetic_openclaw_session
from simulator.transcript import Message, Role, TextPart, Transcript

CONVERTERS = [to_zeroclaw_chat, to_ai_profile, to_openclaw]


@pytest.mark.parametrize("convert", CONVERTERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("text", [synthetic_openclaw_session(12, tool_result_chars=80, session_id="s")])
def test_model_calls_match_the_general_search_on_a_session(convert, text):
    transcript = parse_transcript(text)
    origins = convert(transcript.messages).origins
    assert model_calls(transcript, origins) == sorted_model_calls(transcript, origins)


_message = st.builds(
    Message,
    role=st.sampled_from(list(Role)),
    parts=st.just((TextPart("x"),)),
    error=st.none() | st.just("fetch failed"),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_message, max_size=12), st.data())
def test_model_calls_match_the_general_search_for_any_native_space(messages, data):
    transcript = Transcript("test", tuple(messages))
    n = len(messages)
    index = st.integers(0, max(n - 1, 0))
    converted = [c(messages).origins for c in CONVERTERS]
    # Any native space: one index per native, several, none, out of order, repeated.
    drawn = data.draw(st.lists(st.lists(index, max_size=3).map(tuple), max_size=n + 2)) if n else []
    for origins in (*converted, tuple(drawn), tuple(sorted(drawn))):
        assert model_calls(transcript, origins) == sorted_model_calls(transcript, origins)


def test_the_slot_builder_builds_what_the_constructor_builds():
    values = (
        4,
        9,
        7,
        ((0, 3), (5, 7)),
        2,
        (),
        100,
        50,
        40,
        True,
        "cap",
        (),
        (RetryStep(1, 2, 3, 4, 5, True),),
    )
    values += ("recovered", 12, ("a note",), ("mark",), 3, "fetch failed")
    built, made = slot_builder(CallRecord)(*values), CallRecord(*values)
    assert built == made and repr(built) == repr(made) and hash(built) == hash(made)
    change = (3, Fate.TRUNCATED, "rule", 10, 5, 2)
    assert slot_builder(Change)(*change) == Change(*change)
    with pytest.raises(TypeError):
        slot_builder(CallRecord)(*values[:-1])  # every field, or none
