"""serde_json's number parser and ryu's layout as ai-profile's estimate meets them, case by case.

serde_json (default features) accumulates significand digits in a u64, ignores every digit from the first one
that would overflow it (an integer-part digit still raises the exponent) and multiplies or divides the
significand by a table power of ten: the expected values below are written in that form.
"""

from __future__ import annotations

import pytest

from simulator.runtimes.ai_profile.compact_json import dumps_compact, serde_parse_float


def test_false_is_written_false():
    assert dumps_compact([False, True]) == "[false,true]"


def test_a_nan_is_refused_by_name():
    with pytest.raises(ValueError) as caught:
        dumps_compact(float("nan"))
    assert str(caught.value) == "serde_json cannot hold nan"


def test_an_integer_part_digit_past_u64_is_dropped_and_raises_the_exponent():
    assert serde_parse_float("44989761157763952453") == float(4498976115776395245) * 1e1
    assert serde_parse_float("44989761157763952453") != float("44989761157763952453")
    assert serde_parse_float("1837131312423373969182") == float(18371313124233739691) * 1e2


def test_a_twenty_digit_significand_below_u64_max_is_kept_whole():
    assert serde_parse_float("17966854058656609702") == float(17966854058656609702)


def test_fraction_digits_past_u64_are_dropped_without_changing_the_exponent():
    assert serde_parse_float("0.95384412637231616293") == float(9538441263723161629) / 1e19
    assert serde_parse_float("0.17966854058656609702") == float(17966854058656609702) / 1e20
    assert serde_parse_float("0.17966854058656609702") != 0.17966854058656609702


def test_the_fraction_stops_for_good_at_the_first_digit_that_would_overflow():
    # ...1616 is u64::MAX + 1: the 6 and the 0 after it are both ignored, though ...1610 would fit.
    assert serde_parse_float("0.18446744073709551616") == float(1844674407370955161) / 1e19
    assert serde_parse_float("0.184467440737095516160") == float(1844674407370955161) / 1e19


def test_a_significand_of_exactly_u64_max_is_kept():
    assert serde_parse_float("0.18446744073709551615") == float(18446744073709551615) / 1e20


def test_numbers_past_the_largest_double_are_out_of_range():
    for text in ("1e309", "10e308"):
        with pytest.raises(ValueError) as caught:
            serde_parse_float(text)
        assert str(caught.value) == "number out of range"


def test_exponents_past_the_table_divide_in_steps_down_to_subnormals_and_zero():
    assert serde_parse_float("1e-309") == 1e-309
    assert serde_parse_float("1e-400") == 0.0
    assert serde_parse_float("0e400") == 0.0


def test_ryu_lays_out_integers_long_fractions_and_small_numbers():
    assert dumps_compact([123.0, 1234567890123456.8, 1e-5, 1e-6, 1.5e-6]) == (
        "[123.0,1234567890123456.8,0.00001,1e-6,1.5e-6]"
    )


def test_an_integer_part_at_u64_max_is_kept_and_one_past_it_is_not():
    # Divided by 1e305 or 1e306 the two roundings differ, so the significand serde_json kept shows.
    assert serde_parse_float("18446744073709551615e-306") == float(18446744073709551615) / 1e306
    assert serde_parse_float("18446744073709551616e-306") == float(1844674407370955161) / 1e305
    assert float(18446744073709551615) / 1e306 != float(1844674407370955161) / 1e305


def test_an_integer_part_stays_overflowed_even_when_a_later_digit_would_fit():
    # ...1616 overflows; ...16160 would fit again as ...1610 but the 0 only raises the exponent.
    assert serde_parse_float("184467440737095516160e-307") == float(1844674407370955161) / 1e305
    assert float(1844674407370955161) / 1e305 != float(18446744073709551610) / 1e306
