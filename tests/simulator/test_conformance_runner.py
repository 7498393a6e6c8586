"""The conformance runner's comparison rules."""

from __future__ import annotations

from simulator.conformance.runner import compare, run_cases


def test_booleans_never_equal_integers():
    assert compare(True, 1) is not None
    assert compare(1, True) is not None
    assert compare(False, False) is None


def test_integers_must_stay_integers():
    assert compare(3.0, 3) is not None
    assert compare(3, 3) is None


def test_object_key_order_does_not_matter_but_extra_keys_do():
    assert compare({"a": 1, "b": 2}, {"b": 2, "a": 1}) is None
    assert "unexpected" in (compare({"a": 1, "c": 3}, {"a": 1}) or "")


def test_contains_form_checks_every_substring():
    assert compare("hello wide world", {"contains": ["hello", "world"]}) is None
    assert compare("hello", {"contains": ["hello", "world"]}) is not None
    assert compare(5, {"contains": ["5"]}) is not None


def test_unimplemented_function_counts_as_failed():
    report = run_cases([{"system": "x", "function": "nope", "name": "n", "input": {}, "expected": 1}], {})
    assert (report.passed, report.failed) == (0, 1)
    assert report.results[0].detail == "not implemented"


def test_crashing_adapter_is_a_failure_with_its_reason():
    def boom(_case):
        raise ValueError("bad input")

    case = {"system": "s", "function": "f", "name": "n", "input": {}, "expected": 1}
    report = run_cases([case], {"s": {"f": boom}})
    assert report.failed == 1 and "ValueError" in report.results[0].detail


def test_catalog_optional_key_is_checked_only_where_expected():
    table = {"ai_profile": {"caller_retry_loop": lambda _c: {"steps": [], "estimate_before": 7}}}
    base = {"system": "ai_profile", "function": "caller_retry_loop", "name": "n", "input": {}}
    without = run_cases([{**base, "expected": {"steps": []}}], table)
    right = run_cases([{**base, "expected": {"steps": [], "estimate_before": 7}}], table)
    wrong = run_cases([{**base, "expected": {"steps": [], "estimate_before": 8}}], table)
    assert (without.failed, right.failed, wrong.failed) == (0, 0, 1)


def test_bare_value_inputs_reach_the_adapter_wrapped_as_value():
    seen = []
    table = {"s": {"f": lambda case: seen.append(case) or "ok"}}
    report = run_cases(
        [{"system": "s", "function": "f", "name": "n", "input": "日本", "expected": "ok"}], table
    )
    assert report.failed == 0 and seen == [{"value": "日本"}]
