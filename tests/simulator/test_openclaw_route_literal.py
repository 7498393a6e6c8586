"""Which OpenClaw routes get cache-TTL pruning and which drop thinking blocks, branch by branch."""

from __future__ import annotations

from simulator.runtimes.openclaw.route import (
    ModelRoute,
    classify_openai_base_url,
    drops_thinking_blocks,
    is_cache_ttl_eligible,
    should_preserve_thinking_blocks,
)


def test_openai_base_urls_are_classified_like_classify_openai_base_url():
    cases = {
        None: "unresolved",
        "  ": "unresolved",
        "ftp://api.openai.com": "invalid",
        "https://": "invalid",
        "https://user@api.openai.com/v1": "invalid",
        "https://api.openai.com": "platform",
        "https://api.openai.com/v1": "platform",
        "https://api.openai.com/v1/": "platform",
        "https://API.OpenAI.com./v1": "platform",
        "https://api.openai.com/v2": "invalid",
        "http://api.openai.com/v1": "invalid",
        "https://api.openai.com:443/v1": "invalid",
        "https://api.openai.com/v1?x=1": "invalid",
        "https://api.openai.com/v1#f": "invalid",
        "https://chatgpt.com/backend-api": "chatgpt",
        "https://chatgpt.com/backend-api/codex/responses/": "chatgpt",
        "https://chatgpt.com/backend-api/other": "invalid",
        "https://chatgpt.com/v1": "invalid",
        "https://example.com/v1": "custom",
        "http://localhost:8080": "custom",
    }
    assert {url: classify_openai_base_url(url) for url in cases} == cases


def eligible(
    provider: str, model: str, api: str | None = None, version: str = "2026.7.1", **extra: object
) -> bool:
    return is_cache_ttl_eligible(ModelRoute(provider, model, api, **extra), version)  # type: ignore[arg-type]


def test_openrouter_is_eligible_for_its_five_model_prefixes_only():
    models = ["anthropic/claude-x", "deepseek/r1", "moonshot/k", "moonshotai/k2", "zai/glm", "openai/gpt-5"]
    assert [eligible(" OpenRouter ", m) for m in models] == [True, True, True, True, True, False]


def test_bedrock_is_eligible_for_claude_models_and_claude_inference_profiles():
    models = [
        "anthropic.claude-3-sonnet",
        "us.anthropic.claude-3-haiku",
        "anthropic/claude-x",
        "meta.llama3",
        "arn:aws:bedrock:us-east-1:1:application-inference-profile/claude-x",
        "arn:aws-cn:bedrock:cn-north-1:1:application-inference-profile/my-claude",
        "arn:aws:bedrock:us-east-1:1:application-inference-profile/llama",
        "arn:aws:s3:us-east-1:1:application-inference-profile/claude",
    ]
    assert [eligible("amazon-bedrock", m) for m in models] == [
        True,
        True,
        True,
        False,
        True,
        True,
        False,
        False,
    ]
    assert eligible("amazon-bedrock", "meta.llama3", "anthropic-messages") is False


def test_the_anthropic_family_kilocode_and_google_caching_are_eligible():
    assert eligible("anthropic", "any") and eligible("Anthropic-Vertex", "any")
    assert eligible("proxy", "any", "anthropic-messages")
    assert eligible("kilocode", "anthropic/claude") and not eligible("kilocode", "openai/gpt")
    assert eligible("google", "gemini-2.5-pro", "google-generative-ai")
    assert eligible("google", "gemini-3-flash", "google-generative-ai")
    assert not eligible("google", "gemini-2.0-flash", "google-generative-ai")
    assert not eligible("google", "gemini-2.5-pro", "openai-completions")


def test_direct_openai_is_eligible_only_in_2026_9_6_by_cache_key_support_or_base_url():
    platform = "https://api.openai.com/v1"
    assert not eligible("openai", "gpt", base_url=platform, supports_prompt_cache_key=True)
    assert eligible(
        "openai", "gpt", version="2026.9.6", base_url="https://x.example", supports_prompt_cache_key=True
    )
    assert not eligible(
        "openai", "gpt", version="2026.9.6", base_url=platform, supports_prompt_cache_key=False
    )
    urls = [platform, "https://chatgpt.com/backend-api", "https://x.example", None]
    assert [eligible("openai", "gpt", version="2026.9.6", base_url=u) for u in urls] == [
        True,
        True,
        False,
        False,
    ]


def test_claude_4_and_later_keep_their_thinking_blocks():
    models = [
        "gpt-5",
        "claude-3-7-sonnet",
        "claude-opus-4-1",
        "Claude-Sonnet-4",
        "claude-haiku-4",
        "claude-fable-5",
    ]
    assert [should_preserve_thinking_blocks(m) for m in models] == [False, False, True, True, True, True]
    assert [
        should_preserve_thinking_blocks(m) for m in ("claude-5", "claude-9x", "claude-10", "claude-4")
    ] == [
        True,
        True,
        True,
        False,
    ]


def test_only_anthropic_routes_of_older_claude_models_and_copilot_claude_drop_thinking():
    routes = [
        ModelRoute("github-copilot", "Claude-Sonnet-4"),
        ModelRoute("github-copilot", "gpt-5"),
        ModelRoute(" Anthropic ", "claude-3-7-sonnet"),
        ModelRoute("anthropic", "claude-sonnet-4"),
        ModelRoute("anthropic-vertex", "claude-3-haiku"),
        ModelRoute("anthropic", "gpt-5"),
        ModelRoute("openrouter", "anthropic/claude-3-haiku"),
    ]
    assert [drops_thinking_blocks(r) for r in routes] == [True, False, True, False, True, False, False]


def test_eligibility_is_judged_as_2026_7_1_unless_a_version_is_given():
    assert is_cache_ttl_eligible(ModelRoute("openai", "gpt-5", supports_prompt_cache_key=True)) is False
