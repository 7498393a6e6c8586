"""Legacy image cleanup replay view: ``pruneProcessedHistoryImages``.

Upstream: openclaw@2026.7.1 ``src/agents/embedded-agent-runner/run/history-image-prune.ts``. Messages
older than the third-most-recent *completed turn* (a user/toolResult start followed by an assistant
reply) have image blocks replaced by a text marker and media references scrubbed from user and
toolResult text. Assistant and other messages are never touched. The raw transcript is not changed;
this is the view handed to the model.

Deliberate divergences: none. JavaScript regex semantics are reproduced explicitly (ASCII ``\\d``,
ASCII ``\\b``, ECMAScript whitespace for ``\\s``, ASCII-only case folding for the ``i`` flag).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Final

import msgspec

from simulator.runtimes.openclaw.jsstr import JS_WHITESPACE_CLASS
from simulator.runtimes.openclaw.messages import (
    AgentMessage,
    AssistantMessage,
    Content,
    ContentBlock,
    RawBlock,
    TextContent,
    ToolResultMessage,
    UserMessage,
    text_block,
)

PRUNED_HISTORY_IMAGE_MARKER: Final = "[image data removed - already processed by model]"
PRUNED_HISTORY_MEDIA_REFERENCE_MARKER: Final = "[media reference removed - already processed by model]"
PRESERVE_RECENT_COMPLETED_TURNS: Final = 3

_S = JS_WHITESPACE_CLASS
_JS_WS_CHARS = _S[1:-1]
_MEDIA_REFERENCE_PATTERNS: Final = (
    re.compile(rf"\[media attached(?:{_S}+[0-9]+/[0-9]+)?:{_S}*[^\]]+\]", re.IGNORECASE | re.ASCII),
    re.compile(rf"\[Image:{_S}*source:{_S}*[^\]]+\]", re.IGNORECASE | re.ASCII),
    re.compile(rf"\bmedia://inbound/[^\]{_JS_WS_CHARS}/\\]+", re.ASCII),
)

# Every pattern above needs a "[" or "media://inbound/": a text with neither is left as it is, found by two
# substring scans instead of three substitutions (the cleanup looks at every older message at every call).
_MEDIA_REFERENCE_LEAD: Final = "media://inbound/"


_NAMED_MEDIA: Final = re.compile(r"\[(?:media|image)", re.IGNORECASE | re.ASCII)
"""How the first two patterns begin: a "[" then "media" or "image", ASCII letters in any case."""


def may_name_media(text: str) -> bool:
    """Whether :func:`scrub_media_references` could change ``text`` (an over-approximation): it holds
    ``[media`` or ``[image`` in any case of their ASCII letters (how the first two patterns begin), or
    ``media://inbound/`` (the third's literal). A replay asks it of every message once, to skip the
    cleanup of histories that hold nothing it could change; a search for the bracket and one regex is
    about twice as fast as lower-casing every text."""
    return ("[" in text and _NAMED_MEDIA.search(text) is not None) or _MEDIA_REFERENCE_LEAD in text


def scrub_media_references(text: str) -> str:
    """Replace media attachment markers and ``media://inbound/`` refs with the removal marker."""
    if not may_name_media(text):
        # None of the patterns can match (a tool output holds "[" often, "[media" or "[image" rarely):
        # one search instead of three substitutions, each a miss of the memo below the first time.
        return text
    return _scrub(text)


@lru_cache(maxsize=1 << 14)
def _scrub(text: str) -> str:
    # Memoised: the cleanup scrubs the same older messages at every call of a session (a text's hash
    # is kept by the string, so a hit costs one lookup instead of three substitutions).
    for pattern in _MEDIA_REFERENCE_PATTERNS:
        # A function replacement keeps the marker literal (no backslash processing).
        text = pattern.sub(lambda _m: PRUNED_HISTORY_MEDIA_REFERENCE_MARKER, text)
    return text


def completed_turn_starts(
    messages: Sequence[AgentMessage], *, count_open_turn: bool = True
) -> tuple[int, ...]:
    """Start indexes of completed turns, oldest first.

    A ``user`` message closes the open turn and opens a new one; a ``toolResult`` opens a turn only
    when none is open; an ``assistant`` marks the open turn as replied. 2026.7.1 also counts the last,
    still open turn once it has a reply; 2026.9.6 (``resolvePruneBeforeIndex``) counts only turns a later
    user message closed (``count_open_turn=False``).
    """
    starts: list[int] = []
    current = -1
    replied = False
    for i, message in enumerate(messages):
        if isinstance(message, UserMessage):
            if current >= 0 and replied:
                starts.append(current)
            current = i
            replied = False
        elif isinstance(message, ToolResultMessage):
            if current < 0:
                current = i
                replied = False
        elif isinstance(message, AssistantMessage) and current >= 0:
            replied = True
    if count_open_turn and current >= 0 and replied:
        starts.append(current)
    return tuple(starts)


def _prune_block(block: ContentBlock) -> ContentBlock:
    if isinstance(block, TextContent):
        scrubbed = scrub_media_references(block.text)
        return block if scrubbed == block.text else msgspec.structs.replace(block, text=scrubbed)
    raw = block.to_json()
    if not isinstance(raw, dict):
        return block
    if raw.get("type") == "image":
        return text_block(PRUNED_HISTORY_IMAGE_MARKER)
    text = raw.get("text")
    if raw.get("type") == "text" and isinstance(text, str):
        scrubbed = scrub_media_references(text)
        return block if scrubbed == text else RawBlock({**raw, "text": scrubbed})
    return block


def _prune_content(content: Content | None) -> Content | None:
    if isinstance(content, str):
        scrubbed = scrub_media_references(content)
        return None if scrubbed == content else scrubbed
    if not isinstance(content, tuple):
        return None
    blocks = tuple(_prune_block(b) for b in content)
    return None if all(a is b for a, b in zip(blocks, content, strict=True)) else blocks


def prune_processed_history_images(
    messages: Sequence[AgentMessage], *, count_open_turn: bool = True
) -> tuple[AgentMessage, ...] | None:
    """The replay view with already-processed images and media references removed.

    Args:
        messages: The history the model would see.
        count_open_turn: False for 2026.9.6's turn count (see :func:`completed_turn_starts`).

    Returns:
        None when nothing changes (three or fewer completed turns, or nothing to scrub), else the
        full list with changed messages replaced.
    """
    starts = completed_turn_starts(messages, count_open_turn=count_open_turn)
    if len(starts) <= PRESERVE_RECENT_COMPLETED_TURNS:
        return None
    cutoff = starts[-PRESERVE_RECENT_COMPLETED_TURNS]
    out = list(messages)
    changed = False
    for i in range(cutoff):
        message = messages[i]
        if not isinstance(message, UserMessage | ToolResultMessage):
            continue
        content = _prune_content(message.content)
        if content is None:
            continue
        out[i] = msgspec.structs.replace(message, content=content)
        changed = True
    return tuple(out) if changed else None


def cleaned_message(message: AgentMessage) -> AgentMessage:
    """``message`` as history image cleanup sends it once it is older than the preserved turns (the message
    itself when the cleanup leaves it as it is): what :func:`prune_processed_history_images` puts in its
    place. The cleanup is idempotent: its markers match none of the patterns it scrubs."""
    if not isinstance(message, UserMessage | ToolResultMessage):
        return message
    content = _prune_content(message.content)
    return message if content is None else msgspec.structs.replace(message, content=content)


def cleanup_changes(message: AgentMessage) -> bool:
    """Whether history image cleanup changes ``message`` once it is older than the preserved turns."""
    return (
        isinstance(message, UserMessage | ToolResultMessage) and _prune_content(message.content) is not None
    )
