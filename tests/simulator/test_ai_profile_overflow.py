"""is_context_overflow: statuses, ASCII-only lowercasing and the output-cap exclusion (spec §6)."""

from __future__ import annotations

from simulator.runtimes.ai_profile import CONTEXT_OVERFLOW_PATTERNS, is_context_overflow


def test_413_is_always_an_overflow_even_with_an_empty_body():
    assert is_context_overflow(413, "")
    assert is_context_overflow(413, "rate limited")


def test_only_400_and_422_bodies_are_examined():
    body = "This model's maximum context length is 8192 tokens"
    assert is_context_overflow(400, body)
    assert is_context_overflow(422, body)
    for status in (200, 401, 403, 404, 429, 500, 502):
        assert not is_context_overflow(status, body)


def test_lowercasing_is_ascii_only():
    assert is_context_overflow(400, "TOO MANY TOKENS")
    assert not is_context_overflow(400, "too many to\u212aens")


def test_an_output_cap_complaint_is_not_an_overflow():
    assert not is_context_overflow(400, "max_tokens is too large: too many tokens")
    assert not is_context_overflow(400, "max_completion_tokens: too many tokens")
    assert is_context_overflow(400, "max tokens: too many tokens")


def test_any_input_side_word_anywhere_lifts_the_exclusion():
    assert is_context_overflow(400, '{"input": 1, "error": "max_tokens: too many tokens"}')
    assert is_context_overflow(400, "max_tokens plus prompt: too many tokens")
    assert not is_context_overflow(400, '{"param": "max_tokens"}')


def test_spacing_is_not_normalised_and_vague_phrases_do_not_match():
    for body in ("context-length", "context  length", "contextlength", "reduce the length", "token limit"):
        assert not is_context_overflow(400, body)


def test_provider_phrasings_match():
    bodies = [
        "context_length_exceeded",
        "prompt is too long: 210000 tokens > 200000 maximum",
        "exceeds the maximum number of tokens allowed",
        "exceeded model token limit",
        "Range of input length should be [1, 30720]",
        "请求内容超长",
    ]
    assert all(is_context_overflow(400, body) for body in bodies)
    assert len(CONTEXT_OVERFLOW_PATTERNS) == 18
