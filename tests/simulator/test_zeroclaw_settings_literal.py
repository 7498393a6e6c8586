"""ZeroClaw's knob checks and JSON slice: each refusal names its field, problem and allowed range."""

from __future__ import annotations

import pytest

from simulator.errors import ProfileError
from simulator.runtimes.zeroclaw import serde
from simulator.runtimes.zeroclaw.settings import ZeroClawSettings

COUNT = "an integer from 0 to 9223372036854775807"


def problem_of(**knobs: object) -> tuple[str, str, str | None]:
    with pytest.raises(ProfileError) as caught:
        ZeroClawSettings(**knobs).validate()  # type: ignore[arg-type]
    return caught.value.field, caught.value.problem, caught.value.allowed


def test_a_ratio_must_be_a_number_but_any_number_is_accepted():
    allowed = "a number; only (0, 1] takes effect"
    assert problem_of(context_compact_ratio="0.5") == (
        "context_compact_ratio",
        "must be a number, got '0.5'",
        allowed,
    )
    assert problem_of(context_compact_ratio=True) == (
        "context_compact_ratio",
        "must be a number, got True",
        allowed,
    )
    for ratio in (1.5, 2, -1.0):
        assert ZeroClawSettings(context_compact_ratio=ratio).validate().context_compact_ratio == ratio


def test_the_pruning_switch_must_be_a_boolean():
    assert problem_of(history_pruning_enabled=1) == (
        "history_pruning_enabled",
        "must be true or false",
        "true, false",
    )


def test_optional_counts_name_their_type_and_range_problems():
    allowed = f"{COUNT}, or unset"
    assert problem_of(max_context_tokens="5") == (
        "max_context_tokens",
        "must be an integer, got '5'",
        allowed,
    )
    assert problem_of(max_history_messages=True) == (
        "max_history_messages",
        "must be an integer, got True",
        allowed,
    )
    assert problem_of(context_window=-1) == ("context_window", "-1 is out of range", allowed)
    assert problem_of(max_context_tokens=2**63) == (
        "max_context_tokens",
        "9223372036854775808 is out of range",
        allowed,
    )


def test_required_counts_name_a_missing_value_and_each_field():
    assert problem_of(history_pruning_max_tokens=None) == ("history_pruning_max_tokens", "is required", COUNT)
    assert problem_of(max_tool_iterations=1.5) == (
        "max_tool_iterations",
        "must be an integer, got 1.5",
        COUNT,
    )
    assert problem_of(max_tool_result_chars=-1) == ("max_tool_result_chars", "-1 is out of range", COUNT)


def test_counts_from_zero_to_i64_max_are_accepted():
    settings = ZeroClawSettings(max_context_tokens=0, history_pruning_max_tokens=2**63 - 1, context_window=0)
    assert settings.validate() is settings


def test_model_names_must_be_strings():
    assert problem_of(provider_model=5) == ("provider_model", "must be a string, got 5", "a model name")
    assert problem_of(model=["m"]) == ("model", "must be a string, got ['m']", "a model name")


def test_an_unknown_version_lists_the_known_ones():
    assert problem_of(version="latest") == ("version", "unknown version 'latest'", "documented, upstream")


def test_the_history_cap_defaults_by_version_and_keeps_an_explicit_zero():
    assert ZeroClawSettings(max_history_messages=0, version="upstream").effective_max_history_messages() == 0
    assert ZeroClawSettings().effective_max_history_messages() == 50
    upstream = [
        ZeroClawSettings(max_tool_iterations=n, version="upstream").effective_max_history_messages()
        for n in (24, 25, 30)
    ]
    assert upstream == [50, 52, 62]


def test_nan_and_infinity_are_not_json_to_serde():
    for text in ("NaN", "[Infinity]", "-Infinity"):
        with pytest.raises(serde.InvalidJson):
            serde.parse(text)
    with pytest.raises(serde.InvalidJson) as caught:
        serde.parse("NaN")
    assert str(caught.value) == "NaN is not valid JSON"


def test_a_parse_error_keeps_the_decoders_message():
    with pytest.raises(serde.InvalidJson) as caught:
        serde.parse("{")
    assert str(caught.value) == "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"


def test_parse_or_none_tells_json_null_from_a_failure():
    assert serde.parse_or_none("null") == (True, None)
    assert serde.parse_or_none("{") == (False, None)
    assert serde.parse_or_none("NaN") == (False, None)


def test_serialised_json_keeps_non_ascii_text_raw():
    assert serde.to_string({"b": "é", "a": [1]}) == '{"a":[1],"b":"é"}'


def test_the_documented_cap_is_50_turns_whatever_the_tool_iterations():
    assert ZeroClawSettings(max_tool_iterations=30).effective_max_history_messages() == 50
