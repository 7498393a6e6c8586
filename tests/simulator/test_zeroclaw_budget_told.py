"""ZeroClaw's proposed token-budget trim told from bookkeeping agrees with ``trim_to_recent_turns_pr9368``.

``History.recent_turns_within`` bisects running sums of entry estimates instead of re-estimating the held
history at every call; these tests hold it to the runtime's function on histories with systems, a
breadcrumb, rows before the first user and budgets that land exactly on a turn's suffix.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.importers import parse_transcript
from simulator.profiles import profile_from_document
from simulator.replay import simulate
from simulator.replay.zeroclaw_history import History, RecountedFacts
from simulator.runtimes.zeroclaw import ChatMessage, trim_to_recent_turns_pr9368
from simulator.runtimes.zeroclaw.breadcrumb import breadcrumb
from simulator.runtimes.zeroclaw.estimate import estimate_message_tokens
from simulator.runtimes.zeroclaw.turns import is_turn_boundary_pr9368

ROLES = st.sampled_from(["user", "assistant", "tool"])
BODY = st.lists(st.tuples(ROLES, st.integers(0, 60)), max_size=14).map(
    lambda rows: [ChatMessage(role, "x" * size) for role, size in rows]
)


def _held(systems: int, body: list[ChatMessage], crumb: bool) -> History:
    rows = [ChatMessage("system", "s" * 8)] * systems + body
    history = History(len(rows), RecountedFacts(len(rows), is_turn_boundary_pr9368))
    for index, message in enumerate(rows):
        history.enter(index, message)
    if crumb:
        history.cut(systems, systems, breadcrumb(), 1, "crumb")
    return history


@settings(max_examples=400, deadline=None)
@given(systems=st.integers(0, 2), body=BODY, crumb=st.booleans(), data=st.data())
def test_every_answer_is_the_runtime_functions(systems, body, crumb, data):
    history = _held(systems, body, crumb)
    held = list(history.held)
    # Budgets on the edges: each suffix's estimate exactly, one less, and anything else.
    suffixes = [sum(estimate_message_tokens(m) for m in held[k:]) for k in range(len(held))]
    budget = data.draw(
        st.one_of(st.sampled_from([0, *suffixes, *(s - 1 for s in suffixes if s > 0)]), st.integers(0, 400))
    )
    runtime = trim_to_recent_turns_pr9368(held, budget, crumb)
    told = history.recent_turns_within(budget, crumb)
    if not runtime.trimmed:
        assert told is None
        return
    assert told is not None
    prefix, start, kept, after = told
    assert (*held[:prefix], *held[start:]) == runtime.history
    assert (start - prefix, kept, after) == (
        runtime.dropped_messages,
        runtime.kept_turns,
        runtime.tokens_after,
    )


def test_a_newest_turn_over_the_budget_alone_is_kept():
    history = _held(1, [ChatMessage("user", "a"), ChatMessage("user", "b" * 400)], False)
    # 6 (system) + 104 (the newest user): over 50, and still the one turn kept.
    assert history.recent_turns_within(50, False) == (1, 2, 1, 110)


def test_rows_before_the_first_user_go_with_the_first_turn():
    body = [ChatMessage("assistant", "hello"), ChatMessage("user", "a" * 40), ChatMessage("user", "b")]
    history = _held(0, body, False)
    # The second turn alone fits (5 tokens); the greeting goes with the first turn, not on its own.
    assert history.recent_turns_within(20, False) == (0, 2, 1, 5)


def test_a_breadcrumb_inside_the_body_is_left_to_the_runtime_function():
    history = _held(0, [ChatMessage("user", "a"), ChatMessage("user", "b")], True)
    try:
        history.recent_turns_within(5, False)
    except LookupError:
        pass
    else:
        raise AssertionError("a breadcrumb the flag does not account for must not be told from bookkeeping")


def test_a_proposed_replay_over_budget_at_every_call_matches_the_reference():
    rows: list[dict[str, object]] = [{"role": "system", "content": "be brief"}]
    for t in range(60):
        rows += [{"role": "user", "content": f"task {t} " + "y" * (t % 9) * 30}]
        rows += [{"role": "assistant", "content": "z" * (t % 5) * 200}]
    profile = profile_from_document({"runtime_profiles": {"d": {"max_context_tokens": 900}}}, name="p")
    transcript = parse_transcript(json.dumps(rows))
    fast = simulate(transcript, profile)
    assert fast == simulate(transcript, profile, reference=True)
    assert sum(c.trimmed for c in fast.calls) > 30
