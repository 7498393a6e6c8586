"""``parseDurationMs`` from OpenClaw 2026.7.1 (``src/cli/parse-duration.ts``).

Accepts a single ``<number>[unit]`` token (the default unit applies to a bare number) or a
concatenation of ``<number><unit>`` segments with no separators (``1h30m``). Input is trimmed and
lower-cased first; the result is ``Math.round``-ed milliseconds. Errors carry OpenClaw's exact
messages so the conformance adapter can report them verbatim.

Deliberate divergence: failures raise :class:`DurationError` (a ``ValueError``) instead of a JS
``Error``; the message text is identical.
"""

from __future__ import annotations

import math
import re
from typing import Final, Literal

from simulator.runtimes.openclaw.jsstr import js_trim

DurationUnit = Literal["ms", "s", "m", "h", "d"]

DURATION_MULTIPLIERS: Final[dict[str, int]] = {
    "ms": 1,
    "s": 1000,
    "m": 60_000,
    "h": 3_600_000,
    "d": 86_400_000,
}

# JS `\d` is ASCII-only, hence the explicit class.
_SINGLE_RE: Final = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(ms|s|m|h|d)?$")
_TOKEN_RE: Final = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ms|s|m|h|d)")
_MAX_SAFE_INTEGER: Final = 2**53 - 1


class DurationError(ValueError):
    """An unparseable duration; ``str(err)`` is OpenClaw's error message."""


def _invalid(raw: str, reason: str | None = None) -> DurationError:
    value = f'"{raw}"' if js_trim(raw) else "empty value"
    prefix = f"Invalid duration ({reason}): {value}." if reason else f"Invalid duration: {value}."
    return DurationError(f"{prefix} Use values like 500ms, 30s, 5m, 2h, or 1h30m.")


def js_math_round(value: float) -> int:
    """``Math.round``: halves round towards +infinity (unlike Python's banker's rounding)."""
    floor = math.floor(value)
    return floor + 1 if value - floor >= 0.5 else floor


def _round_safe(raw: str, value: float) -> int:
    if not math.isfinite(value):
        raise _invalid(raw)
    ms = js_math_round(value)
    if abs(ms) > _MAX_SAFE_INTEGER:
        raise _invalid(raw)
    return ms


def parse_duration_ms(raw: str, default_unit: DurationUnit = "ms") -> int:
    """Parse a non-negative duration into milliseconds, as OpenClaw's ``parseDurationMs``.

    Args:
        raw: The duration text, e.g. ``"5m"``, ``"1h30m"``, ``"10"``.
        default_unit: Unit for a bare number (OpenClaw's context pruning passes ``"m"``).

    Returns:
        The duration in whole milliseconds.

    Raises:
        DurationError: with OpenClaw's message when the text is empty or malformed.
    """
    trimmed = js_trim(raw).lower()
    if not trimmed:
        raise _invalid(raw, "empty")
    single = _SINGLE_RE.match(trimmed)
    if single:
        unit = single.group(2) or default_unit
        return _round_safe(raw, float(single.group(1)) * DURATION_MULTIPLIERS[unit])
    total = 0.0
    consumed = 0
    for match in _TOKEN_RE.finditer(trimmed):
        if match.start() != consumed:
            raise _invalid(raw, "each composite segment needs a unit")
        total += float(match.group(1)) * DURATION_MULTIPLIERS[match.group(2)]
        consumed += len(match.group(0))
    if consumed != len(trimmed) or consumed == 0:
        raise _invalid(raw)
    return _round_safe(raw, total)
