"""``is_context_overflow``: does an HTTP error mean "the prompt was too long for the model"?

Upstream: ``bkywksj/ai-profile`` 0.1.7 ``history.rs`` (``is_context_overflow`` and, since 0.1.2, the
public ``CONTEXT_OVERFLOW_PATTERNS``). A raw substring search over the ASCII-lowercased body; no JSON
parsing, so keys count as much as messages.

Deliberate divergences: none. Lowercasing is ASCII-only on purpose (Rust ``to_ascii_lowercase``):
Python's ``str.lower`` would fold e.g. KELVIN SIGN U+212A to ``k`` and match where upstream does not.
"""

from __future__ import annotations

CONTEXT_OVERFLOW_PATTERNS: tuple[str, ...] = (
    "context_length_exceeded",
    "maximum context length",
    "context length",
    "context window",
    "prompt is too long",
    "prompt too long",
    "too many tokens",
    "exceeds the maximum number of tokens",
    "exceeded model token limit",
    "input is too long",
    "input length",
    "input tokens exceed",
    "请求内容过长",
    "超长",
    "输入长度",
    "超过最大长度",
    "上下文长度",
    "超出模型",
)

PAYLOAD_TOO_LARGE = 413
EXAMINED_STATUSES = frozenset({400, 422})
_OUTPUT_CAP_WORDS = ("max_tokens", "max_completion_tokens")
_INPUT_SIDE_WORDS = ("context", "prompt", "input")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lowercase(text: str) -> str:
    """Rust ``str::to_ascii_lowercase``: only A-Z change."""
    return text.translate(_ASCII_LOWER)


def is_context_overflow(status: int, body: str) -> bool:
    """Classify an error response as a context overflow.

    Args:
        status: HTTP status code.
        body: Raw response body.

    Returns:
        ``True`` for any 413; for 400/422, ``True`` when the body names an overflow pattern and is not
        just complaining about the output cap (``max_tokens`` without any of context/prompt/input);
        ``False`` for every other status, 429 included.
    """
    if status == PAYLOAD_TOO_LARGE:
        return True
    if status not in EXAMINED_STATUSES:
        return False
    lowered = ascii_lowercase(body)
    about_output_cap = any(word in lowered for word in _OUTPUT_CAP_WORDS)
    if about_output_cap and not any(word in lowered for word in _INPUT_SIDE_WORDS):
        return False
    return any(pattern in lowered for pattern in CONTEXT_OVERFLOW_PATTERNS)
