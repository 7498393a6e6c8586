"""Runs vector cases through the adapters and compares results strictly."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from simulator.conformance.registry import Adapter, adapters
from simulator.jsonvalue import JSON, as_list, as_object, as_str


@dataclass(frozen=True, slots=True)
class CaseResult:
    system: str
    function: str
    name: str
    passed: bool
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Report:
    results: tuple[CaseResult, ...]

    @property
    def passed(self) -> int:
        return sum(1 for r in self.results if r.passed)

    @property
    def failed(self) -> int:
        return len(self.results) - self.passed

    def failures(self) -> tuple[CaseResult, ...]:
        return tuple(r for r in self.results if not r.passed)


# Output keys the vector catalog marks optional for a function (conformance/README.md writes them in
# parentheses, e.g. caller_retry_loop "steps, final_messages (, estimate_before)"): checked when a case
# expects them, ignored when it does not. Only top-level keys of the result.
OPTIONAL_KEYS: Mapping[tuple[str, str], frozenset[str]] = {
    ("ai_profile", "caller_retry_loop"): frozenset({"estimate_before"}),
}


def _drop_unexpected_optional(actual: JSON, expected: JSON, optional: frozenset[str]) -> JSON:
    if not optional or not isinstance(actual, dict) or not isinstance(expected, dict):
        return actual
    return {k: v for k, v in actual.items() if k in expected or k not in optional}


def compare(actual: JSON, expected: JSON, path: str = "$") -> str | None:
    """Return ``None`` when equal under the vector rules, else a short description of the first difference."""
    if isinstance(expected, dict) and set(expected) == {"contains"}:
        if not isinstance(actual, str):
            return f"{path}: expected a string containing {expected['contains']!r}, got {_short(actual)}"
        needles = expected["contains"]
        wanted = needles if isinstance(needles, list) else [needles]
        for needle in wanted:
            if not isinstance(needle, str) or needle not in actual:
                return f"{path}: {_short(actual)} does not contain {needle!r}"
        return None
    if isinstance(expected, bool) or isinstance(actual, bool):
        if type(expected) is not type(actual) or expected != actual:
            return f"{path}: expected {_short(expected)}, got {_short(actual)}"
        return None
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path}: expected an object, got {_short(actual)}"
        missing = sorted(set(expected) - set(actual))
        extra = sorted(set(actual) - set(expected))
        if missing or extra:
            return f"{path}: keys differ (missing {missing}, unexpected {extra})"
        for key in expected:
            diff = compare(actual[key], expected[key], f"{path}.{key}")
            if diff is not None:
                return diff
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"{path}: expected a list, got {_short(actual)}"
        if len(actual) != len(expected):
            return f"{path}: expected {len(expected)} items, got {len(actual)}"
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            diff = compare(a, e, f"{path}[{i}]")
            if diff is not None:
                return diff
        return None
    if isinstance(expected, int) and not isinstance(actual, int):
        return f"{path}: expected integer {expected}, got {_short(actual)}"
    if actual != expected or type(actual) is not type(expected) and not _both_numbers(actual, expected):
        return f"{path}: expected {_short(expected)}, got {_short(actual)}"
    return None


def _both_numbers(a: JSON, b: JSON) -> bool:
    return isinstance(a, int | float) and isinstance(b, int | float)


def _short(value: JSON, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def run_cases(
    cases: Iterable[Mapping[str, JSON]],
    table: Mapping[str, Mapping[str, Adapter]] | None = None,
) -> Report:
    """Run every case; an exception or a missing adapter is a failure with its reason."""
    registry = adapters() if table is None else table
    results: list[CaseResult] = []
    for case in cases:
        system = str(case.get("system", "?"))
        function = str(case.get("function", "?"))
        name = str(case.get("name", "?"))
        adapter = registry.get(system, {}).get(function)
        if adapter is None:
            results.append(CaseResult(system, function, name, False, "not implemented"))
            continue
        raw_input = case.get("input")
        # Adapters take an object; a vector whose input is a bare value (a string to estimate, a null
        # config) reaches its adapter as {"value": input}.
        arguments = raw_input if isinstance(raw_input, dict) else {"value": raw_input}
        try:
            actual = adapter(arguments)
        except Exception as exc:  # noqa: BLE001 - any crash is a failed case, reported with its type
            results.append(CaseResult(system, function, name, False, f"raised {type(exc).__name__}: {exc}"))
            continue
        expected = case.get("expected")
        optional = OPTIONAL_KEYS.get((system, function), frozenset())
        actual = _drop_unexpected_optional(actual, expected, optional)
        diff = compare(actual, expected)
        results.append(CaseResult(system, function, name, diff is None, diff or ""))
    return Report(tuple(results))


def load_cases(text: str, source: str) -> list[Mapping[str, JSON]]:
    data: JSON = json.loads(text)
    return [as_object(item, f"{source} case {i}") for i, item in enumerate(as_list(data, source))]


def run_paths(files: Sequence[tuple[str, str]]) -> Report:
    """Run the cases of already-read vector files given as ``(name, text)`` pairs."""
    cases: list[Mapping[str, JSON]] = []
    for source, text in files:
        cases.extend(load_cases(text, source))
    return run_cases(cases)


def format_failure(result: CaseResult) -> str:
    return f"FAIL {result.system} {result.function} {result.name}: {result.detail}"


__all__ = ["CaseResult", "Report", "as_str", "compare", "format_failure", "run_cases", "run_paths"]
