"""The cost model wired in: the as-recorded runtime, the assumed gap, pricing choice and edits, compare."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulator import (
    PriceEdit,
    PriceTableError,
    assumed_times,
    load_price_table,
    parse_transcript,
    price_table_with,
    pricing_choice,
    profile_cost,
    profile_from_document,
    simulate,
    synthetic_openclaw_session,
)
from simulator.assumed_times import DEFAULT_GAP_SECONDS, with_assumed_times
from simulator.cli import main
from simulator.cost import CallCost, SessionCost, as_recorded_requests, price_requests
from simulator.cost.compare import cost_comparison
from simulator.cost.from_replay import call_times
from simulator.errors import ProfileError
from simulator.presets import PRESETS_BY_KEY
from simulator.transcript import Role
from tests.support import SAMPLES_DIR

FIXTURES = Path(__file__).parent.parent / "fixtures" / "transcripts"
CLAUDE_WITH_CACHE = FIXTURES / "claude_code_loglines.json"
SWE = SAMPLES_DIR / "sweagent_marshmallow-1867_function_calling.traj.json"
COST_KEYS = {"input_tokens", "cache_write_tokens", "cache_read_tokens", "output_tokens", "usd"}
PRICING_KEYS = {
    "model",
    "input_per_mtok",
    "output_per_mtok",
    "cache_write_multiplier",
    "cache_read_multiplier",
    "cache_ttl_seconds",
    "source",
}


def _preset(key: str):
    return profile_from_document(dict(PRESETS_BY_KEY[key].document), name=key)


def _openclaw_chat(turns: int, result_chars: int = 9000) -> str:
    lines: list[dict[str, object]] = [{"role": "system", "content": "sys"}]
    for i in range(turns):
        lines.append({"role": "user", "content": f"question {i}"})
        call = {"id": f"c{i}", "type": "function", "function": {"name": "read", "arguments": "{}"}}
        lines.append({"role": "assistant", "content": None, "tool_calls": [call]})
        lines.append({"role": "tool", "tool_call_id": f"c{i}", "content": "x" * result_chars})
        lines.append({"role": "assistant", "content": f"answer {i}"})
    return json.dumps(lines)


# -- as-recorded ------------------------------------------------------------------------------------------


def test_as_recorded_sends_every_message_held_before_each_call():
    transcript = parse_transcript(synthetic_openclaw_session(6))
    result = simulate(transcript, _preset("as-recorded"))
    assert result.runtime == "as_recorded" and result.trims == 0
    for call in result.calls:
        assert list(call.sent_indices()) == list(range(call.available))
        assert transcript.messages[call.message_index].role is Role.ASSISTANT


def test_as_recorded_costs_exactly_the_cost_models_baseline():
    transcript = parse_transcript(CLAUDE_WITH_CACHE.read_text())
    profile = _preset("as-recorded")
    cost = profile_cost(transcript, profile, simulate(transcript, profile))
    expected = price_requests(as_recorded_requests(transcript), cost.lookup.pricing)
    assert cost.session == expected and cost.difference_usd == 0


def test_an_as_recorded_document_refuses_any_setting_by_name():
    with pytest.raises(ProfileError) as info:
        profile_from_document({"trimscope": {"runtime": "as_recorded"}, "limits": {}}, name="p")
    assert info.value.field == "limits"


# -- the assumed gap ---------------------------------------------------------------------------------------


def test_assumed_times_put_each_call_where_the_cost_model_puts_it():
    transcript = parse_transcript(_openclaw_chat(4))
    stamped = with_assumed_times(transcript, 120)
    replies = [i for i, m in enumerate(transcript.messages) if m.role is Role.ASSISTANT]
    assert call_times(stamped, replies, 0) == call_times(transcript, replies, 120)
    assert call_times(stamped, replies, 0) == tuple(120.0 * k for k in range(len(replies)))


def test_openclaw_prunes_only_when_the_assumed_gap_is_past_its_ttl():
    transcript = parse_transcript(_openclaw_chat(30))
    profile = profile_from_document(
        {"contextPruning": {"mode": "cache-ttl", "ttl": "5m"}, "model": {"contextWindow": 40000}}, name="p"
    )
    warm = simulate(transcript, profile, assumed_gap_seconds=60)
    cold = simulate(transcript, profile, assumed_gap_seconds=600)
    assert warm.trims == 0 and cold.trims > 0
    assert any("calls assumed 60 s apart" in w for w in warm.warnings)


def test_one_default_gap_is_read_by_the_openclaw_replay_and_the_cost_model(monkeypatch):
    transcript = parse_transcript(_openclaw_chat(12))
    profile = profile_from_document(
        {"contextPruning": {"mode": "cache-ttl", "ttl": "5m"}, "model": {"contextWindow": 40000}}, name="p"
    )
    pricing = "anthropic/claude-sonnet-4-5"
    result = simulate(transcript, profile)
    cost = profile_cost(transcript, profile, result, pricing=pricing)
    assert (result.trims, cost.gap_seconds, cost.gap_source) == (0, DEFAULT_GAP_SECONDS, "default")
    assert cost.session.cache_read_tokens > 0
    # Moving the one constant moves both: past the TTL, OpenClaw prunes and the cache model finds it cold.
    monkeypatch.setattr(assumed_times, "DEFAULT_GAP_SECONDS", 600.0)
    cold = simulate(transcript, profile)
    cold_cost = profile_cost(transcript, profile, cold, pricing=pricing)
    assert cold.trims > 0 and cold_cost.gap_seconds == 600.0
    assert cold_cost.session.cache_read_tokens == 0
    assert "no timestamps: calls assumed 600 s apart (the default)" in cold.warnings
    assert cold_cost.gap_statement == "no timestamps: calls assumed 600 s apart (the default)"


def test_the_cost_states_where_the_gap_came_from():
    transcript = parse_transcript(_openclaw_chat(3))
    profile = _preset("zeroclaw-upstream")
    result = simulate(transcript, profile)
    assert profile_cost(transcript, profile, result).gap_source == "default"
    assumed = profile_cost(transcript, profile, result, assumed_gap_seconds=900)
    assert assumed.gap_source == "assumed" and "900 s apart" in assumed.gap_statement
    stamped = parse_transcript(CLAUDE_WITH_CACHE.read_text())
    assert profile_cost(stamped, profile, simulate(stamped, profile)).gap_source == "timestamps"


def test_a_gap_past_the_cache_lifetime_makes_every_call_write_again():
    transcript = parse_transcript(_openclaw_chat(5, result_chars=6000))
    profile = _preset("as-recorded")
    result = simulate(transcript, profile)
    warm = profile_cost(
        transcript, profile, result, pricing="anthropic/claude-sonnet-4-5", assumed_gap_seconds=10
    )
    cold = profile_cost(
        transcript, profile, result, pricing="anthropic/claude-sonnet-4-5", assumed_gap_seconds=600
    )
    assert warm.session.cache_read_tokens > 0 and cold.session.cache_read_tokens == 0
    assert cold.usd > warm.usd
    assert {b.cause for b in cold.breaks} == {"expired"}


# -- pricing ------------------------------------------------------------------------------------------------


def test_pricing_defaults_to_the_model_the_transcript_records():
    transcript = parse_transcript(CLAUDE_WITH_CACHE.read_text())
    lookup = pricing_choice(transcript, None)
    assert lookup.pricing.key == "anthropic/claude-sonnet-4-5" and lookup.warning is None


def test_pricing_falls_back_to_the_named_default_with_a_warning():
    transcript = parse_transcript(_openclaw_chat(2))
    lookup = pricing_choice(transcript, None)
    assert lookup.pricing.key == load_price_table().default
    assert lookup.warning is not None and load_price_table().default in lookup.warning


def test_an_unknown_pricing_key_is_an_error_listing_the_keys():
    with pytest.raises(PriceTableError) as info:
        pricing_choice(parse_transcript(_openclaw_chat(2)), "acme/model-9")
    assert "anthropic/claude-sonnet-4-5" in str(info.value)


def test_a_price_edit_replaces_the_numbers_and_names_its_source():
    table = load_price_table()
    edit = PriceEdit("anthropic/claude-sonnet-4-5", 6.0, 30.0, 1.25, 0.1, 300, "edited by ann")
    edited = price_table_with(table, [edit])
    entry = edited.entries["anthropic/claude-sonnet-4-5"]
    assert (entry.input_per_mtok, entry.output_per_mtok, entry.source) == (6.0, 30.0, "edited by ann")
    assert edited.version != table.version
    assert table.entries["anthropic/claude-sonnet-4-5"].input_per_mtok == 3.0


@pytest.mark.parametrize("field", ["input_per_mtok", "cache_read_multiplier"])
def test_a_price_edit_out_of_range_is_refused_by_field(field):
    values = {"input_per_mtok": 3.0, "cache_read_multiplier": 0.1}
    values[field] = -1.0
    edit = PriceEdit(
        "anthropic/claude-sonnet-4-5",
        values["input_per_mtok"],
        15.0,
        1.25,
        values["cache_read_multiplier"],
        300,
        "x",
    )
    with pytest.raises(PriceTableError) as info:
        price_table_with(load_price_table(), [edit])
    assert field in str(info.value)


# -- comparison ---------------------------------------------------------------------------------------------


def _session(usds):
    pricing = load_price_table().entries["anthropic/claude-sonnet-4-5"]
    return SessionCost(pricing, "5m", tuple(CallCost(0, 0, 0, 0, u) for u in usds))


def test_the_call_where_one_profile_overtakes_the_other_is_found():
    # B pays more up front (a cache break) and less afterwards: its running total drops below A's at call 3.
    money = cost_comparison([_session([1.0, 1.0, 1.0, 1.0]), _session([2.5, 0.2, 0.2, 0.2])])
    assert money.running[1] == (2.0, 2.7) and money.running[2] == (3.0, 2.9)
    (crossing,) = money.crossings
    assert crossing.call == 3 and crossing.cheaper_after == 1
    assert money.differences == (0.0, round(3.1 - 4.0, 8))


def test_profiles_that_never_cross_have_no_overtaking_call():
    money = cost_comparison([_session([1.0, 1.0]), _session([0.5, 0.5])])
    assert money.crossings[0].call is None and money.crossings[0].cheaper_after == 1


# -- the recorded usage --------------------------------------------------------------------------------------


def test_recorded_cache_usage_is_compared_with_the_as_recorded_prediction():
    transcript = parse_transcript(CLAUDE_WITH_CACHE.read_text())
    profile = _preset("zeroclaw-upstream")
    cost = profile_cost(transcript, profile, simulate(transcript, profile))
    assert cost.recorded is not None and cost.recorded.recorded_calls > 0
    recorded_read = sum(m.usage.cache_read_tokens or 0 for m in transcript.messages if m.usage is not None)
    assert cost.recorded.cache_read.recorded == recorded_read


# -- CLI --------------------------------------------------------------------------------------------------


def test_cli_json_gives_every_call_a_cost_and_every_result_its_pricing(capsys):
    args = ["simulate", str(SWE), "--profile", "openclaw", "--profile", "as-recorded", "--json"]
    assert main([*args, "--pricing", "anthropic/claude-sonnet-4-5", "--assumed-gap", "400"]) == 0
    payload = json.loads(capsys.readouterr().out)
    for result in payload["results"]:
        assert set(result["pricing"]) == PRICING_KEYS
        assert result["pricing"]["model"] == "anthropic/claude-sonnet-4-5"
        assert result["pricing"]["cache_write_multiplier"] == 1.25
        for call in result["calls"]:
            assert set(call["cost"]) == COST_KEYS
        total = round(sum(c["cost"]["usd"] for c in result["calls"]), 8)
        assert result["summary"]["cost_usd"] == total > 0
        assert result["cost_model"]["gap_seconds"] == 400 and result["cost_model"]["gap_source"] == "assumed"
    # OpenClaw and the format's own policy both place pi's breakpoints on an swe-agent transcript? No:
    # the baseline follows the profile's runtime, the as-recorded profile the format's (automatic).
    assert payload["results"][1]["cost_model"]["difference_usd"] == 0
    comparison = payload["comparison"]
    assert comparison["cost_usd"] == [r["summary"]["cost_usd"] for r in payload["results"]]
    assert comparison["overtakes"][0]["against"] == 0


def test_cli_defaults_to_the_transcripts_model_and_warns_when_the_table_lacks_it(capsys):
    assert main(["simulate", str(SWE), "--profile", "as-recorded", "--json"]) == 0
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert result["pricing"]["model"] == "openai/gpt-4o"
    assert result["cost_model"]["pricing_warning"] is None


def test_cli_unknown_pricing_key_exits_2_naming_it(capsys):
    assert main(["simulate", str(SWE), "--profile", "as-recorded", "--pricing", "acme/nine"]) == 2
    assert "--pricing acme/nine" in capsys.readouterr().err


def test_cli_assumed_gap_must_be_a_number_of_seconds(capsys):
    with pytest.raises(SystemExit) as info:
        main(["simulate", str(SWE), "--assumed-gap", "soon"])
    assert info.value.code == 2
    assert "not a number of seconds" in capsys.readouterr().err


def test_cli_report_states_the_cost_and_the_gap(capsys):
    assert main(["simulate", str(SWE), "--profile", "as-recorded", "--assumed-gap", "45"]) == 0
    out = capsys.readouterr().out
    assert "cost $" in out and "no timestamps: calls assumed 45 s apart" in out


def test_a_prefix_cached_for_the_first_time_is_not_a_cache_break():
    from simulator.cost import Request, Segment, cache_breaks

    pricing = load_price_table().entries["anthropic/claude-sonnet-4-5"]
    a, b = Segment("a", 600, "user"), Segment("b", 600, "user")
    # Call 1 is below the 1,024-token minimum, so call 2 writes all of it: growth, not a re-write.
    requests = [Request((a,), 0, 10, (0,)), Request((a, b), 5, 10, (1,))]
    session = price_requests(requests, pricing)
    assert session.calls[1].cache_write_tokens == 1200
    assert cache_breaks(requests, session) == ()


def test_the_recorded_comparison_is_the_same_whichever_profile_is_open():
    transcript = parse_transcript(CLAUDE_WITH_CACHE.read_text())
    zeroclaw, baseline = _preset("zeroclaw-upstream"), _preset("as-recorded")
    from_zeroclaw = profile_cost(transcript, zeroclaw, simulate(transcript, zeroclaw)).recorded
    from_baseline = profile_cost(transcript, baseline, simulate(transcript, baseline)).recorded
    assert from_zeroclaw is not None and from_zeroclaw == from_baseline


def _cli_json(capsys, *args: str) -> dict:
    assert main(["simulate", str(SWE), "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_json_states_the_default_gap_once_in_every_result(capsys):
    payload = _cli_json(capsys, "--profile", "openclaw-anthropic", "--profile", "zeroclaw-upstream")
    statement = f"no timestamps: calls assumed {DEFAULT_GAP_SECONDS:g} s apart (the default)"
    for result in payload["results"]:
        assert result["warnings"].count(statement) == 1
        model = result["cost_model"]
        assert (model["gap_seconds"], model["gap_source"], model["gap"]) == (
            DEFAULT_GAP_SECONDS,
            "default",
            statement,
        )


def test_cli_cache_ttl_1h_prices_anthropic_writes_at_twice_input_for_an_hour(capsys):
    common = ("--profile", "as-recorded", "--pricing", "anthropic/claude-sonnet-4-5", "--assumed-gap", "600")
    short = _cli_json(capsys, *common)["results"][0]
    long = _cli_json(capsys, *common, "--cache-ttl", "1h")["results"][0]
    assert (short["pricing"]["cache_write_multiplier"], short["pricing"]["cache_ttl_seconds"]) == (1.25, 300)
    assert (long["pricing"]["cache_write_multiplier"], long["pricing"]["cache_ttl_seconds"]) == (2.0, 3600)
    assert (short["cost_model"]["cache_ttl"], long["cost_model"]["cache_ttl"]) == ("5m", "1h")
    # Ten minutes apart, 5-minute writes have expired by every next call; 1-hour writes are still read.
    assert {b["cause"] for b in short["cost_model"]["cache_breaks"]} == {"expired"}
    assert long["cost_model"]["cache_breaks"] == []
    reads = sum(c["cost"]["cache_read_tokens"] for c in long["calls"])
    assert reads > 0 and sum(c["cost"]["cache_read_tokens"] for c in short["calls"]) == 0
    assert long["cost_model"]["cache_ttl_statement"] == "1-hour cache writes (2× input)"


def test_cli_cache_ttl_1h_on_a_provider_without_it_says_so(capsys):
    result = _cli_json(capsys, "--profile", "as-recorded", "--pricing", "openai/gpt-4o", "--cache-ttl", "1h")
    assert result["results"][0]["pricing"]["cache_ttl_seconds"] == 300
    assert "1-hour writes are Anthropic's" in result["results"][0]["cost_model"]["cache_ttl_statement"]


def test_cli_cache_ttl_must_be_5m_or_1h(capsys):
    with pytest.raises(SystemExit) as info:
        main(["simulate", str(SWE), "--cache-ttl", "2h"])
    assert info.value.code == 2
    assert "--cache-ttl" in capsys.readouterr().err
