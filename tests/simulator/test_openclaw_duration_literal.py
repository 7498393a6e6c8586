"""OpenClaw's ``parseDurationMs`` rounding and safe-integer limits, with literal values."""

from __future__ import annotations

import pytest

from simulator.runtimes.openclaw.duration import DurationError, js_math_round, parse_duration_ms


@pytest.mark.parametrize(
    ("value", "rounded"),
    [(2.4, 2), (2.5, 3), (2.6, 3), (-2.5, -2), (-2.6, -3), (0.5, 1), (1.0, 1)],
)
def test_math_round_sends_halves_towards_plus_infinity(value: float, rounded: int) -> None:
    assert js_math_round(value) == rounded


def test_the_largest_safe_integer_is_accepted() -> None:
    assert parse_duration_ms("9007199254740991") == 9_007_199_254_740_991


@pytest.mark.parametrize("raw", ["9007199254740993", "9" * 400, "9007199254740992ms0ms"])
def test_a_duration_past_the_safe_integers_or_infinite_is_refused_with_its_text(raw: str) -> None:
    with pytest.raises(DurationError) as refused:
        parse_duration_ms(raw)
    assert str(refused.value) == f'Invalid duration: "{raw}". Use values like 500ms, 30s, 5m, 2h, or 1h30m.'


def test_a_bare_number_uses_the_default_unit_milliseconds_unless_told() -> None:
    assert parse_duration_ms("10") == 10
    assert parse_duration_ms("10", "m") == 600_000


def test_a_composite_ending_without_a_unit_is_refused() -> None:
    with pytest.raises(DurationError) as refused:
        parse_duration_ms("1h30")
    assert str(refused.value) == 'Invalid duration: "1h30". Use values like 500ms, 30s, 5m, 2h, or 1h30m.'
