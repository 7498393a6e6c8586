"""Provider-side compaction that OpenClaw 2026.9.6 turns on, and where Trimscope marks it firing.

Upstream, ``@openclaw/ai@2026.9.6`` (bundled with openclaw 2026.9.6):

* OpenAI Responses server compaction (``resolveOpenAIResponsesServerCompactionPlan``,
  ``packages/ai/src/transports/openai-responses-payload-policy.ts``): on unless
  ``params.responsesServerCompaction`` is false, for routes that may store responses
  (``allowsResponsesStore``: a Responses API other than the ChatGPT one, provider ``openai``/
  ``azure-openai``/``azure-openai-responses``, a native endpoint: ``api.openai.com``, ``chatgpt.com`` or Azure
  OpenAI hosts, and ``compat.supportsStore`` not false), by default only for provider ``openai``. Threshold
  ``params.responsesCompactThreshold``, else ``max(1000, floor(0.7 * min(contextTokens, contextWindow)))``
  (either one when only one is known), else 80,000 tokens.
* Anthropic ``compact-2026-01-12`` (``resolveAnthropicServerCompactionPlan``): opt-in with
  ``params.anthropicServerCompaction: true``, API key (not OAuth), ``anthropic-messages``, direct Anthropic
  (provider ``anthropic`` at ``api.anthropic.com`` or no base URL). Threshold
  ``max(50000, params.anthropicCompactThreshold ?? floor(0.7 * contextWindow))`` (50,000 when unknown).

The provider compacts on its side when the prompt passes the threshold; OpenClaw only sends the setting.
Trimscope cannot know the summary, so it marks the first call whose estimated prompt (chars / 4, the
runtime's own estimate) reaches the threshold, and models the context after it as one summary message of
a configurable size followed by what came after the compacted prompt.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal
from urllib.parse import urlsplit

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.messages import AgentMessage, OtherMessage
from simulator.runtimes.openclaw.route import ModelRoute

OPENAI_RESPONSES_APIS: Final = (
    "openai-responses",
    "azure-openai-responses",
    "openai-chatgpt-responses",
    "openclaw-openai-responses-transport",
    "openclaw-openai-chatgpt-responses-transport",
    "openclaw-azure-openai-responses-transport",
)
_CHATGPT_APIS: Final = ("openai-chatgpt-responses", "openclaw-openai-chatgpt-responses-transport")
_STORE_PROVIDERS: Final = ("openai", "azure-openai", "azure-openai-responses")
_AZURE_SUFFIXES: Final = (
    ".openai.azure.com",
    ".cognitiveservices.azure.com",
    ".services.ai.azure.com",
    ".api.cognitive.microsoft.com",
)
OPENAI_DEFAULT_THRESHOLD: Final = 80_000
ANTHROPIC_THRESHOLD_MIN: Final = 50_000
DEFAULT_SUMMARY_TOKENS: Final = 2_000

CompactionKind = Literal["openai-responses", "anthropic-compact-2026-01-12"]


@dataclass(frozen=True, slots=True)
class CompactionPlan:
    """Which provider-side compaction the route sends, and its threshold in tokens."""

    kind: CompactionKind
    threshold: int


def positive_integer(value: JSON) -> int | None:
    """``parsePositiveInteger``: a finite positive number (floored) or a strict positive integer string."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
        return math.floor(value)
    if isinstance(value, str) and value.strip().isdigit() and int(value.strip()) > 0:
        return int(value.strip())
    return None


def host_of(base_url: str | None) -> str | None:
    """The lower-cased host of a base URL (scheme optional), or None when there is none."""
    if not base_url or not base_url.strip():
        return None
    text = base_url.strip()
    parsed = urlsplit(text if "://" in text else f"https://{text}")
    return parsed.hostname.lower() if parsed.hostname else None


def _openai_endpoint_native(base_url: str | None) -> bool:
    host = host_of(base_url)
    if host is None:
        return False
    return host in ("api.openai.com", "chatgpt.com") or host.endswith(_AZURE_SUFFIXES)


def openai_compact_threshold(route: ModelRoute) -> int:
    """``resolveOpenAIResponsesCompactThreshold``."""
    tokens, window = route.context_tokens, route.context_window
    budget = min(tokens, window) if tokens and window else (tokens or window)
    return max(1_000, math.floor(budget * 0.7)) if budget else OPENAI_DEFAULT_THRESHOLD


def openai_server_compaction(route: ModelRoute, params: Mapping[str, JSON]) -> CompactionPlan | None:
    """``resolveOpenAIResponsesServerCompactionPlan``."""
    provider = route.provider.strip().lower()
    api = (route.api or "").strip().lower()
    allows_store = (
        api in OPENAI_RESPONSES_APIS
        and api not in _CHATGPT_APIS
        and provider in _STORE_PROVIDERS
        and _openai_endpoint_native(route.base_url)
    )
    configured = params.get("responsesServerCompaction")
    if configured is False or not allows_store or not (configured is True or provider == "openai"):
        return None
    threshold = positive_integer(params.get("responsesCompactThreshold")) or openai_compact_threshold(route)
    return CompactionPlan("openai-responses", threshold)


def anthropic_server_compaction(
    route: ModelRoute, params: Mapping[str, JSON], *, oauth: bool
) -> CompactionPlan | None:
    """``resolveAnthropicServerCompactionPlan``."""
    host = host_of(route.base_url)
    direct = route.provider.strip().lower() == "anthropic" and host in (None, "api.anthropic.com")
    enabled = (
        params.get("anthropicServerCompaction") is True and not oauth and route.api == "anthropic-messages"
    )
    if not (enabled and direct):
        return None
    configured = positive_integer(params.get("anthropicCompactThreshold"))
    window = route.context_window
    base = (
        configured
        if configured is not None
        else (math.floor(window * 0.7) if window else ANTHROPIC_THRESHOLD_MIN)
    )
    return CompactionPlan("anthropic-compact-2026-01-12", max(ANTHROPIC_THRESHOLD_MIN, base))


def compaction_plan(route: ModelRoute, params: Mapping[str, JSON], *, oauth: bool) -> CompactionPlan | None:
    """The provider-side compaction of a route (at most one applies: the APIs differ)."""
    return openai_server_compaction(route, params) or anthropic_server_compaction(route, params, oauth=oauth)


def summary_message(summary_tokens: int) -> AgentMessage:
    """The stand-in for the provider's compaction summary: ``summary_tokens * 4`` characters."""
    return OtherMessage({"role": "compactionSummary", "summary": "." * (summary_tokens * 4)})


def compacted_context(
    messages: Sequence[AgentMessage], compacted_through: int, summary_tokens: int
) -> tuple[AgentMessage, ...]:
    """What later calls send after a compaction of the first ``compacted_through`` messages."""
    return (summary_message(summary_tokens), *messages[compacted_through:])
