"""The ai-profile crate's history trimming and token limits, reproduced in pure Python.

Upstream: ``bkywksj/ai-profile`` (crates.io ``ai-profile``) v0.1.7, ``crates/ai-profile/src/history.rs``
@ b74fe86 and ``crates/ai-profile/src/limits.rs`` @ 8f8c2e4; behaviour as in the shared spec
``spec/ai_profile.md`` and the ``conformance/ai_profile`` vectors.

Deliberate divergences (details in each module's docstring):

* Results carry more than upstream's ``Trimmed``: input indices kept, the re-added first user message,
  whether the fallback ran, and the estimates (for replay views).
* ``caller_retry_loop`` is the documented caller pattern, not a crate function; the round that drops
  nothing is recorded as the last round.
* Floats in content: ``serde_json``'s parse is replayed on Python's shortest text of the float, since
  the original literal is gone after ``json.loads``.

Spec vs vectors: every rule in the spec holds on every vector. The vectors disagree with each other on
one shape: the upstream ``caller_retry_loop`` case expects an extra ``estimate_before`` key that the
generated cases do not have (see ``simulator/conformance/ai_profile_adapters.py``).
"""

from __future__ import annotations

from simulator.runtimes.ai_profile.budget import OVERHEAD_TOKENS, history_budget, retry_budget
from simulator.runtimes.ai_profile.compact_json import dumps_compact
from simulator.runtimes.ai_profile.estimate import estimate_tokens, json_message_tokens, message_tokens
from simulator.runtimes.ai_profile.limits import (
    LimitSource,
    TokenLimits,
    limit_source_parse,
    merge_limits,
    parse_model_limits,
    serialize_limits,
)
from simulator.runtimes.ai_profile.messages import Block, Message, OtherContent, messages_from_json
from simulator.runtimes.ai_profile.overflow import CONTEXT_OVERFLOW_PATTERNS, is_context_overflow
from simulator.runtimes.ai_profile.retry import RetryAttempt, RetryLoopResult, caller_retry_loop
from simulator.runtimes.ai_profile.settings import AiProfileSettings
from simulator.runtimes.ai_profile.trim import TrimResult, first_user_index, trim_history

__all__ = [
    "CONTEXT_OVERFLOW_PATTERNS",
    "OVERHEAD_TOKENS",
    "AiProfileSettings",
    "Block",
    "LimitSource",
    "Message",
    "OtherContent",
    "RetryAttempt",
    "RetryLoopResult",
    "TokenLimits",
    "TrimResult",
    "caller_retry_loop",
    "dumps_compact",
    "estimate_tokens",
    "first_user_index",
    "history_budget",
    "is_context_overflow",
    "limit_source_parse",
    "merge_limits",
    "json_message_tokens",
    "message_tokens",
    "messages_from_json",
    "parse_model_limits",
    "retry_budget",
    "serialize_limits",
    "trim_history",
]
