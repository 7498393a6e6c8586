"""Count-based retention: the structured message cap and PR 9368's turn-count cap.

Master 15d28660 ``trim_conversation_to_recent_turns`` (structured ``ConversationMessage`` history):
counts non-system *messages* (tool rows included, a flagged breadcrumb excluded). When over the cap
and there are at least two turns it pulls every system message (any position) to the front, drops
the fewest oldest whole turns that bring the body within the cap (always keeping the newest turn,
even with cap 0) and removes a flagged leading breadcrumb, which the caller re-inserts. Under the cap
nothing moves, late system messages included.

PR 9368 (head 101231e1) counts whole *turns* instead: ``trim_to_recent_turn_count`` on
``ChatMessage`` history (leading systems + flagged breadcrumb + the newest ``max(max_turns, 1)``
turns; late systems inside dropped turns go with them) and the structured variant (as master's
structured path: systems pulled to the front, a flagged breadcrumb removed and re-inserted by the
caller).

Vector over spec: the spec lists "(flagged breadcrumb)" in the PR 9368 output for both variants, but
vector ``pr9368_conv_9`` shows the structured variant removes it (``dropped_messages`` excludes it).
Whether PR 9368's structured variant pulls *late* systems to the front is not covered by any vector;
master's behaviour is assumed.

Results carry ``kept_indices`` into the input, in output order, so a reordering of late systems is
visible.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from simulator.jsonvalue import JSON
from simulator.runtimes.zeroclaw.messages import ChatMessage, ConversationMessage, is_conversation_system
from simulator.runtimes.zeroclaw.turns import (
    is_conversation_turn_boundary,
    is_turn_boundary_pr9368,
    leading_system_count,
)

M = TypeVar("M", ChatMessage, ConversationMessage)


@dataclass(frozen=True, slots=True)
class CountTrimResult(Generic[M]):
    """Outcome of a count-based trim (no token figures)."""

    history: tuple[M, ...]
    dropped_messages: int
    dropped_turns: int
    kept_turns: int
    trimmed: bool
    kept_indices: tuple[int, ...]

    def to_json(self) -> JSON:
        """The vector shape (``kept_indices`` is not part of upstream's result)."""
        return {
            "history": [m.to_json() for m in self.history],
            "dropped_messages": self.dropped_messages,
            "dropped_turns": self.dropped_turns,
            "kept_turns": self.kept_turns,
            "trimmed": self.trimmed,
        }


def _unchanged(history: tuple[M, ...], kept_turns: int) -> CountTrimResult[M]:
    return CountTrimResult(history, 0, 0, kept_turns, False, tuple(range(len(history))))


@dataclass(frozen=True, slots=True)
class _Split:
    system_indices: tuple[int, ...]
    body_indices: tuple[int, ...]
    bounds: tuple[int, ...]
    """Positions in ``body_indices`` of the turn boundaries."""
    breadcrumb: bool
    total_turns: int


def _split_conversation(history: Sequence[ConversationMessage], has_leading_breadcrumb: bool) -> _Split:
    system_indices = tuple(i for i, m in enumerate(history) if is_conversation_system(m))
    body_indices = tuple(i for i, m in enumerate(history) if not is_conversation_system(m))
    breadcrumb = has_leading_breadcrumb and bool(body_indices)
    bounds = tuple(
        pos
        for pos, i in enumerate(body_indices)
        if is_conversation_turn_boundary(history[i], breadcrumb and pos == 0)
    )
    return _Split(system_indices, body_indices, bounds, breadcrumb, len(bounds))


def trim_conversation_to_recent_turns(
    history: Sequence[ConversationMessage], max_messages: int, has_leading_breadcrumb: bool = False
) -> CountTrimResult[ConversationMessage]:
    """Master structured cap: keep the newest whole turns within ``max_messages`` non-system messages.

    Args:
        history: Structured agent history.
        max_messages: Cap on non-system messages (0 still keeps the newest turn).
        has_leading_breadcrumb: The owner's record that the first non-system message is the
            synthetic breadcrumb.

    Returns:
        The trim result; when trimmed, every system message is moved to the front and a flagged
        breadcrumb is removed (not counted in ``dropped_messages``).
    """
    messages = tuple(history)
    split = _split_conversation(messages, has_leading_breadcrumb)
    counted = len(split.body_indices) - (1 if split.breadcrumb else 0)
    if counted <= max_messages or split.total_turns <= 1:
        return _unchanged(messages, split.total_turns)

    body_len = len(split.body_indices)
    first_kept = split.bounds[1]
    dropped_turns = 1
    for turn_index in range(1, len(split.bounds)):
        first_kept = split.bounds[turn_index]
        dropped_turns = turn_index
        if body_len - first_kept <= max_messages:
            break

    kept_indices = split.system_indices + split.body_indices[first_kept:]
    return CountTrimResult(
        history=tuple(messages[i] for i in kept_indices),
        dropped_messages=first_kept - (1 if split.breadcrumb else 0),
        dropped_turns=dropped_turns,
        kept_turns=len(split.bounds) - dropped_turns,
        trimmed=True,
        kept_indices=kept_indices,
    )


def trim_conversation_to_recent_turns_pr9368(
    history: Sequence[ConversationMessage], max_turns: int, has_leading_breadcrumb: bool = False
) -> CountTrimResult[ConversationMessage]:
    """PR 9368 structured cap: keep the newest ``max(max_turns, 1)`` whole turns.

    Args:
        history: Structured agent history.
        max_turns: Turns to keep (0 keeps the newest turn).
        has_leading_breadcrumb: Whether the first non-system message is the synthetic breadcrumb.

    Returns:
        The trim result; when trimmed, system messages lead and a flagged breadcrumb is removed (the
        caller re-inserts it), as on master's structured path.
    """
    messages = tuple(history)
    split = _split_conversation(messages, has_leading_breadcrumb)
    if split.total_turns <= max_turns or split.total_turns <= 1:
        return _unchanged(messages, split.total_turns)
    kept = min(max(max_turns, 1), len(split.bounds))
    first_kept = split.bounds[len(split.bounds) - kept]
    kept_indices = split.system_indices + split.body_indices[first_kept:]
    return CountTrimResult(
        history=tuple(messages[i] for i in kept_indices),
        dropped_messages=first_kept - (1 if split.breadcrumb else 0),
        dropped_turns=len(split.bounds) - kept,
        kept_turns=kept,
        trimmed=True,
        kept_indices=kept_indices,
    )


def trim_to_recent_turn_count(
    history: Sequence[ChatMessage], max_turns: int, has_leading_breadcrumb: bool = False
) -> CountTrimResult[ChatMessage]:
    """PR 9368 ``trim_to_recent_turn_count``: keep the newest ``max(max_turns, 1)`` whole turns.

    Args:
        history: Provider-facing messages.
        max_turns: Turns to keep; 0 keeps the newest turn.
        has_leading_breadcrumb: Whether the message after the leading systems is the breadcrumb.

    Returns:
        The trim result: leading systems, the flagged breadcrumb, then the kept turns.
    """
    messages = tuple(history)
    leading = leading_system_count(messages)
    crumb = 1 if has_leading_breadcrumb and len(messages) > leading else 0
    prefix_len = leading + crumb
    body = messages[prefix_len:]
    bounds = [i for i, m in enumerate(body) if is_turn_boundary_pr9368(m)]
    total_turns = len(bounds)
    if total_turns <= max_turns or total_turns <= 1:
        return _unchanged(messages, total_turns)
    kept = min(max(max_turns, 1), len(bounds))
    first_kept = bounds[len(bounds) - kept]
    kept_indices = tuple(range(prefix_len)) + tuple(range(prefix_len + first_kept, len(messages)))
    return CountTrimResult(
        history=messages[:prefix_len] + body[first_kept:],
        dropped_messages=first_kept,
        dropped_turns=len(bounds) - kept,
        kept_turns=kept,
        trimmed=True,
        kept_indices=kept_indices,
    )
