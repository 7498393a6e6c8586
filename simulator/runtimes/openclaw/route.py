"""Which model routes get cache-TTL pruning, and which transcript policy drops thinking blocks.

Upstream, openclaw@2026.7.1:

* ``isCacheTtlEligibleProvider`` (``src/agents/embedded-agent-runner/cache-ttl.ts``): a provider plugin's
  ``isCacheTtlEligible`` answer first (in the bundled plugins only OpenRouter has one: model ids starting
  with ``anthropic/``, ``deepseek/``, ``moonshot/``, ``moonshotai/``, ``zai/``), else the Anthropic family
  (``isAnthropicFamilyCacheTtlEligible``: providers ``anthropic``/``anthropic-vertex``,
  ``amazon-bedrock`` with an Anthropic Claude model, or any route whose API is ``anthropic-messages``),
  ``kilocode`` with an ``anthropic/`` model, or Google prompt caching (API ``google-generative-ai``
  with a ``gemini-2.5``/``gemini-3`` model). Direct OpenAI and ``openai-codex`` routes are not eligible
  in 2026.7.1.
* ``resolveTranscriptPolicy`` -> the Anthropic provider's replay policy
  (``buildNativeAnthropicReplayPolicyForModel``, ``provider-replay-helpers``): ``dropThinkingBlocks`` for a
  Claude model unless ``shouldPreserveThinkingBlocks`` (Claude 4 family: ``opus-4``/``sonnet-4``/``haiku-4``/
  ``fable-5``, or ``claude-5``..``claude-9``/two-digit versions); GitHub Copilot Claude models always.

2026.9.6 (``cache-ttl.ts`` ``isCacheTtlEligibleProvider(provider, modelId, modelApi, modelRoute)``) passes the
route's base URL to the plugins, and the OpenAI plugin (``extensions/openai/shared.ts``) now answers: provider
``openai`` is eligible when the model's ``compat.supportsPromptCacheKey`` says so, else when its base URL is
the OpenAI Platform (``https://api.openai.com`` with path ``/``, ``/v1``, ``/v1/``) or a ChatGPT/Codex
backend URL (``https://chatgpt.com/backend-api[/codex][/v1|/responses]``). ``openai-codex`` stays ineligible.

Deliberate divergences: other plugins' replay policies (e.g. Bedrock's hybrid policy, OpenAI-compatible
proxies) are not modelled: they are taken not to drop thinking blocks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal
from urllib.parse import urlsplit

OpenClawVersion = Literal["2026.7.1", "2026.9.6"]
OPENCLAW_VERSIONS: Final[tuple[OpenClawVersion, ...]] = ("2026.7.1", "2026.9.6")

_OPENROUTER_CACHE_TTL_PREFIXES: Final = ("anthropic/", "deepseek/", "moonshot/", "moonshotai/", "zai/")
_BEDROCK_PROFILE_ARN = re.compile(r"^arn:aws(-cn|-us-gov)?:bedrock:")
_OPENAI_PLATFORM_PATHS: Final = ("/", "/v1", "/v1/")
_OPENAI_CHATGPT_PATHS: Final = tuple(
    f"/backend-api{tail}{slash}"
    for tail in ("", "/v1", "/codex", "/codex/v1", "/codex/responses")
    for slash in ("", "/")
)


@dataclass(frozen=True, slots=True)
class ModelRoute:
    """The provider/model an attempt talks to, as OpenClaw sessions record them."""

    provider: str
    model_id: str
    api: str | None = None
    context_window: int | None = None
    context_tokens: int | None = None
    max_tokens: int | None = None
    base_url: str | None = None
    supports_prompt_cache_key: bool | None = None


def classify_openai_base_url(base_url: str | None) -> str:
    """``classifyOpenAIBaseUrl``: ``platform``, ``chatgpt``, ``custom``, ``unresolved`` or ``invalid``."""
    if not base_url or not base_url.strip():
        return "unresolved"
    parsed = urlsplit(base_url.strip())
    if parsed.scheme not in ("http", "https") or not parsed.hostname or parsed.username or parsed.password:
        return "invalid"
    host = parsed.hostname.lower().rstrip(".")
    if host in ("api.openai.com", "chatgpt.com"):
        if parsed.scheme != "https" or parsed.port or parsed.query or parsed.fragment:
            return "invalid"
        path = parsed.path or "/"
        if host == "api.openai.com" and path in _OPENAI_PLATFORM_PATHS:
            return "platform"
        if host == "chatgpt.com" and path in _OPENAI_CHATGPT_PATHS:
            return "chatgpt"
        return "invalid"
    return "custom"


def _is_anthropic_bedrock_model(model_id: str) -> bool:
    normalized = model_id.lower()
    if "anthropic.claude" in normalized or "anthropic/claude" in normalized:
        return True
    if _BEDROCK_PROFILE_ARN.match(normalized) and ":application-inference-profile/" in normalized:
        return "claude" in normalized.split(":application-inference-profile/")[1]
    return False


def is_cache_ttl_eligible(route: ModelRoute, version: OpenClawVersion = "2026.7.1") -> bool:
    """``isCacheTtlEligibleProvider`` for the route in the given OpenClaw version."""
    provider = route.provider.strip().lower()
    model_id = route.model_id.strip().lower()
    if provider == "openrouter":
        return model_id.startswith(_OPENROUTER_CACHE_TTL_PREFIXES)
    if version != "2026.7.1" and provider == "openai":
        if route.supports_prompt_cache_key is not None:
            return route.supports_prompt_cache_key
        return classify_openai_base_url(route.base_url) in ("platform", "chatgpt")
    anthropic_family = (
        provider in ("anthropic", "anthropic-vertex")
        or (provider == "amazon-bedrock" and _is_anthropic_bedrock_model(model_id))
        or (provider != "amazon-bedrock" and route.api == "anthropic-messages")
    )
    google = route.api == "google-generative-ai" and model_id.startswith(("gemini-2.5", "gemini-3"))
    return anthropic_family or (provider == "kilocode" and model_id.startswith("anthropic/")) or google


def should_preserve_thinking_blocks(model_id: str) -> bool:
    """``shouldPreserveThinkingBlocks``: newer Claude models keep their thinking in the replay."""
    normalized = model_id.lower()
    if "claude" not in normalized:
        return False
    if any(tag in normalized for tag in ("fable-5", "opus-4", "sonnet-4", "haiku-4")):
        return True
    return bool(re.search(r"claude-[5-9]", normalized) or re.search(r"claude-\d{2,}", normalized))


def drops_thinking_blocks(route: ModelRoute) -> bool:
    """The transcript policy's ``dropThinkingBlocks`` for the route."""
    provider = route.provider.strip().lower()
    model_id = route.model_id.lower()
    if provider == "github-copilot":
        return "claude" in model_id
    if provider in ("anthropic", "anthropic-vertex"):
        return "claude" in model_id and not should_preserve_thinking_blocks(model_id)
    return False
