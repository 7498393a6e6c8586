"""Tool allow/deny matching for context pruning (``makeToolPrunablePredicate``).

Upstream: OpenClaw 2026.7.1 ``src/agents/agent-hooks/context-pruning/tools.ts`` and
``src/agents/glob-pattern.ts``. Patterns and tool names are trimmed and lower-cased (non-strings
become ""); empty patterns are dropped; ``*`` is the only wildcard; deny wins over allow; an empty
allow list allows everything.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.jsstr import js_trim

ToolPredicate = Callable[[str | None], bool]

# JS `.` (no `s` flag) stops at line terminators, so `*` must too.
_JS_DOT_STAR = "[^\\n\\r\\u2028\\u2029]*"


def normalize_tool_name(value: JSON) -> str:
    """Trim and lower-case a tool name or pattern; anything that is not a string becomes ""."""
    return js_trim(value).lower() if isinstance(value, str) else ""


@dataclass(frozen=True, slots=True)
class GlobPattern:
    """One compiled pattern: ``all`` (``*``), an exact name, or an anchored ``*`` glob."""

    kind: str
    value: str
    regex: re.Pattern[str] | None = None

    def matches(self, name: str) -> bool:
        if self.kind == "all":
            return True
        if self.regex is not None:
            return self.regex.fullmatch(name) is not None
        return name == self.value


def compile_glob_patterns(raw: JSON) -> tuple[GlobPattern, ...]:
    """Compile a JSON list of patterns; a non-list yields no patterns.

    Args:
        raw: The ``allow`` or ``deny`` value from the settings (any JSON).

    Returns:
        The compiled, non-empty patterns in order.
    """
    if not isinstance(raw, list):
        return ()
    out: list[GlobPattern] = []
    for item in raw:
        pattern = normalize_tool_name(item)
        if not pattern:
            continue
        if pattern == "*":
            out.append(GlobPattern("all", pattern))
        elif "*" in pattern:
            body = _JS_DOT_STAR.join(re.escape(part) for part in pattern.split("*"))
            out.append(GlobPattern("glob", pattern, re.compile(body)))
        else:
            out.append(GlobPattern("exact", pattern))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class ToolPrunablePredicate:
    """Callable predicate built from ``settings.tools``; deny wins, empty allow means all."""

    allow: tuple[GlobPattern, ...]
    deny: tuple[GlobPattern, ...]

    def __call__(self, tool_name: str | None) -> bool:
        name = normalize_tool_name(tool_name)
        if any(p.matches(name) for p in self.deny):
            return False
        if not self.allow:
            return True
        return any(p.matches(name) for p in self.allow)


def make_tool_prunable_predicate(tools: JSON) -> ToolPrunablePredicate:
    """Build the predicate OpenClaw derives from ``contextPruning.tools``.

    Args:
        tools: The raw ``{allow?, deny?}`` object (anything else means no patterns).

    Returns:
        A predicate taking a tool name (None or non-string behaves as "").
    """
    allow: JSON = tools.get("allow") if isinstance(tools, dict) else None
    deny: JSON = tools.get("deny") if isinstance(tools, dict) else None
    return ToolPrunablePredicate(compile_glob_patterns(allow), compile_glob_patterns(deny))
