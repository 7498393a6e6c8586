"""TokenLimits layering and /models parsing (spec §7)."""

from __future__ import annotations

import pytest

from simulator.errors import ProfileError
from simulator.jsonvalue import JSON
from simulator.runtimes.ai_profile import (
    AiProfileSettings,
    LimitSource,
    TokenLimits,
    limit_source_parse,
    merge_limits,
    parse_model_limits,
    serialize_limits,
)


def test_an_empty_layer_hands_over_the_fallback_whole():
    merged = TokenLimits.from_user(None, None).or_(TokenLimits.from_preset(128000, 8192))
    assert merged == TokenLimits.from_preset(128000, 8192)
    assert merged.source is LimitSource.PRESET


def test_layers_merge_field_by_field_with_per_field_sources():
    merged = merge_limits(
        [
            TokenLimits.from_user(64000, None),
            TokenLimits.from_endpoint(None, None),
            TokenLimits.from_preset(1, 8192),
        ]
    )
    assert merged == TokenLimits(64000, 8192, LimitSource.USER, LimitSource.USER, LimitSource.PRESET)


def test_all_empty_layers_merge_to_the_last_one_and_no_layers_to_none():
    layers = [TokenLimits.from_user(None, None), TokenLimits.from_endpoint(None, None)]
    assert merge_limits(layers) == TokenLimits.from_endpoint(None, None)
    assert merge_limits([]) is None


def test_input_budget_saturates_and_needs_a_window():
    assert TokenLimits.from_endpoint(128000, 8192).input_budget(4096) == 123904
    assert TokenLimits.from_preset(4096, None).input_budget(8192) == 0
    assert TokenLimits.from_preset(None, 8192).input_budget(1) is None


def test_limit_source_parse_trims_rust_whitespace_and_is_case_sensitive():
    assert limit_source_parse("  user \n") is LimitSource.USER
    assert limit_source_parse("\u3000preset\u2029") is LimitSource.PRESET
    assert limit_source_parse("\x1cuser") is None
    assert limit_source_parse("User") is None
    assert limit_source_parse("guess") is None


def test_serialisation_uses_camel_case_and_snake_sources():
    text = serialize_limits(TokenLimits.from_endpoint(128000, 8192))
    for needle in ('"contextWindow":128000', '"maxOutput":8192', '"source":"endpoint"'):
        assert needle in text


def test_model_limits_prefer_top_provider_then_top_level_per_value():
    item: JSON = {"context_length": 1048576, "max_tokens": 100, "top_provider": {"context_length": 131072}}
    assert parse_model_limits(item) == TokenLimits.from_endpoint(131072, 100)


def test_model_limit_keys_are_tried_in_table_order():
    item: JSON = {"max_input_tokens": 5, "context_window": 7, "max_tokens": 3, "max_output_tokens": 4}
    assert parse_model_limits(item) == TokenLimits.from_endpoint(7, 4)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (0, None),
        (-5, None),
        (2**32, None),
        (2**32 - 1, 2**32 - 1),
        (131072.9, 131072),
        (0.5, None),
        (" 32768\n", 32768),
        ("+12", 12),
        ("12.0", None),
        ("١٢", None),
        ("1_000", None),
        (True, None),
        (None, None),
    ],
)
def test_model_limit_values_accept_positive_u32_numbers_and_integer_strings(raw, expected):
    result = parse_model_limits({"context_length": raw})
    assert (None if result is None else result.context_window) == expected


def test_an_unusable_value_falls_through_to_the_next_place():
    assert parse_model_limits({"context_length": 9, "top_provider": {"context_length": 0}}) == (
        TokenLimits.from_endpoint(9, None)
    )


def test_settings_validation_names_the_bad_field_and_range():
    AiProfileSettings(model_context_window=200000).validate()
    with pytest.raises(ProfileError) as error:
        AiProfileSettings(max_tokens=-1).validate()
    assert error.value.field == "max_tokens"
    assert error.value.allowed is not None and "4294967295" in error.value.allowed
    with pytest.raises(ProfileError) as error:
        AiProfileSettings(max_attempts=11).validate()
    assert error.value.field == "max_attempts"


def test_settings_cap_max_tokens_by_known_output_before_budgeting():
    settings = AiProfileSettings(max_tokens=32000, endpoint_max_output=8192, model_context_window=128000)
    assert settings.effective_max_tokens() == 8192
    assert settings.history_budget() == 128000 - 8192 - 8192
    assert AiProfileSettings().history_budget() is None
