"""The ai-profile token estimate: JSON bytes of content plus role bytes, halved, plus 8 per message.

Upstream: ``bkywksj/ai-profile`` 0.1.7 ``crates/ai-profile/src/history.rs`` (``message_tokens``,
``estimate_tokens``, private ``CHARS_PER_TOKEN = 2``). Everything is ``u32``: one message's estimate
and the sum both saturate at 2**32 - 1.

Deliberate divergences: none. The byte count relies on :mod:`.compact_json`, whose module docstring
lists what cannot be reproduced for floats.
"""

from __future__ import annotations

from collections.abc import Iterable

from simulator.jsonvalue import JSON
from simulator.runtimes.ai_profile.compact_json import compact_json_bytes
from simulator.runtimes.ai_profile.messages import Message

U32_MAX = 2**32 - 1
CHARS_PER_TOKEN = 2
PER_MESSAGE_TOKENS = 8


def message_tokens(message: Message) -> int:
    """Estimate one message.

    Args:
        message: The message.

    Returns:
        ``min((content JSON bytes + role bytes) // 2 + 8, 2**32 - 1)``.
    """
    return json_message_tokens(message.role, message.content_json())


def json_message_tokens(role: str, content: JSON) -> int:
    """:func:`message_tokens` of a message with this role and content JSON (before it is a ``Message``)."""
    role_bytes = len(role) if role.isascii() else len(role.encode("utf-8", "surrogatepass"))
    return min((compact_json_bytes(content) + role_bytes) // CHARS_PER_TOKEN + PER_MESSAGE_TOKENS, U32_MAX)


def estimate_tokens(messages: Iterable[Message]) -> int:
    """Estimate a list of messages.

    Args:
        messages: The messages (an empty list gives 0).

    Returns:
        The sum of :func:`message_tokens`, saturating at 2**32 - 1.
    """
    return saturating_sum(message_tokens(message) for message in messages)


def saturating_sum(values: Iterable[int]) -> int:
    """Sum non-negative ``u32`` values the way ``u32::saturating_add`` would."""
    # Python ints never wrap, so clamping once at the end equals clamping at every step.
    return min(sum(values), U32_MAX)
