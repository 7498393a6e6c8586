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

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.db import close_old_connections

P = ParamSpec("P")
R = TypeVar("R")


def db_call(fn: Callable[P, R]) -> Callable[P, Coroutine[Any, Any, R]]:
    """``database_sync_to_async`` with its types kept (channels ships no type information)."""
    wrapped: Callable[P, Coroutine[Any, Any, R]] = database_sync_to_async(fn)
    return wrapped


def db_call_keeping_connection(fn: Callable[P, R]) -> Callable[P, Coroutine[Any, Any, R]]:
    """Like :func:`db_call` on the same database thread, but the connection stays open after a call that
    succeeded, for a hot path that runs hundreds of times a second (storing runtime events).

    ``db_call`` closes the connection after every call unless ``CONN_MAX_AGE`` keeps it, and opening it
    again was a fifth of the ingestion's database time. A call that raised closes what it may have left
    broken; any other ``db_call`` on the thread still closes connections past their age, as usual.
    """

    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except BaseException:
            close_old_connections()
            raise

    wrapped: Callable[P, Coroutine[Any, Any, R]] = sync_to_async(run, thread_sensitive=True)
    return wrapped
