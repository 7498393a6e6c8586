"""Conformance runner: checks the reproduced runtimes against vectors produced by the real code.

A vector file is a JSON list of cases ``{"system", "function", "name", "input", "expected"}``. A case
passes when the adapter registered for ``(system, function)`` returns a plain-JSON value equal to
``expected`` (key order aside, integers and strings exact, booleans never equal to numbers). An
``expected`` object whose only key is ``"contains"`` passes when the produced string contains every
listed substring. A function with no adapter fails; nothing is ever skipped.
"""

from __future__ import annotations

from simulator.conformance.runner import CaseResult, Report, compare, run_cases, run_paths

__all__ = ["CaseResult", "Report", "compare", "run_cases", "run_paths"]
