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
collector is back, what the block built is moved to the oldest generation in constant time, so only a
full collection walks it. Nothing is kept out of later collections. The replays pause it the same way
(12-37 % of a 100,000-message replay went to collections that freed nothing).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False
_frozen_on_purpose = False
"""Set for good once :func:`building_long_lived` has frozen something in this process."""


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block and restore it as the first pause found it (nothing is
    frozen).

    The collector's switch is the process's, so pauses are shared: nested and concurrent blocks (a
    parse in one thread, a replay in another) keep it off until the last of them ends, and only then
    is it switched back on, if it was on when the first began. Another thread allocating meanwhile is
    not collected either; a cycle made meanwhile is collected once the collector runs again.
    """
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
                _promote_to_oldest()
                gc.enable()


def _promote_to_oldest() -> None:
    """Move every tracked object into the oldest generation, without walking any of them.

    What a paused block built (a replay's records, a prepared transcript) would otherwise all sit in
    the youngest generation: the first collection after the pause walks every one of them, and the
    next older one walks them again (about 0.1 s after a 100,000-message replay, for nothing). Freezing
    and unfreezing splices the generations' lists into the oldest one in constant time; cycles that
    were young are found by the next full collection instead. Skipped once this process has frozen
    something on purpose (:func:`building_long_lived`), which unfreezing would undo. That is a flag,
    not ``gc.get_freeze_count()``: counting walks the whole frozen list (about 50 ms with a frozen
    corpus of 2 million objects, at every replay).
    """
    if not _frozen_on_purpose:
        gc.freeze()
        gc.unfreeze()


@contextmanager
def building_long_lived() -> Iterator[None]:
    """Pause the cyclic collector for the block; then freeze what is alive and restore the collector."""
    global _frozen_on_purpose
    with collector_paused():
        try:
            yield
        finally:
            _frozen_on_purpose = True
            gc.freeze()


__all__ = ["building_long_lived", "collector_paused"]
