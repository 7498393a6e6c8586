"""ZeroClaw's token estimate (``agent/history.rs``) and PR 9379's image-marker charging.

Master 15d28660: every message costs ``ceil(utf8_bytes(content) / 4) + 4``; the role is not counted
and ``[IMAGE:...]`` markers are plain text. The system floor is the same sum over every ``system``
message wherever it sits.

PR 9379 (head 1d9153f3): the raw estimate strips loadable image markers (``parse_image_markers``) and
charges nothing for them; ``estimate_prepared_history_tokens`` charges only the images multimodal
preparation actually sends: base64 data URI ``ceil(len(payload) / 4)``, ``http(s)`` URL 1000, local
file ``ceil(size_bytes / 3)``, missing file 1000.

Deliberate divergences: local file sizes are passed in (``image_sizes``) instead of read from disk so
the function stays pure. Where the PR is silent this module assumes a message whose markers are all
placeholders (``[IMAGE:...]``) keeps the master formula, and that windows paths count as loadable (as
in later upstream versions); no vector covers PR 9379, so both are unverified.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from simulator.runtimes.zeroclaw.messages import SYSTEM, ChatMessage

IMAGE_MARKER_PREFIX = "[IMAGE:"
UNSIZABLE_IMAGE_TOKENS = 1000
"""PR 9379 charge for an image reference whose size cannot be known (URL or missing file)."""


def _ceil_div(n: int, d: int) -> int:
    return -(-n // d)


def estimate_text_tokens(text: str) -> int:
    """Cost of one message body: ``ceil(utf8_bytes / 4) + 4``."""
    if text.isascii():
        return _ceil_div(len(text), 4) + 4  # one byte per character: skip the encode
    return _ceil_div(len(text.encode("utf-8")), 4) + 4


@lru_cache(maxsize=1 << 16)
def estimate_message_tokens(message: ChatMessage) -> int:
    """Master estimate of one message (role not counted).

    Memoised: trims re-estimate the same held messages before every model call, and a message is
    immutable, so its size never changes.
    """
    return estimate_text_tokens(message.content)


def estimate_history_tokens(history: Iterable[ChatMessage]) -> int:
    """Master ``estimate_history_tokens``: sum of per-message estimates, 0 for an empty history.

    Args:
        history: Provider-facing messages.

    Returns:
        Estimated tokens.
    """
    return sum(estimate_message_tokens(m) for m in history)


def estimate_system_floor_tokens(history: Iterable[ChatMessage]) -> int:
    """``estimate_system_floor_tokens``: the estimate of every ``system`` message, wherever it sits."""
    return sum(estimate_message_tokens(m) for m in history if m.role == SYSTEM)


@dataclass(frozen=True, slots=True)
class ParsedImageMarkers:
    """Result of ``parse_image_markers``: the text with loadable markers removed, and the references."""

    text: str
    references: tuple[str, ...]


def _is_windows_path(candidate: str) -> bool:
    return (
        len(candidate) >= 3
        and candidate[0].isascii()
        and candidate[0].isalpha()
        and candidate[1] == ":"
        and candidate[2] in "\\/"
    )


def is_loadable_image_reference(candidate: str) -> bool:
    """Whether a marker payload names something the multimodal loader would try to fetch."""
    return (
        candidate.startswith(("/", "http://", "https://", "data:"))
        or _is_windows_path(candidate)
        or (candidate.startswith("\\\\") and len(candidate) > 2 and candidate[2] not in "?.")
    )


def parse_image_markers(content: str) -> ParsedImageMarkers:
    """Split ``[IMAGE:ref]`` markers out of message text (PR 9379's ``parse_image_markers``).

    Placeholder markers whose payload is not loadable (``[IMAGE:...]``) stay in the text; an
    unterminated marker is copied through verbatim. The cleaned text is trimmed.

    Args:
        content: Message content.

    Returns:
        The cleaned text and the loadable references in order.
    """
    cleaned: list[str] = []
    refs: list[str] = []
    cursor = 0
    while True:
        start = content.find(IMAGE_MARKER_PREFIX, cursor)
        if start < 0:
            break
        cleaned.append(content[cursor:start])
        payload_start = start + len(IMAGE_MARKER_PREFIX)
        end = content.find("]", payload_start)
        if end < 0:
            cleaned.append(content[start:])
            cursor = len(content)
            break
        candidate = content[payload_start:end].strip()
        if candidate and is_loadable_image_reference(candidate):
            refs.append(candidate)
        else:
            cleaned.append(content[start : end + 1])
        cursor = end + 1
    cleaned.append(content[cursor:])
    return ParsedImageMarkers("".join(cleaned).strip(), tuple(refs))


def estimate_message_tokens_pr9379(message: ChatMessage) -> int:
    """PR 9379 raw estimate of one message: loadable image markers cost nothing here."""
    if IMAGE_MARKER_PREFIX not in message.content:
        return estimate_message_tokens(message)
    parsed = parse_image_markers(message.content)
    if not parsed.references:
        return estimate_message_tokens(message)
    return estimate_text_tokens(parsed.text)


def estimate_history_tokens_pr9379(history: Iterable[ChatMessage]) -> int:
    """PR 9379 raw ``estimate_history_tokens``: image markers stripped and not charged."""
    return sum(estimate_message_tokens_pr9379(m) for m in history)


def image_reference_tokens(reference: str, image_sizes: Mapping[str, int]) -> int:
    """PR 9379 charge for one image that preparation actually sends.

    Args:
        reference: The marker payload (data URI, URL or local path).
        image_sizes: Byte sizes of local files that exist; a path absent here is a missing file.

    Returns:
        Estimated tokens for the image.
    """
    if reference.startswith("data:"):
        header, sep, payload = reference.partition(",")
        if sep and ";base64" in header:
            return _ceil_div(len(payload.strip()), 4)
        return UNSIZABLE_IMAGE_TOKENS
    if reference.startswith(("http://", "https://")):
        return UNSIZABLE_IMAGE_TOKENS
    size = image_sizes.get(reference)
    if size is None:
        return UNSIZABLE_IMAGE_TOKENS
    return _ceil_div(size, 3)


def estimate_prepared_history_tokens(
    history: Sequence[ChatMessage], image_sizes: Mapping[str, int] | None = None
) -> int:
    """PR 9379 ``estimate_prepared_history_tokens``: raw estimate plus a charge per sent image.

    Call it only on the *prepared* history (after capped, failed or stale images were removed), so
    images are charged only where they are sent.

    Args:
        history: The prepared provider-facing messages.
        image_sizes: Byte sizes of existing local image files, keyed by the marker payload.

    Returns:
        Estimated tokens including images.
    """
    sizes = image_sizes or {}
    total = 0
    for message in history:
        total += estimate_message_tokens_pr9379(message)
        if IMAGE_MARKER_PREFIX in message.content:
            for ref in parse_image_markers(message.content).references:
                total += image_reference_tokens(ref, sizes)
    return total
