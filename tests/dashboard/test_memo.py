"""dashboard.memo: the one cache keeps values under content keys, bounded, and forgets them on clear()."""

from __future__ import annotations

import pytest

from dashboard import memo, selectors, services
from dashboard.memo import Memo
from tests.support import tool_heavy_chat


def test_a_memo_keeps_only_its_most_recently_used_values():
    store: Memo[str, int] = Memo("test", 2)
    store.put("a", 1)
    store.put("b", 2)
    assert store.get("a") == 1  # "a" is now the most recent
    store.put("c", 3)
    assert (store.get("a"), store.get("b"), store.get("c")) == (1, None, 3)


def test_get_or_compute_computes_once_per_key():
    store: Memo[str, int] = Memo("test", 4)
    calls: list[str] = []

    def compute() -> int:
        calls.append("x")
        return 7

    assert store.get_or_compute("k", compute) == 7
    assert store.get_or_compute("k", compute) == 7
    assert calls == ["x"]


@pytest.mark.django_db
def test_two_rows_with_one_text_share_a_parse_and_clear_forgets_it(django_user_model):
    user = django_user_model.objects.create_user("op", password="pw-long-enough-1")
    text = tool_heavy_chat(2)
    first = services.transcript_import(text=text, name="a", user=user)
    copy = services.transcript_import(text=text, name="b", user=user, copy=True)
    parsed = selectors.transcript_parsed(transcript=first)
    assert selectors.transcript_parsed(transcript=copy) is parsed
    memo.clear()
    assert len(memo.PARSED) == 0
    again = selectors.transcript_parsed(transcript=copy)
    assert again is not parsed and again == parsed


def test_a_knob_change_replays_from_the_kept_preparation_and_gives_a_fresh_replays_result(
    django_user_model,
):
    from simulator import profile_from_document, simulate

    user = django_user_model.objects.create_user("op", password="pw-long-enough-1")
    row = services.transcript_import(text=tool_heavy_chat(6), name="a", user=user)
    memo.clear()

    def zeroclaw(budget: int):
        document = {
            "trimscope": {"runtime": "zeroclaw"},
            "runtime_profiles": {"default": {"max_context_tokens": budget}},
        }
        return profile_from_document(document, name=f"z{budget}")

    tight, loose = zeroclaw(600), zeroclaw(50_000)
    first = selectors.simulation_result(transcript=row, profile=tight)
    second = selectors.simulation_result(transcript=row, profile=loose)
    assert len(memo.PREPARED) == 1 and len(memo.REPLAYS) == 2
    parsed = selectors.transcript_parsed(transcript=row)
    assert first == simulate(parsed, tight) and second == simulate(parsed, loose)
    assert first.trims > second.trims
