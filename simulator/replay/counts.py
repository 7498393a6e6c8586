"""How many transcript messages a model call held, sent and dropped: the one source of those numbers.

The simulation page's sentence ("8 of 9 messages held were sent, plus the breadcrumb note"), its fate
chips, the API's and the CLI's ``--json`` per-call ``counts`` all come from :class:`CallCounts`.
Everything is counted in transcript messages (what the page lists), not in a runtime's native messages:
a native message built from several transcript messages counts as those messages, a system prompt sent
beside the history counts as sent, and the breadcrumb note, which is no transcript message, is said
apart. A failed call's error reply that the runtime does not carry is listed but not held.

Derived from the replay record alone, with prefix sums over the native messages' origins, so a
10,000-call report stays linear: ``CallCounter`` is built once per result.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from itertools import accumulate

from simulator.jsonvalue import JSON
from simulator.replay.model import CallRecord, SimulationResult


@dataclass(frozen=True, slots=True)
class CallCounts:
    """Where the transcript messages before one call stand.

    Invariants (``tests/simulator/test_call_counts.py``): ``sent + dropped == held`` and
    ``held + not_held == listed``; the call view's fate chips add up to ``listed``, and those of
    the fates that were sent to ``sent``.
    """

    listed: int
    """Transcript messages before the call (all its request could hold)."""
    held: int
    """Of them, what the runtime held for this request: in its history or beside it."""
    sent: int
    """Of the held, what the request carried."""
    dropped: int
    """Of the held, what a trim left out (at this call or an earlier one)."""
    not_held: int
    """Of the listed, what the runtime holds nothing for (a failed call's error reply it does not carry)."""
    outside: int
    """Of the sent, what went beside the trimmed history (a system prompt sent as the request's own field)."""
    breadcrumb: bool
    """The request also carried the breadcrumb note (not a transcript message)."""

    @property
    def sentence(self) -> str:
        """The one-line summary the page shows, from these counts only."""
        text = f"{self.sent:,} of {self.held:,} message{'' if self.held == 1 else 's'} held were sent"
        if self.outside:
            text += f" ({self.outside:,} beside the trimmed history, as system prompt)"
        if self.breadcrumb:
            text += ", plus the breadcrumb note"
        if self.not_held:
            reply = "reply" if self.not_held == 1 else "replies"
            text += f"; {self.not_held:,} failed {reply} not carried"
        return text + "."

    def to_json(self) -> dict[str, JSON]:
        return {
            "listed": self.listed,
            "held": self.held,
            "sent": self.sent,
            "dropped": self.dropped,
            "not_held": self.not_held,
            "outside_history": self.outside,
            "breadcrumb": self.breadcrumb,
        }


class CallCounter:
    """Counts for any call of one result (built once: prefix sums over the natives' origins)."""

    def __init__(self, result: SimulationResult) -> None:
        self._covered = list(accumulate(map(len, result.origins), initial=0))
        self._outside = [index for index, _ in result.outside]

    def _messages(self, start: int, end: int) -> int:
        return self._covered[end] - self._covered[start]

    def counts(self, call: CallRecord) -> CallCounts:
        in_history = self._messages(0, call.available)
        sent_history = sum(self._messages(start, end) for start, end in call.sent)
        outside = bisect_left(self._outside, call.message_index)
        held = in_history + outside
        return CallCounts(
            listed=call.message_index,
            held=held,
            sent=sent_history + outside,
            dropped=in_history - sent_history,
            not_held=call.message_index - held,
            outside=outside,
            breadcrumb=call.breadcrumb_at is not None,
        )


def call_counts(result: SimulationResult, call: CallRecord) -> CallCounts:
    """The counts of one call of ``result`` (build a :class:`CallCounter` to count many)."""
    return CallCounter(result).counts(call)
