"""The settings' environment variables, read strictly.

An operator configures a deployment with environment variables, and a value a setting cannot take must stop
the start rather than be read as something else: ``TRIMSCOPE_HTTPS=ture`` read as false would leave the
HTTPS hardening off without a word, ``TRIMSCOPE_EVENT_RETENTION_DAYS=0`` would have the hourly prune delete
every event, ``TRIMSCOPE_MAX_UPLOAD_BYTES=200MB`` would stop the start with a bare ``int()`` traceback that
names no variable. Each reader here gives the default when the variable is unset and raises
:class:`EnvironmentValueError` (naming the variable, its value and what it takes) for a value outside what
the setting takes. ``manage.py`` and the ASGI entry point print that one line and exit with status 2.

Only the standard library and Django's exception: the settings module imports this before Django is set up.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable
from typing import NoReturn, TypeVar
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})
"""An empty value reads as false, as it always has (``FOO=`` in an environment file switches a flag off)."""


T = TypeVar("T")


class EnvironmentValueError(ImproperlyConfigured):
    """An environment variable holds a value its setting cannot take."""

    def __init__(self, name: str, raw: str, expected: str) -> None:
        super().__init__(f"{name}={raw!r}: expected {expected}")
        self.name = name
        self.raw = raw


def refuse_start(error: EnvironmentValueError) -> NoReturn:
    """Stop the process with ``error`` as one line on stderr and status 2 (no traceback)."""
    sys.stderr.write(f"Trimscope cannot start: {error}\n")
    raise SystemExit(2) from None


def _read(name: str, default: T, parse: Callable[[str], T], expected: str) -> T:
    """``parse`` of the variable's value, stripped (it raises ``ValueError`` for one the setting cannot take),
    or ``default`` when the variable is unset."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        return parse(raw.strip())
    except ValueError:
        raise EnvironmentValueError(name, raw, expected) from None


def env_bool(name: str, default: bool) -> bool:
    """A switch: 1/true/yes/on or 0/false/no/off (any case, spaces around ignored; empty is off)."""

    def parse(text: str) -> bool:
        word = text.lower()
        if word in TRUE_WORDS or word in FALSE_WORDS:
            return word in TRUE_WORDS
        raise ValueError(text)

    return _read(
        name, default, parse, "1, true, yes or on to switch it on; 0, false, no or off to switch it off"
    )


def env_int(name: str, default: int, *, minimum: int, meaning: str = "") -> int:
    """A whole number of at least ``minimum`` (``meaning`` says what the number counts, for the error)."""

    def parse(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise ValueError(text)
        return value

    return _read(
        name, default, parse, f"a whole number{' of ' + meaning if meaning else ''}, at least {minimum:,}"
    )


def env_float(name: str, default: float, *, above: float, meaning: str = "") -> float:
    """A finite number greater than ``above``."""

    def parse(text: str) -> float:
        value = float(text)
        if not math.isfinite(value) or value <= above:
            raise ValueError(text)
        return value

    return _read(
        name, default, parse, f"a number{' of ' + meaning if meaning else ''}, greater than {above:g}"
    )


def redacted_url(raw: str) -> str:
    """A URL as an error may show it: its scheme alone (the rest may hold a password)."""
    scheme = urlsplit(raw.strip()).scheme if "://" in raw else ""
    return f"{scheme}://…" if scheme else "…"


def env_url(name: str, schemes: frozenset[str], expected: str) -> str | None:
    """A URL of one of ``schemes`` with a host or path, or ``None`` when unset or empty. An error shows
    only its scheme (:func:`redacted_url`)."""
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return None
    parts = urlsplit(raw.strip())
    if parts.scheme not in schemes or not (parts.netloc or parts.path.strip("/")):
        raise EnvironmentValueError(name, redacted_url(raw), expected)
    return raw.strip()


def env_checked(name: str, default: str, check: Callable[[str], object], expected: str) -> str:
    """A text that ``check`` accepts (it raises ``ValueError`` for one it does not), stripped."""

    def parse(text: str) -> str:
        check(text)
        return text

    return _read(name, default, parse, expected)


__all__ = [
    "EnvironmentValueError",
    "env_bool",
    "env_checked",
    "env_float",
    "env_int",
    "env_url",
    "redacted_url",
    "refuse_start",
]
