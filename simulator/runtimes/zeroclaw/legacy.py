"""Legacy message-level retention: ``history::trim_history`` and ``normalize_system_messages``.

Master 15d28660 still runs this raw path (default cap 50 messages) with no breadcrumb and no event,
only a log line. It counts non-system messages, excluding only a *first-position* system message.
When over the cap it keeps the first user message ("anchor") and the newest ``max - 1`` messages,
dropping the middle; with no anchor, ``max < 2`` or an empty middle it drops the oldest excess
messages after the system slot instead. Then the orphan sweep runs and every system message is merged
into one leading system message (joined by a blank line, empty ones discarded).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from simulator.jsonvalue import JSON
from simulator.runtimes.zeroclaw.messages import SYSTEM, USER, ChatMessage
from simulator.runtimes.zeroclaw.orphans import remove_orphaned_tool_messages

DEFAULT_MAX_HISTORY_MESSAGES = 50


@dataclass(frozen=True, slots=True)
class LegacyTrimResult:
    """Outcome of ``trim_history``. ``kept_indices`` maps non-system output rows to the input."""

    history: tuple[ChatMessage, ...]
    dropped: int
    kept_indices: tuple[int, ...]
    """Input positions of the surviving non-system messages; the merged system row has no single source."""

    def to_json(self) -> JSON:
        """The vector shape."""
        return {"history": [m.to_json() for m in self.history]}


def normalize_system_messages(history: Sequence[ChatMessage]) -> tuple[ChatMessage, ...]:
    """Merge every system message into one leading system message.

    Args:
        history: Provider-facing messages.

    Returns:
        One system message (contents joined by a blank line, empty ones skipped; none at all when all
        were empty) followed by the non-system messages in order.
    """
    parts = [m.content for m in history if m.role == SYSTEM and m.content]
    rest = tuple(m for m in history if m.role != SYSTEM)
    if parts:
        return (ChatMessage(SYSTEM, "\n\n".join(parts)), *rest)
    return rest


def trim_history(history: Sequence[ChatMessage], max_history: int) -> LegacyTrimResult:
    """Legacy ``trim_history``: message-count cap that keeps the first user message as an anchor.

    Args:
        history: Provider-facing messages.
        max_history: Cap on non-system messages (a first-position system message is not counted).

    Returns:
        The trimmed, orphan-swept and system-normalised history; unchanged when under the cap.
    """
    messages = tuple(history)
    has_system = bool(messages) and messages[0].role == SYSTEM
    offset = 1 if has_system else 0
    non_system = len(messages) - offset
    if non_system <= max_history:
        return LegacyTrimResult(messages, 0, tuple(range(len(messages))))

    anchor = next((i for i in range(offset, len(messages)) if messages[i].role == USER), None)
    drop: range | None = None
    if anchor is not None and max_history >= 2:
        tail_start = max(0, len(messages) - (max_history - 1))
        if tail_start > anchor + 1:
            drop = range(anchor + 1, tail_start)
    if drop is None:
        drop = range(offset, offset + non_system - max_history)

    survivors = [i for i in range(len(messages)) if i not in drop]
    sweep = remove_orphaned_tool_messages([messages[i] for i in survivors])
    surviving_indices = [survivors[k] for k in sweep.kept_indices]
    normalised = normalize_system_messages(sweep.history)
    kept_non_system = tuple(i for i in surviving_indices if messages[i].role != SYSTEM)
    return LegacyTrimResult(normalised, len(messages) - len(sweep.history), kept_non_system)
