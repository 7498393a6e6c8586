"""English Fluent strings ZeroClaw shows around history trimming (``locales/en/cli.ftl``).

Upstream resolves these through Fluent, which may wrap arguments in U+2068/U+2069 isolation marks;
the golden vectors were produced with plain substitution, so these are plain f-strings. The
breadcrumb text is identical in all five locales at master 15d28660.
"""

from __future__ import annotations

BREADCRUMB_TEXT = "[earlier turns omitted to fit the context window]"
"""``history-trim-breadcrumb``."""

REASON_BUDGET = "context token budget exceeded"
"""``history-trim-reason-budget``: token-budget trims and reactive recovery."""

REASON_MESSAGE_CAP = "history message limit exceeded"
"""``history-trim-reason-message-cap``: the structured (ConversationMessage) count cap."""

MULTIMODAL_EXCEEDS_BUDGET_KEY = "history-trim-multimodal-exceeds-budget"
"""Fluent key PR 9379 uses when one image-charged turn alone exceeds the budget."""

TOOL_RESULTS_PREFIX = "[Tool results]"
"""Prefix of the user message carrying prompt-mode tool results (master only)."""


def context_floor_remediation(system_floor: int, budget: int) -> str:
    """``history-trim-floor-exceeds-budget``: the system floor meets or exceeds the budget.

    Args:
        system_floor: Estimated tokens of all system messages.
        budget: The effective context budget in tokens.

    Returns:
        The log-only warning text.
    """
    return (
        f"system prompt and tool definitions ({system_floor} tokens) alone meet or exceed the context "
        f"budget ({budget} tokens); raise [runtime_profiles.<name>] max_context_tokens or reduce the "
        "tool surface by disabling unused integrations"
    )


def only_one_turn_left() -> str:
    """What recovery logs when nothing could be dropped and the floor is not the cause."""
    return "context window exceeded but only the newest turn is left; nothing more can be trimmed"
