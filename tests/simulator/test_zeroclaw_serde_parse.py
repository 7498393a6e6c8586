"""``serde.parse`` with its kept decoder against ``json.loads`` with a fresh one per call, as it was."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.runtimes.zeroclaw import serde


def _loads_per_call(text: str) -> tuple[bool, object]:
    def reject(name: str) -> object:
        raise serde.InvalidJson(name)

    try:
        return True, json.loads(text, parse_constant=reject)
    except (json.JSONDecodeError, RecursionError, serde.InvalidJson):
        return False, None


_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)
_texts = st.one_of(
    _values.map(json.dumps),  # NaN and Infinity included: both refuse them
    st.tuples(_values.map(json.dumps), st.sampled_from(["", "\ufeff", " ", "x", "]", "\n"])).map(
        lambda pair: pair[1] + pair[0]
    ),
    st.text(max_size=12),
)


@settings(max_examples=600, deadline=None)
@given(_texts)
def test_parse_accepts_and_refuses_what_json_loads_did(text):
    expected_ok, expected = _loads_per_call(text)
    ok, value = serde.parse_or_none(text)
    assert ok == expected_ok
    if ok:
        assert json.dumps(value, sort_keys=True) == json.dumps(expected, sort_keys=True)


@pytest.mark.parametrize("text", ["\ufeff{}", "NaN", "[Infinity]", "[-Infinity]", "{", "[1,]", "[" * 100_000])
def test_parse_refuses_a_bom_constants_and_broken_text(text):
    with pytest.raises(serde.InvalidJson):
        serde.parse(text)
