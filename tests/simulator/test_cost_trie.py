"""The cache model's prefix trie names two prefixes alike exactly when their fingerprints agree.

Requests are drawn from a tiny alphabet, so they branch off, return to and extend each other's runs at
every depth (Hypothesis); the trie's node ids are checked against the prefixes' fingerprint tuples.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.cost.cache import Segment, SegmentHistory, _Trie, common_length

ALPHABET = "abc"


def _segment(fingerprint: str) -> Segment:
    return Segment(fingerprint, len(fingerprint))


requests = st.lists(st.lists(st.sampled_from(ALPHABET), max_size=12), min_size=1, max_size=30)


@settings(max_examples=300, deadline=None)
@given(requests, st.booleans())
def test_node_ids_are_equal_exactly_when_the_prefixes_are(drawn: list[list[str]], shared_histories: bool):
    trie = _Trie()
    names: dict[tuple[str, ...], int] = {}
    history: SegmentHistory | None = None
    for fingerprints in drawn:
        segments = [_segment(f) for f in fingerprints]
        if shared_histories and history is not None and history.starts(segments):
            history.extend(segments[len(history) :])
            sent = history.prefix(len(segments))
        else:
            history = SegmentHistory(segments)
            sent = history.prefix(len(segments))
        chain, cum = trie.walk(sent if shared_histories else tuple(segments))
        assert len(chain) == len(cum) == len(fingerprints)
        for i, node in enumerate(chain):
            prefix = tuple(fingerprints[: i + 1])
            assert names.setdefault(prefix, node) == node, prefix
            assert cum[i] == sum(len(f) for f in prefix)
    # Distinct prefixes got distinct ids.
    assert len(set(names.values())) == len(names)


def test_a_request_that_returns_to_an_earlier_branch_finds_its_nodes():
    trie = _Trie()
    first, _ = trie.walk(tuple(_segment(f) for f in "abcd"))
    first = list(first)
    trie.walk(tuple(_segment(f) for f in "abx"))
    again, _ = trie.walk(tuple(_segment(f) for f in "abcde"))
    assert again[:4] == first
    assert again[4] not in first
    assert trie.kept == 2  # shared with the request before it: "ab"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(ALPHABET), max_size=80),
    st.lists(st.sampled_from(ALPHABET), max_size=80),
    st.integers(min_value=0, max_value=100),
)
def test_common_length_is_the_longest_common_prefix(a: list[str], b: list[str], limit: int):
    n = min(len(a), len(b), limit)
    expected = next((i for i in range(n) if a[i] != b[i]), n)
    segments = {f: _segment(f) for f in ALPHABET}
    assert common_length([segments[f] for f in a], [segments[f] for f in b], n) == expected


def test_common_length_finds_a_difference_deep_in_a_long_shared_run():
    run = [_segment(f"m{i}") for i in range(1000)]
    other = [*run[:777], _segment("x"), *run[778:]]
    assert common_length(run, other, 1000) == 777
    assert common_length(run, list(run), 1000) == 1000


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_runs_common_prefix_with_a_request_is_the_longest_one(data: st.DataObject):
    from simulator.cost.cache import _common_prefix

    a = data.draw(st.lists(st.sampled_from("ab"), min_size=1, max_size=120))
    b = data.draw(st.lists(st.sampled_from("ab"), min_size=1, max_size=120))
    i = data.draw(st.integers(min_value=0, max_value=len(a) - 1))
    j = data.draw(st.integers(min_value=0, max_value=len(b) - 1))
    b[j] = a[i]  # the walk only follows a run from a node that agrees
    n = min(len(a) - i, len(b) - j)
    assert _common_prefix(a, i, b, j) == next((k for k in range(n) if a[i + k] != b[j + k]), n)


def test_a_long_agreement_is_found_to_its_end():
    from simulator.cost.cache import _common_prefix

    run = [f"m{k}" for k in range(500)]
    assert _common_prefix(run, 3, [*run[3:300], "x"], 0) == 297
    assert _common_prefix(run, 0, list(run), 0) == 500
