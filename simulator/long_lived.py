"""Building a large, long-lived structure (a parsed transcript, a corpus) without the cyclic collector.

CPython's collector runs every few hundred allocations and, as objects survive, walks ever older
generations: parsing a 100,000-message session builds millions of small objects that all stay alive, and
about half of the parse went into collections that found nothing to free. Inside :func:`building_long_lived`
the collector is paused; on leaving, everything alive is moved to the permanent generation
(:func:`gc.freeze`), so later collections (during replays) no longer walk the parsed transcripts either.

For processes that keep what they built for their life -- the command line and the corpus workers. It is
opt-in for the caller and never used inside the library's own functions: a long-running server that
parses and discards transcripts should not freeze them (refcounting still frees them, but frozen
reference cycles would stay).

:func:`collector_paused` is the pause alone, without the freeze: what the library itself does while it
builds a transcript (:func:`simulator.importers.parse_transcript`). The collections it skips would only
have walked the growing transcript again and again (about half of a 100,000-message parse); once the
collector is back, the next collection walks it once. Nothing is kept out of later collections.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def building_long_lived() -> Iterator[None]:
    """Pause the cyclic collector for the block; then freeze what is alive and restore the collector."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block and restore it as it was (nothing is frozen).

    The collector's switch is the process's: another thread allocating meanwhile is not collected
    either, for as long as the block runs. Nested or concurrent pauses leave it on when the first one
    found it on, once that one ends.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


__all__ = ["building_long_lived", "collector_paused"]
