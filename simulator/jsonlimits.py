"""Limits on untrusted JSON and TOML documents, so hostile input is a reason, not a crash.

What is modelled: the inputs the runtimes' own readers refuse. ZeroClaw reads JSON with serde_json,
whose default recursion limit is 128 nesting levels and which rejects a lone surrogate escape
(``"\\ud800"``: "lone leading surrogate in hex escape"); a Rust ``String`` cannot hold one. Python's
readers are laxer and fail worse: ``json`` and ``tomllib`` recurse once per level and raise
``RecursionError`` near 1,000 levels (the exact depth depends on the caller's stack), ``int()`` refuses
more than 4,300 digits with a bare ``ValueError`` (CVE-2020-10735), and ``json`` accepts lone
surrogates that every UTF-8 encoder downstream (tokenizers, the ZeroClaw estimator, databases) then
refuses. Here each becomes :class:`DocumentRejected` with a reason, and the depth limit is the fixed
128 levels, so the outcome does not depend on the stack.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib

from simulator.jsonvalue import JSON

MAX_DEPTH = 128
"""Deepest nesting accepted (serde_json's default recursion limit)."""

_SURROGATE_HINT = re.compile(r"[\ud800-\udfff]|\\u[dD][89a-fA-F]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


class DocumentRejected(ValueError):
    """A document that is syntactically valid for Python but refused by the limits above."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def may_hold_surrogates(text: str) -> bool:
    """Whether ``text`` has a raw surrogate or a ``\\uD8xx``-``\\uDFxx`` escape (a cheap pre-check)."""
    return _SURROGATE_HINT.search(text) is not None


def loads(text: str) -> JSON:
    """``json.loads`` within the limits.

    Raises:
        json.JSONDecodeError: for invalid JSON, unchanged (callers locate it).
        DocumentRejected: nesting deeper than :data:`MAX_DEPTH`, a number over 4,300 digits, or a lone
            surrogate.
    """
    try:
        value: JSON = json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise DocumentRejected(f"JSON nested deeper than {MAX_DEPTH} levels") from None
    except ValueError:  # int() over sys.get_int_max_str_digits() digits
        raise DocumentRejected(too_long_number()) from None
    check_tree(value, strings=may_hold_surrogates(text))
    return value


def toml_loads(text: str) -> dict[str, object]:
    """``tomllib.loads`` within the limits (``TOMLDecodeError`` passes through).

    Raises:
        DocumentRejected: nesting too deep for the parser, or a number over 4,300 digits.
    """
    # tomllib recurses per nesting level and int() caps digits: both are limits, not crashes.
    try:
        value: dict[str, object] = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except RecursionError:
        raise DocumentRejected(f"TOML nested deeper than {MAX_DEPTH} levels") from None
    except ValueError:  # int() over sys.get_int_max_str_digits() digits
        raise DocumentRejected(too_long_number()) from None
    check_tree(value, nul=False)
    return value


def too_long_number() -> str:
    """The reason for a number ``int()`` refuses to read."""
    return f"a number has more than {sys.get_int_max_str_digits():,} digits"


def check_tree(value: object, *, strings: bool = True, nul: bool = True) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` and (with ``strings``) lone surrogates in any string,
    and (without ``nul``) NUL characters, which documents kept as JSON on PostgreSQL cannot hold.

    Iterative, so a deep tree cannot exhaust the stack here.

    Raises:
        DocumentRejected: naming the problem.
    """
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            if depth >= MAX_DEPTH:
                raise DocumentRejected(f"nested deeper than {MAX_DEPTH} levels")
            for key, item in node.items():
                if strings and isinstance(key, str):
                    _check_string(key, nul)
                stack.append((item, depth + 1))
        elif isinstance(node, list):
            if depth >= MAX_DEPTH:
                raise DocumentRejected(f"nested deeper than {MAX_DEPTH} levels")
            stack.extend((item, depth + 1) for item in node)
        elif strings and isinstance(node, str):
            _check_string(node, nul)


def _check_string(text: str, nul: bool) -> None:
    if not nul and "\x00" in text:
        raise DocumentRejected("a string holds a NUL character (U+0000)")
    found = _SURROGATE.search(text)
    if found is not None:
        raise DocumentRejected(
            f"a string holds a lone surrogate (U+{ord(found.group()):04X}), which is not Unicode text "
            "(serde_json and every UTF-8 encoder refuse it)"
        )
