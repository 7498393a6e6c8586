"""WebSocket consumers, one module per endpoint (routes in ``dashboard.routing``): ``runtime`` (fleet
runtimes send trim events), ``fleet`` (the fleet page's live feed), ``evaluation`` (an evaluation's
progress).

Consumers stay thin: connection bookkeeping and message dispatch here, every database read or write in a
small helper wrapped with :func:`db_call` that calls one selector or service. Who may import:
``dashboard.routing`` (and tests).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from channels.db import database_sync_to_async

P = ParamSpec("P")
R = TypeVar("R")


def db_call(fn: Callable[P, R]) -> Callable[P, Coroutine[Any, Any, R]]:
    """``database_sync_to_async`` with its types kept (channels ships no type information)."""
    wrapped: Callable[P, Coroutine[Any, Any, R]] = database_sync_to_async(fn)
    return wrapped
