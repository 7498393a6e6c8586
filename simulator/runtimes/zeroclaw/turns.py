"""Turn segmentation: which message opens a turn, in each ZeroClaw version.

A turn is a boundary message plus everything up to the next boundary. Messages before the first
boundary belong to no turn.

- Master ``ChatMessage`` (``history_trim::is_turn_boundary``): role ``user`` and content not starting
  with the exact, case-sensitive ``[Tool results]`` prefix. The breadcrumb is an ordinary user
  message, hence a boundary.
- PR 9368 ``ChatMessage``: role ``user`` and not the caller-flagged leading breadcrumb; text no longer
  matters (prompt-mode tool results moved to a private role, so any ``user`` row is a real turn).
- ``ConversationMessage`` (``is_conversation_turn_boundary``, both versions): a ``Chat`` with role
  ``user``, no ``[Tool results]`` check, unless it is the flagged breadcrumb.
"""

from __future__ import annotations

from collections.abc import Sequence

from simulator.runtimes.zeroclaw.messages import SYSTEM, USER, Chat, ChatMessage, ConversationMessage
from simulator.runtimes.zeroclaw.texts import TOOL_RESULTS_PREFIX


def is_turn_boundary(message: ChatMessage) -> bool:
    """Master: a ``user`` message that is not a prompt-mode ``[Tool results]`` carrier."""
    return message.role == USER and not message.content.startswith(TOOL_RESULTS_PREFIX)


def is_turn_boundary_pr9368(message: ChatMessage, is_breadcrumb: bool = False) -> bool:
    """PR 9368: any ``user`` message except the flagged breadcrumb."""
    return message.role == USER and not is_breadcrumb


def is_conversation_turn_boundary(message: ConversationMessage, is_breadcrumb: bool = False) -> bool:
    """Structured history: a ``Chat`` user message that is not the flagged breadcrumb."""
    return isinstance(message, Chat) and message.message.role == USER and not is_breadcrumb


def leading_system_count(history: Sequence[ChatMessage]) -> int:
    """Length of the maximal prefix of ``system`` messages."""
    count = 0
    for message in history:
        if message.role != SYSTEM:
            break
        count += 1
    return count


def count_turns(history: Sequence[ChatMessage]) -> int:
    """Master ``count_turns``: number of boundaries in the whole list."""
    return sum(1 for m in history if is_turn_boundary(m))
