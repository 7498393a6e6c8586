"""OpenClaw's tool-name normalisation for the prune allow/deny lists."""

from __future__ import annotations

from simulator.runtimes.openclaw.tools import (
    compile_glob_patterns,
    make_tool_prunable_predicate,
    normalize_tool_name,
)


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


def test_patterns_compile_to_all_exact_or_anchored_globs_and_blanks_are_dropped() -> None:
    patterns = compile_glob_patterns(["*", " Read ", "web_*", "", "  "])
    assert [(p.kind, p.value) for p in patterns] == [("all", "*"), ("exact", "read"), ("glob", "web_*")]
    assert compile_glob_patterns({"allow": ["*"]}) == ()


def test_a_glob_is_anchored_literal_around_its_stars_and_stops_at_line_breaks() -> None:
    (glob,) = compile_glob_patterns(["a.b*"])
    assert [glob.matches(name) for name in ("a.b", "a.bcd", "axbcd", "za.b", "a.b\nc")] == [
        True,
        True,
        False,
        False,
        False,
    ]
    (exact,) = compile_glob_patterns(["read"])
    assert [exact.matches(name) for name in ("read", "reading", "xread")] == [True, False, False]


def test_deny_wins_and_an_empty_allow_list_allows_everything() -> None:
    predicate = make_tool_prunable_predicate({"allow": ["web_*", "read"], "deny": ["web_fetch"]})
    assert [predicate(name) for name in ("web_search", "web_fetch", "READ", "exec", None)] == [
        True,
        False,
        True,
        False,
        False,
    ]
    open_list = make_tool_prunable_predicate({"deny": ["exec"]})
    assert [open_list(name) for name in ("exec", "anything", None)] == [False, True, True]
    assert make_tool_prunable_predicate("not an object")("exec") is True
    assert make_tool_prunable_predicate({"deny": ["*"]})("read") is False
