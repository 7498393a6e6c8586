"""`python -m simulator evaluate` and `tune`: the JSON shapes, unreadable files, and bad arguments."""

from __future__ import annotations

import json

import pytest

from simulator.cli import main
from simulator.synthetic import synthetic_openclaw_session

ROW_KEYS = {
    "profile", "runtime", "sessions", "calls", "trims", "overflow_failures", "messages_dropped",
    "tokens_sent", "cost_usd", "rereads",
}  # fmt: skip


@pytest.fixture
def corpus(tmp_path):
    nested = tmp_path / "nested"
    nested.mkdir()
    for i, turns in enumerate((6, 10, 14)):
        folder = nested if i == 2 else tmp_path
        (folder / f"s{i}.jsonl").write_text(synthetic_openclaw_session(turns, session_id=f"s{i}"))
    (tmp_path / "broken.json").write_text('{"messages": [}')
    return tmp_path


def test_evaluate_json_has_one_row_per_profile_and_lists_unreadable_files(corpus, capsys):
    code = main(
        ["evaluate", str(corpus), "--profile", "zeroclaw-upstream", "--profile", "openclaw", "--json"]
    )
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert set(payload) == {"sessions", "failed", "profiles"}
    assert payload["sessions"] == 3
    (failure,) = payload["failed"]
    assert failure["file"].endswith("broken.json") and "invalid JSON" in failure["error"]
    rows = payload["profiles"]
    assert [r["profile"] for r in rows] == ["zeroclaw-upstream", "openclaw"]
    assert all(set(r) == ROW_KEYS for r in rows)
    # 6 + 10 + 14 turns, two assistant messages (tool call, answer) per turn.
    assert all(r["sessions"] == 3 and r["calls"] == 60 for r in rows)


def test_two_workers_give_the_same_numbers_as_one(corpus, capsys):
    args = ["evaluate", str(corpus), "--profile", "zeroclaw-documented", "--json"]
    main([*args, "--workers", "1"])
    one = json.loads(capsys.readouterr().out)
    main([*args, "--workers", "2"])
    two = json.loads(capsys.readouterr().out)
    assert one == two


def test_tune_json_gives_the_best_document_and_the_front(corpus, capsys):
    code = main(
        ["tune", str(corpus), "--runtime", "zeroclaw", "--min-kept-turns", "0.5", "--json", "--workers", "1"]
    )
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert set(payload) == {"best", "front"}
    best = payload["best"]
    assert set(best) == {"profile", "metrics"} and set(best["metrics"]) == ROW_KEYS
    assert best["profile"]["trimscope"]["runtime"] == "zeroclaw"
    assert "max_context_tokens" in best["profile"]["runtime_profiles"]["default"]
    assert best["metrics"]["overflow_failures"] == 0
    assert payload["front"] and all(set(p) == {"profile", "metrics"} for p in payload["front"])
    costs = [p["metrics"]["cost_usd"] for p in payload["front"]]
    assert costs == sorted(costs)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", "/nonexistent/corpus", "--profile", "openclaw"], "no such file or folder"),
        (["evaluate", ".", "--profile", "no-such-preset"], "no such file and no such preset"),
        (["evaluate", ".", "--profile", "openclaw", "--workers", "0"], "--workers must be at least 1"),
    ],
)
def test_bad_arguments_exit_2_naming_the_problem(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_argument_parser_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["tune", ".", "--runtime", "zeroclaw", "--min-kept-turns", "1.5"])
    assert exit_info.value.code == 2
    assert "must be between 0 and 1" in capsys.readouterr().err


def test_no_cost_leaves_cost_null_and_every_other_number_alone(corpus, capsys):
    args = ["evaluate", str(corpus), "--profile", "openclaw", "--json", "--workers", "1"]
    main(args)
    priced = json.loads(capsys.readouterr().out)["profiles"][0]
    main([*args, "--no-cost"])
    unpriced = json.loads(capsys.readouterr().out)["profiles"][0]
    assert priced["cost_usd"] > 0 and unpriced["cost_usd"] is None
    assert {k: v for k, v in priced.items() if k != "cost_usd"} == {
        k: v for k, v in unpriced.items() if k != "cost_usd"
    }
