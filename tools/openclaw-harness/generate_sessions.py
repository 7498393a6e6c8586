"""Generates the sessions that harness.mjs replays through the real OpenClaw dists.

Deterministic (fixed seeds). Each session is a whole conversation: messages in OpenClaw's native shape,
the attempts (runs) with the clock time of each model call and of the reply's end, recorded
`openclaw.cache-ttl` markers, the model route and the `agents.defaults` config. Coverage, by design:
images (user and tool results), media references, thinking blocks (with signatures, redacted), recorded
markers (matching and for another model), TTL-edge gaps (299,999 / 300,000 / 300,001 ms, 1 h), allow/deny
globs, keepLastAssistants 0-3, Anthropic smart defaults (mode cache-ttl, ttl 1h), ttl "0", hard clear
off, small windows where the tool-result context guard truncates or overflows, and several providers.

Usage: python generate_sessions.py > sessions.json
"""

from __future__ import annotations

import json
import random
import sys

TTL_EDGES = (299_999, 300_000, 300_001, 3_600_000, 3_599_999, 10_000, 60_000, 900_000)

ANTHROPIC_URL = "https://api.anthropic.com"
OPENAI_URL = "https://api.openai.com/v1"
CODEX_URL = "https://chatgpt.com/backend-api"
MESSAGES = "anthropic-messages"
MODELS = (
    {"id": "claude-sonnet-4-6", "provider": "anthropic", "api": MESSAGES, "baseUrl": ANTHROPIC_URL},
    {"id": "claude-3-7-sonnet-20250219", "provider": "anthropic", "api": MESSAGES, "baseUrl": ANTHROPIC_URL},
    {"id": "gpt-5.4", "provider": "openai", "api": "openai-responses", "baseUrl": OPENAI_URL},
    {"id": "gpt-5.4", "provider": "openai-codex", "api": "openai-codex-responses", "baseUrl": CODEX_URL},
    {"id": "gemini-2.5-pro", "provider": "google", "api": "google-generative-ai"},
)

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
MEDIA_REFS = (
    "[media attached: media://inbound/photo-{n}.png]",
    "[media attached 1/2: /var/openclaw/media/{n}.jpg]",
    "[Image: source: /tmp/screens/{n}.png]",
    "see media://inbound/clip{n}/frame.png please",
)
TOOLS = ("exec", "read", "browser", "web_fetch", "Exec_2", "memory_search")
WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta")
WORDS += ("iota", "kappa", "lambda", "mu", "你好", "世界", "café")


def _text(rng: random.Random, size: int) -> str:
    out: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS)
        out.append(word)
        length += len(word) + 1
        if rng.random() < 0.08:
            out.append("\n")
    return " ".join(out)[:size]


def _settings(rng: random.Random, variant: int) -> dict[str, object]:
    kind = variant % 9
    if kind == 0:
        return {"mode": "cache-ttl"}
    if kind == 1:  # Anthropic smart defaults as applyAnthropicConfigDefaults writes them
        return {"mode": "cache-ttl", "ttl": "1h"}
    if kind == 2:
        return {"mode": "cache-ttl", "keepLastAssistants": rng.choice((0, 1, 2)), "softTrimRatio": 0.1}
    if kind == 3:
        return {
            "mode": "cache-ttl",
            "tools": {"allow": ["ex*", "read"], "deny": ["exec"]},
            "minPrunableToolChars": 0,
        }
    if kind == 4:
        return {"mode": "cache-ttl", "tools": {"deny": ["browser", "web_*"]}, "keepLastAssistants": 1}
    if kind == 5:
        return {"mode": "cache-ttl", "ttl": "0"}
    if kind == 6:
        return {
            "mode": "cache-ttl",
            "hardClear": {"enabled": False},
            "softTrim": {"maxChars": 800, "headChars": 200, "tailChars": 100},
            "keepLastAssistants": 0,
        }
    if kind == 7:
        return {
            "mode": "cache-ttl",
            "softTrimRatio": 0.05,
            "hardClearRatio": 0.1,
            "minPrunableToolChars": 1000,
            "keepLastAssistants": rng.choice((0, 1, 2, 3)),
            "hardClear": {"placeholder": "  [cleared]  "},
        }
    return {"mode": "off"}


def _user(rng: random.Random, now: int, n: int) -> dict[str, object]:
    roll = rng.random()
    text = _text(rng, rng.randint(20, 400))
    if roll < 0.25:
        text = f"{MEDIA_REFS[n % len(MEDIA_REFS)].format(n=n)} {text}"
        return {"role": "user", "content": text, "timestamp": now}
    if roll < 0.45:
        blocks: list[dict[str, object]] = [{"type": "text", "text": text}]
        blocks.append({"type": "image", "data": PNG, "mimeType": "image/png"})
        if rng.random() < 0.5:
            blocks.append({"type": "text", "text": MEDIA_REFS[(n + 1) % len(MEDIA_REFS)].format(n=n)})
        return {"role": "user", "content": blocks, "timestamp": now}
    return {"role": "user", "content": text, "timestamp": now}


def _assistant(
    rng: random.Random, model: dict[str, str], now: int, tool_ids: list[tuple[str, str]], thinking: bool
) -> dict[str, object]:
    content: list[dict[str, object]] = []
    if thinking:
        if rng.random() < 0.15:
            content.append(
                {"type": "redacted_thinking", "data": _text(rng, 200), "thinkingSignature": "sig" * 10}
            )
        else:
            content.append(
                {
                    "type": "thinking",
                    "thinking": _text(rng, rng.randint(100, 1500)),
                    "thinkingSignature": "s" * 64,
                }
            )
    if not tool_ids or rng.random() < 0.5:
        content.append({"type": "text", "text": _text(rng, rng.randint(10, 800))})
    for call_id, name in tool_ids:
        content.append(
            {"type": "toolCall", "id": call_id, "name": name, "arguments": {"cmd": _text(rng, 40)}}
        )
    return {
        "role": "assistant",
        "content": content,
        "api": model["api"],
        "provider": model["provider"],
        "model": model["id"],
        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0},
        "stopReason": "toolUse" if tool_ids else "stop",
        "timestamp": now,
    }


TAILS = (
    '\nTraceback (most recent call last):\n  File "run.py", line 3\nValueError: build failed',
    '\n{"status": "ok", "files": 12}',
    "\nTotal: 42 files checked",
)


def _tool_result(
    rng: random.Random, call_id: str, name: str, now: int, scale: int, big: bool = False
) -> dict[str, object]:
    roll = rng.random()
    content: list[dict[str, object]]
    if big and roll >= 0.15:
        # Results just under the 4,000-char soft-trim size, many of them: hard clear territory.
        content = [{"type": "text", "text": _text(rng, rng.randint(2_500, 3_900))}]
    elif roll < 0.15:
        content = [
            {"type": "text", "text": _text(rng, 300)},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
        ]
    elif roll < 0.25:
        content = [
            {"type": "text", "text": f"saved media://inbound/out{rng.randint(1, 99)}.png " + _text(rng, 200)}
        ]
    else:
        text = _text(rng, rng.randint(scale // 10, scale))
        if rng.random() < 0.3:  # an error, JSON or summary tail (kept by 2026.9.6's head+tail cut)
            text += rng.choice(TAILS)
        content = [{"type": "text", "text": text}]
        if rng.random() < 0.2:
            content.append({"type": "text", "text": _text(rng, rng.randint(100, scale // 2))})
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": content,
        "isError": False,
        "timestamp": now,
    }


def _width(rng: random.Random, big: bool) -> int:
    """How many tool calls one assistant step makes."""
    return rng.randint(2, 4) if big else rng.randint(1, 2)


def session(seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    model = dict(MODELS[seed % len(MODELS)])
    big = seed % 9 == 8
    window = 64_000 if big else rng.choice((8_000, 16_000, 32_000))
    model["contextWindow"] = window  # type: ignore[assignment]
    model["maxTokens"] = 8192  # type: ignore[assignment]
    scale = max(1_500, window * rng.choice((1, 2, 4, 7)) // 10)
    pruning = _settings(rng, seed // len(MODELS) + seed)
    thinking = rng.random() < 0.6
    now = 1_780_000_000_000 + seed * 10_000_000
    markers: list[dict[str, object]] = []
    marker_kind = seed % 4
    first_gap = rng.choice(TTL_EDGES)
    if marker_kind in (1, 2):
        markers.append({"timestamp": now - first_gap, "provider": model["provider"], "modelId": model["id"]})
    if marker_kind == 2:  # a later marker of another model must be ignored
        markers.append({"timestamp": now - 5, "provider": "anthropic", "modelId": "claude-opus-4-1"})
    if marker_kind == 3:  # provider/model matched case-insensitively
        markers.append(
            {
                "timestamp": now - first_gap,
                "provider": model["provider"].upper(),
                "modelId": model["id"].upper(),
            }
        )

    messages: list[dict[str, object]] = []
    attempts: list[dict[str, object]] = []
    if rng.random() < 0.2:  # a bootstrap tool read before the first user message
        messages.append(_tool_result(rng, "boot", "read", now - 1, scale))
    tool_no = 0
    for turn in range(rng.randint(14, 18) if big else rng.randint(4, 9)):
        messages.append(_user(rng, now, turn))
        calls: list[dict[str, object]] = []
        call_time = now + rng.randint(1, 50)
        for step in range(rng.randint(0, 3) + 1):
            calls.append({"now": call_time, "messageCount": len(messages)})
            stream_ms = rng.choice((800, 10_000, 45_000))
            last = step == 3 or rng.random() < 0.35
            tool_ids = (
                [] if last else [(f"call_{tool_no + k}", rng.choice(TOOLS)) for k in range(_width(rng, big))]
            )
            tool_no += len(tool_ids)
            messages.append(_assistant(rng, model, call_time, tool_ids, thinking))
            call_time += stream_ms
            for call_id, name in tool_ids:
                messages.append(_tool_result(rng, call_id, name, call_time, scale, big))
                call_time += rng.randint(5, 2_000)
            if last:
                break
        ended_at = call_time + rng.randint(0, 30)  # Date.now() once the reply finished and was written
        attempts.append({"calls": calls, "endedAt": ended_at})
        now = ended_at + rng.choice(TTL_EDGES)
    config: dict[str, object] = {"agents": {"defaults": {"contextPruning": pruning}}}
    # Route facts 2026.9.6 reads: auth kind (server-side tool clearing needs an API key), provider-side
    # compaction opt-in/out, a model entry's contextTokens below its window.
    auth = "oauth" if seed % 7 == 3 else "api_key"
    extra_params: dict[str, object] = {}
    if model["provider"] == "anthropic" and seed % 3 == 0:
        extra_params["anthropicServerCompaction"] = True
    if model["provider"] == "openai" and seed % 4 == 1:
        extra_params["responsesServerCompaction"] = False
    if seed % 6 == 5:
        model["contextTokens"] = window // 2  # type: ignore[assignment]
    return {
        "name": f"generated-{seed:03d}-{model['provider']}-{model['id']}",
        "model": model,
        "auth": auth,
        "extraParams": extra_params,
        "config": config,
        "markers": markers,
        "messages": messages,
        "attempts": attempts,
    }


def main() -> None:
    sessions = [session(seed) for seed in range(int(sys.argv[1]) if len(sys.argv) > 1 else 90)]
    json.dump(sessions, sys.stdout, indent=None, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
