"""History and retry budgets of the ai-profile crate.

Upstream: ``bkywksj/ai-profile`` 0.1.7 ``history.rs`` (``OVERHEAD_TOKENS``, ``history_budget``,
``retry_budget``) over ``limits.rs`` (``TokenLimits::input_budget``). All values are ``u32`` and the
subtractions saturate at 0.

Deliberate divergences: none. ``max_output`` is never consulted here, exactly as upstream: callers
pass the ``max_tokens`` they will send (see :meth:`.AiProfileSettings.effective_max_tokens`).
"""

from __future__ import annotations

from collections.abc import Sequence

from simulator.runtimes.ai_profile.estimate import estimate_tokens
from simulator.runtimes.ai_profile.limits import TokenLimits, saturating_sub
from simulator.runtimes.ai_profile.messages import Message

OVERHEAD_TOKENS = 8192


def history_budget(limits: TokenLimits | None, max_tokens: int) -> int | None:
    """Token budget for the history of one request.

    Args:
        limits: The merged limits, or ``None`` when nothing is known.
        max_tokens: The output cap that will be sent with the request.

    Returns:
        ``max(0, context_window - max_tokens - 8192)`` (saturating at each step), or ``None`` when
        ``limits`` is ``None`` or its window is unknown (then nothing is trimmed up front).
    """
    if limits is None:
        return None
    remaining = limits.input_budget(max_tokens)
    if remaining is None:
        return None
    return saturating_sub(remaining, OVERHEAD_TOKENS)


def retry_budget(messages: Sequence[Message]) -> int:
    """Budget for a retry after a context-overflow error: half the current estimate, floored.

    Args:
        messages: The history that was just rejected.

    Returns:
        ``estimate_tokens(messages) // 2``.
    """
    return estimate_tokens(messages) // 2
