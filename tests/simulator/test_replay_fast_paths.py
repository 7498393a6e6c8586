"""The replay's shortcuts give what the general code gives: model calls found in one pass, records built
through their slots."""

from __future__ import annotations

from dataclasses import dataclass, fields

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.convert import to_ai_profile, to_openclaw, to_zeroclaw_chat
from simulator.importers import parse_transcript
from simulator.replay.loop import model_calls, sorted_model_calls
from simulator.replay.model import CallRecord, Change, Fate, RetryStep, call_record, slot_builder
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


@dataclass(frozen=True, slots=True)
class _Wide:
    """A slotted dataclass of twenty fields, some with defaults (the shape the builder is for)."""

    number: int
    message_index: int
    available: int
    sent: tuple[tuple[int, int], ...]
    breadcrumb_at: int | None
    fated: tuple[object, ...]
    budget: int | None
    tokens_full: int
    tokens_sent: int
    trimmed: bool
    drop_rule: str = ""
    events: tuple[object, ...] = ()
    retries: tuple[RetryStep, ...] = ()
    overflow: str = "none"
    provider_input_tokens: int | None = None
    notes: tuple[str, ...] = ()
    marks: tuple[str, ...] = ()
    tokens_outside: int = 0
    error: str | None = None


_WIDE_VALUES = (
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
_WIDE_VALUES += ("recovered", 12, ("a note",), ("mark",), 3, "fetch failed")


def test_the_slot_builder_builds_what_the_constructor_builds():
    values = _WIDE_VALUES
    built, made = slot_builder(_Wide)(*values), _Wide(*values)
    assert built == made and repr(built) == repr(made) and hash(built) == hash(made)
    change = (3, Fate.TRUNCATED, "rule", 10, 5, 2)
    assert slot_builder(Change)(*change) == Change(*change)
    with pytest.raises(TypeError):
        slot_builder(_Wide)(*values[:-1])  # every field, or none
    with pytest.raises(TypeError):
        slot_builder(CallRecord)  # a struct: built in C, no builder


def test_a_record_built_positionally_is_the_record_built_by_keyword():
    """``call_record`` (the steps' positional form) gives what naming every field gives."""
    values = _WIDE_VALUES
    names = [f.name for f in fields(_Wide)]
    built, made = call_record(*values), CallRecord(**dict(zip(names, values, strict=True)))
    assert built == made and repr(built) == repr(made) and hash(built) == hash(made)
    assert msgspec.structs.replace(built, error=None) == CallRecord(*values[:-1])
