"""The cyclic garbage collector paused while a replay runs, for every thread at once and re-entrantly.

A replay builds hundreds of thousands of small objects that it keeps until it returns (native
messages, per-call records); none of them forms a reference cycle, so reference counting frees all
of them, but CPython's cyclic collector walks them, and everything else alive, again and again as
they survive: 12-37 % of a 100,000-message replay went there. While any replay runs the collector is
paused; when the last one returns it is restored as the first one found it. Nothing is frozen (a
long-running server that replays and discards transcripts keeps collecting normally), and a cycle
made meanwhile elsewhere in the process is collected once the collector runs again.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block (nested and concurrent blocks share one pause)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()


__all__ = ["collector_paused"]
