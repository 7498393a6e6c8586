"""OpenClaw's tool-name normalisation for the prune allow/deny lists."""

from __future__ import annotations

from simulator.runtimes.openclaw.tools import make_tool_prunable_predicate, normalize_tool_name


def test_a_name_is_trimmed_and_lower_cased_and_a_non_string_is_empty() -> None:
    assert normalize_tool_name("  Shell ") == "shell"
    assert normalize_tool_name(5) == ""
    assert normalize_tool_name(None) == ""


def test_a_non_string_pattern_is_dropped() -> None:
    predicate = make_tool_prunable_predicate({"deny": [5, " Exec "]})
    assert predicate.deny[0].value == "exec"
    assert len(predicate.deny) == 1
    assert not predicate("EXEC")
    assert predicate("shell")
