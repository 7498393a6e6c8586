"""Untrusted documents: nesting, long numbers and lone surrogates are located errors; implausible provider
token counts are taken out and named per message or line."""

from __future__ import annotations

import json

import pytest

from simulator import jsonlimits
from simulator.errors import ProfileError, TranscriptParseError
from simulator.importers import parse_transcript
from simulator.profiles import profile_from_document, profile_from_text


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def chat(*messages: dict[str, object]) -> str:
    return json.dumps([{"role": "user", "content": "hi"}, *messages])


def test_nesting_up_to_128_levels_is_read_and_129_is_refused():
    assert jsonlimits.loads(nested(128)) == json.loads(nested(128))
    with pytest.raises(jsonlimits.DocumentRejected, match="nested deeper than 128 levels"):
        jsonlimits.loads(nested(129))


def test_nesting_that_exhausts_the_stack_is_refused_with_the_same_reason():
    with pytest.raises(jsonlimits.DocumentRejected, match="nested deeper than 128 levels"):
        jsonlimits.loads(nested(50_000))


def test_a_surrogate_pair_is_text_but_a_lone_surrogate_is_refused():
    assert jsonlimits.loads('"\\ud83d\\ude00"') == "\U0001f600"
    for lone in ('"\\ud800"', '"\\udfff x"', '{"\\ud800": 1}'):
        with pytest.raises(jsonlimits.DocumentRejected, match="lone surrogate"):
            jsonlimits.loads(lone)


def test_a_number_over_the_digit_limit_is_refused_with_the_limit_named():
    with pytest.raises(jsonlimits.DocumentRejected, match="more than 4,300 digits"):
        jsonlimits.loads("1" * 4301)


def test_a_deep_transcript_is_a_parse_error_naming_the_limit_not_a_recursion_error():
    with pytest.raises(TranscriptParseError, match="nested deeper than 128 levels"):
        parse_transcript('[{"role":"user","content":' + nested(1000) + "}]")


def test_a_deep_jsonl_line_is_located():
    lines = [
        json.dumps({"type": "session", "id": "s", "version": 3}),
        '{"type":"message","x":' + nested(200) + "}",
    ]
    with pytest.raises(TranscriptParseError) as refused:
        parse_transcript("\n".join(lines))
    assert refused.value.line == 2 and "nested deeper" in refused.value.reason


def test_a_lone_surrogate_in_a_transcript_is_refused_as_serde_json_would():
    with pytest.raises(TranscriptParseError, match="lone surrogate"):
        parse_transcript(chat({"role": "assistant", "content": "a\ud800b"}))


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (-5, "= -5 is negative"),
        (2**70, f"= {2**70} is over 1,000,000,000 tokens"),
        (float("inf"), "= inf is not a finite number"),
        (12.5, "= 12.5 is not a whole number"),
    ],
)
def test_an_implausible_provider_count_is_dropped_and_named_by_message(value, problem):
    text = chat(
        {"role": "assistant", "content": "ok", "usage": {"prompt_tokens": value, "completion_tokens": 3}}
    )
    transcript = parse_transcript(text)
    assert transcript.format == "openai-chat"
    assert transcript.messages[1].usage is not None
    assert transcript.messages[1].usage.input_tokens is None
    assert transcript.messages[1].usage.output_tokens == 3
    assert any(w.startswith("message 1: usage.prompt_tokens ") and problem in w for w in transcript.warnings)


def test_plausible_counts_and_costs_are_left_alone():
    usage = {"prompt_tokens": 1200, "completion_tokens": 30, "cost": 0.0042}
    transcript = parse_transcript(chat({"role": "assistant", "content": "ok", "usage": usage}))
    assert transcript.messages[1].usage is not None and transcript.messages[1].usage.input_tokens == 1200
    assert not any("usage" in w for w in transcript.warnings)


def test_counts_in_jsonl_are_named_by_line():
    records = [
        {"type": "session", "id": "s", "version": 3, "timestamp": "2026-01-01T00:00:00Z"},
        {
            "type": "message",
            "id": "m1",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        },
        {
            "type": "message",
            "id": "m2",
            "parentId": "m1",
            "timestamp": "2026-01-01T00:00:02Z",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "ok"}],
                "usage": {"input": -1, "output": 2},
            },
        },
    ]
    transcript = parse_transcript("\n".join(json.dumps(r) for r in records))
    assert transcript.format == "openclaw"
    assert any(w.startswith("line 3: message.usage.input = -1 is negative") for w in transcript.warnings)


@pytest.mark.parametrize(
    "text",
    [
        "a = " + nested(100_000),
        "a = " + "{b=" * 5000 + "1" + "}" * 5000,
        '{"agent": ' + nested(2000) + "}",
        "[agent]\nmax_history_messages = " + "9" * 4301,
        '[agent]\nname = "\\u0000"',
        '[agent]\nname = "\\ud800"',
    ],
    ids=["toml-arrays", "toml-inline-tables", "json-deep", "long-int", "nul", "surrogate"],
)
def test_hostile_profile_text_is_a_profile_error_on_the_document(text):
    with pytest.raises(ProfileError) as refused:
        profile_from_text(text, name="p")
    assert refused.value.field == "(document)"


def test_a_profile_document_given_as_an_object_has_the_same_limits():
    deep: object = 1
    for _ in range(200):
        deep = [deep]
    with pytest.raises(ProfileError, match="nested deeper than 128 levels"):
        profile_from_document({"agent": {"x": deep}}, name="p")
