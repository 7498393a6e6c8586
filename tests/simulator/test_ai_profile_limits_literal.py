"""ai-profile's TokenLimits wire form: u32 bounds, per-field sources and every error, word for word."""

from __future__ import annotations

import pytest

from simulator.jsonvalue import JSON
from simulator.runtimes.ai_profile.limits import (
    LimitSource,
    TokenLimits,
    parse_model_limits,
    serialize_limits,
)

USER, ENDPOINT, PRESET = LimitSource.USER, LimitSource.ENDPOINT, LimitSource.PRESET


def error_of(value: JSON) -> str:
    with pytest.raises((TypeError, ValueError)) as caught:
        TokenLimits.from_json(value)
    return str(caught.value)


def test_zero_and_u32_max_are_both_u32_limits():
    assert TokenLimits(0, 0, USER).context_window == 0
    assert TokenLimits(4_294_967_295, 4_294_967_295, USER).max_output == 4_294_967_295


def test_a_limit_outside_u32_is_refused_with_its_field_and_value():
    with pytest.raises(ValueError) as window:
        TokenLimits(-1, None, USER)
    assert str(window.value) == "context_window must be a u32 (0..=4294967295), got -1"
    with pytest.raises(ValueError) as output:
        TokenLimits(None, 4_294_967_296, USER)
    assert str(output.value) == "max_output must be a u32 (0..=4294967295), got 4294967296"


def test_limits_that_are_not_an_object_are_named():
    assert error_of([]) == "limits must be an object, got list"


def test_each_limit_value_of_the_wrong_type_is_named():
    assert (
        error_of({"contextWindow": "1", "source": "user"})
        == "contextWindow must be an integer or null, got string"
    )
    assert (
        error_of({"contextWindow": True, "source": "user"})
        == "contextWindow must be an integer or null, got boolean"
    )
    assert (
        error_of({"maxOutput": 1.5, "source": "user"}) == "maxOutput must be an integer or null, got number"
    )


def test_each_limit_value_outside_u32_is_named():
    assert (
        error_of({"contextWindow": -1, "source": "user"})
        == "contextWindow must be a u32 (0..=4294967295), got -1"
    )
    assert error_of({"maxOutput": 2**32, "source": "user"}) == (
        "maxOutput must be a u32 (0..=4294967295), got 4294967296"
    )


def test_the_overall_source_is_required_exact_and_a_string():
    assert error_of({"contextWindow": 1}) == "source is required"
    assert error_of({"source": 5}) == "source must be a string, got number"
    assert error_of({"source": "User"}) == "source: unknown limit source 'User'"


def test_a_per_field_source_is_checked_under_its_own_name():
    assert (
        error_of({"source": "user", "contextWindowSource": "x"})
        == "contextWindowSource: unknown limit source 'x'"
    )
    assert (
        error_of({"source": "user", "maxOutputSource": 3}) == "maxOutputSource must be a string, got number"
    )


def test_per_field_sources_given_on_the_wire_win_over_the_derived_ones():
    value: JSON = {
        "contextWindow": 100,
        "maxOutput": 5,
        "source": "user",
        "contextWindowSource": None,
        "maxOutputSource": "preset",
    }
    assert TokenLimits.from_json(value) == TokenLimits(100, 5, USER, None, PRESET)
    derived = TokenLimits.from_json({"contextWindow": 100, "maxOutput": None, "source": "endpoint"})
    assert derived == TokenLimits(100, None, ENDPOINT, ENDPOINT, None)


def test_serialised_limits_are_compact_with_null_for_unknown():
    limits = TokenLimits(128_000, None, ENDPOINT, ENDPOINT, None)
    assert serialize_limits(limits) == (
        '{"contextWindow":128000,"maxOutput":null,"source":"endpoint",'
        '"contextWindowSource":"endpoint","maxOutputSource":null}'
    )


def test_an_infinite_endpoint_limit_is_unusable():
    # Python's JSON reader accepts Infinity where serde_json would not; it counts as absent.
    assert parse_model_limits(
        {"context_length": float("inf"), "max_tokens": 100}
    ) == TokenLimits.from_endpoint(None, 100)
