"""The trim breadcrumb: a ``user`` message telling the model that earlier turns were cut.

Inserted right after the leading system messages. Master 15d28660's ``insert_breadcrumb_deduped``
skips the insert when the message at that index already has the breadcrumb's role and text; reactive
recovery and the structured path insert unconditionally. PR 9368 dedupes by the owner's
``has_leading_breadcrumb`` flag instead of by text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from simulator.runtimes.zeroclaw.messages import (
    USER,
    Chat,
    ChatMessage,
    ConversationMessage,
    is_conversation_system,
)
from simulator.runtimes.zeroclaw.texts import BREADCRUMB_TEXT
from simulator.runtimes.zeroclaw.turns import leading_system_count


def breadcrumb() -> ChatMessage:
    """The breadcrumb message (English, identical in every shipped locale)."""
    return ChatMessage(USER, BREADCRUMB_TEXT)


@dataclass(frozen=True, slots=True)
class BreadcrumbInsert:
    """Outcome of a breadcrumb insert: the history, where the crumb sits, and whether it was added."""

    history: tuple[ChatMessage, ...]
    index: int
    inserted: bool


def insert_breadcrumb(history: Sequence[ChatMessage]) -> BreadcrumbInsert:
    """Insert the breadcrumb after the leading system messages unconditionally (reactive recovery)."""
    at = leading_system_count(history)
    crumbed = (*history[:at], breadcrumb(), *history[at:])
    return BreadcrumbInsert(crumbed, at, True)


def insert_breadcrumb_deduped(history: Sequence[ChatMessage]) -> BreadcrumbInsert:
    """Master: insert the breadcrumb unless the message at the insert index already equals it.

    Args:
        history: Provider-facing messages (usually a trim result).

    Returns:
        The history with exactly one breadcrumb at the insert index.
    """
    at = leading_system_count(history)
    if at < len(history) and history[at] == breadcrumb():
        return BreadcrumbInsert(tuple(history), at, False)
    return insert_breadcrumb(history)


def insert_breadcrumb_flagged(
    history: Sequence[ChatMessage], has_leading_breadcrumb: bool
) -> BreadcrumbInsert:
    """PR 9368: insert unless the owner's flag says a breadcrumb already sits after the systems."""
    if has_leading_breadcrumb:
        return BreadcrumbInsert(tuple(history), leading_system_count(history), False)
    return insert_breadcrumb(history)


def insert_conversation_breadcrumb(history: Sequence[ConversationMessage]) -> tuple[ConversationMessage, ...]:
    """Structured path: always insert a ``Chat`` breadcrumb after the leading system messages."""
    at = 0
    while at < len(history) and is_conversation_system(history[at]):
        at += 1
    return (*history[:at], Chat(breadcrumb()), *history[at:])
