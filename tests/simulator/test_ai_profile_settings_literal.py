"""ai-profile's knobs: every refusal names its field and range; the layers merge user > endpoint > preset."""

from __future__ import annotations

import pytest

from simulator.errors import ProfileError
from simulator.runtimes.ai_profile.limits import LimitSource, TokenLimits
from simulator.runtimes.ai_profile.settings import AiProfileSettings

U32 = "an integer from 0 to 4294967295"


def problem_of(**knobs: object) -> tuple[str, str, str | None]:
    with pytest.raises(ProfileError) as caught:
        AiProfileSettings(**knobs).validate()  # type: ignore[arg-type]
    return caught.value.field, caught.value.problem, caught.value.allowed


def test_max_tokens_must_be_a_u32_integer():
    assert problem_of(max_tokens="5") == ("max_tokens", "must be an integer, got str", U32)
    assert problem_of(max_tokens=True) == ("max_tokens", "must be an integer, got bool", U32)
    assert problem_of(max_tokens=-1) == ("max_tokens", "-1 is out of range", U32)
    assert problem_of(max_tokens=2**32) == ("max_tokens", "4294967296 is out of range", U32)


def test_each_optional_limit_is_named_with_its_null_or_u32_range():
    fields = [
        "user_context_window",
        "user_max_output",
        "endpoint_context_window",
        "endpoint_max_output",
        "model_context_window",
        "model_max_output",
    ]
    for field in fields:
        assert problem_of(**{field: 1.5}) == (field, "must be an integer, got float", f"null or {U32}")
        assert problem_of(**{field: 2**32}) == (field, "4294967296 is out of range", f"null or {U32}")


def test_max_attempts_runs_from_0_to_10():
    allowed = "an integer from 0 to 10 (upstream documents 3)"
    assert problem_of(max_attempts=11) == ("max_attempts", "11 is out of range", allowed)
    assert problem_of(max_attempts=-1) == ("max_attempts", "-1 is out of range", allowed)
    assert problem_of(max_attempts=None) == ("max_attempts", "must be an integer, got NoneType", allowed)


def test_the_bounds_themselves_are_accepted():
    edge = AiProfileSettings(max_tokens=4_294_967_295, user_context_window=0, model_max_output=4_294_967_295)
    edge.validate()
    AiProfileSettings(max_tokens=0, max_attempts=0).validate()
    AiProfileSettings(max_attempts=10).validate()
    assert AiProfileSettings().max_tokens == 4_096 and AiProfileSettings().max_attempts == 3


def test_the_layers_carry_their_sources_and_merge_field_by_field():
    settings = AiProfileSettings(
        user_max_output=1_000, endpoint_context_window=100_000, model_context_window=50_000
    )
    assert settings.layers() == (
        TokenLimits.from_user(None, 1_000),
        TokenLimits.from_endpoint(100_000, None),
        TokenLimits.from_preset(50_000, None),
    )
    assert settings.limits() == TokenLimits(
        100_000, 1_000, LimitSource.USER, LimitSource.ENDPOINT, LimitSource.USER
    )


def test_the_output_cap_sent_is_max_tokens_lowered_to_the_known_max_output():
    assert AiProfileSettings(max_tokens=4_096).effective_max_tokens() == 4_096
    assert AiProfileSettings(max_tokens=4_096, model_max_output=1_000).effective_max_tokens() == 1_000
    assert AiProfileSettings(max_tokens=500, model_max_output=1_000).effective_max_tokens() == 500


def test_the_history_budget_is_the_window_less_the_output_cap_and_8192_or_none_without_a_window():
    assert AiProfileSettings(max_tokens=4_096).history_budget() is None
    assert AiProfileSettings(max_tokens=4_096, user_context_window=20_000).history_budget() == 7_712
    assert AiProfileSettings(
        max_tokens=4_096, user_context_window=20_000, model_max_output=1_000
    ).history_budget() == (10_808)
    assert AiProfileSettings(max_tokens=20_000, user_context_window=10_000).history_budget() == 0
