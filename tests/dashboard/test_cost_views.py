"""The cost parts of the pages: the simulation page's strip and sentences, compare, pricing, fleet session."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from dashboard import services
from dashboard.models import PriceOverride, Profile, TrimEvent
from simulator import DEFAULT_GAP_SECONDS
from tests.support import tool_heavy_chat

pytestmark = pytest.mark.django_db

CLAUDE_WITH_CACHE = Path(__file__).parent.parent / "fixtures" / "transcripts" / "claude_code_loglines.json"


@pytest.fixture
def setup(operator):
    transcript = services.transcript_import(text=tool_heavy_chat(12), name="chat", user=operator)
    tight = services.profile_create(
        name="tight",
        document={
            "trimscope": {"runtime": "zeroclaw", "version": "documented"},
            "runtime_profiles": {"default": {"max_context_tokens": 1500}},
            "provider": {"model": "gpt-4o", "context_window": 128_000},
        },
    )
    baseline = services.profile_create(name="baseline", document={"trimscope": {"runtime": "as_recorded"}})
    return transcript, tight, baseline


def _sim(transcript, profile, **params):
    query = "".join(f"&{k}={v}" for k, v in params.items())
    return f"{reverse('simulation')}?transcript={transcript.pk}&profile={profile.pk}{query}"


def test_the_simulation_page_draws_the_cost_strip_and_the_session_total(operator_client, setup):
    transcript, tight, _ = setup
    body = operator_client.get(
        _sim(transcript, tight, pricing="anthropic/claude-sonnet-4-5")
    ).content.decode()
    assert 'class="cost-strip"' in body
    assert re.search(r'<rect class="part (read|write|uncached|output)"', body)
    assert re.search(r'id="cost-total">\$\d+\.\d{4}<', body)
    assert re.search(r'id="cost-saving">(saves|costs) \$', body)
    assert "anthropic/claude-sonnet-4-5" in body
    gap = re.search(r'<span id="cost-gap">(.*?)</span>', body, re.S)
    assert gap is not None
    assert "no timestamps: calls assumed 30 s apart (the default)" in gap.group(1)
    assert '<a href="#cost-gap-input">change</a>' in gap.group(1)


def test_a_call_where_the_trim_broke_the_cache_says_what_the_rewrite_cost(operator_client, setup):
    transcript, tight, _ = setup
    body = operator_client.get(
        _sim(transcript, tight, pricing="anthropic/claude-sonnet-4-5")
    ).content.decode()
    # The page opens at the first trimmed call: its request changed after the previous one was cached.
    sentence = re.search(r'id="cache-break">([^<]+)<', body)
    assert sentence is not None
    assert "tokens written to the cache again because the request changed at message" in sentence.group(1)
    assert 'class="cbar selected broke"' in body


def test_the_assumed_gap_from_the_url_is_stated_and_kept_in_the_links(operator_client, setup):
    transcript, tight, _ = setup
    body = operator_client.get(_sim(transcript, tight, gap="900")).content.decode()
    assert "no timestamps: calls assumed 900 s apart" in body
    assert "gap=900" in body and "the cache had expired" in body


@pytest.mark.parametrize(
    ("params", "says"),
    [({"gap": "soon"}, "is not a number of seconds"), ({"pricing": "acme/x"}, "is not in the price table")],
)
def test_bad_cost_parameters_are_named_and_the_defaults_used(operator_client, setup, params, says):
    transcript, tight, _ = setup
    response = operator_client.get(_sim(transcript, tight, **params))
    assert response.status_code == 200
    problem = re.search(r'id="cost-problem">([^<]+)<', response.content.decode())
    assert problem is not None and says in problem.group(1)


def test_recorded_cache_usage_is_shown_beside_the_models_prediction(operator_client, operator, setup):
    _, tight, _ = setup
    transcript = services.transcript_import(text=CLAUDE_WITH_CACHE.read_text(), name="cc", user=operator)
    body = operator_client.get(_sim(transcript, tight, call=2)).content.decode()
    assert 'id="recorded-error"' in body and "The model against the recorded cache usage" in body
    assert 'id="call-recorded"' in body


def test_as_recorded_is_a_profile_the_simulation_page_replays(operator_client, setup):
    transcript, _, baseline = setup
    body = operator_client.get(_sim(transcript, baseline)).content.decode()
    assert "as-recorded" in body and 'id="cost-saving">the same<' in body
    assert Profile.objects.get(pk=baseline.pk).get_runtime_display() == "as-recorded"


def test_compare_shows_cost_per_call_totals_and_the_overtaking_call(operator_client, setup):
    transcript, tight, baseline = setup
    url = f"{reverse('compare')}?transcript={transcript.pk}&profiles={baseline.pk},{tight.pk}"
    body = operator_client.get(url).content.decode()
    assert 'id="compare-cost"' in body and body.count('class="muted small cost-cell"') == 2 * 24
    overtakes = re.search(r'<ul class="small" id="overtakes">(.*?)</ul>', body, re.S)
    assert overtakes is not None and (
        "change places at call" in overtakes.group(1) or "neither" in overtakes.group(1)
    )


def test_the_pricing_page_lists_the_table_and_saves_a_users_edit(operator_client, operator):
    body = operator_client.get(reverse("pricing")).content.decode()
    assert "anthropic/claude-sonnet-4-5" in body and "https://platform.claude.com" in body
    form = {
        "key": "anthropic/claude-sonnet-4-5",
        "input_per_mtok": "4",
        "output_per_mtok": "20",
        "cache_write_multiplier": "1.25",
        "cache_read_multiplier": "0.1",
        "cache_ttl_seconds": "300",
        "action": "save",
    }
    assert operator_client.post(reverse("pricing-edit"), form).status_code == 302
    row = PriceOverride.objects.get()
    assert (row.owner, row.input_per_mtok) == (operator, 4.0)


def test_a_dashboard_edit_by_a_user_who_is_not_staff_is_refused_and_named(operator_client):
    form = {
        "key": "anthropic/claude-sonnet-4-5",
        "input_per_mtok": "4",
        "output_per_mtok": "20",
        "cache_write_multiplier": "1.25",
        "cache_read_multiplier": "0.1",
        "cache_ttl_seconds": "300",
        "scope": "dashboard",
    }
    response = operator_client.post(reverse("pricing-edit"), form)
    assert response.status_code == 400 and "only staff" in response.content.decode()
    assert not PriceOverride.objects.exists()


def test_a_price_that_is_not_a_number_is_refused_by_field(operator_client):
    form = {"key": "anthropic/claude-sonnet-4-5", "input_per_mtok": "cheap", "output_per_mtok": "20"}
    response = operator_client.post(reverse("pricing-edit"), form)
    assert response.status_code == 400 and "input_per_mtok must be a number" in response.content.decode()


def test_the_fleet_session_page_estimates_each_trims_cache_rewrite(operator_client):
    runtime, _ = services.runtime_create(name="alpha")
    for after in (10_000, None):
        TrimEvent.objects.create(
            runtime=runtime,
            shape=TrimEvent.Shape.ENVELOPE,
            session_id="s-1",
            reason="token budget",
            dropped_messages=4,
            kept_turns=3,
            occurred_at=timezone.now(),
            payload={},
            tokens_before=None if after is None else 30_000,
            tokens_after=after,
        )
    body = operator_client.get(reverse("fleet-session", args=["s-1"])).content.decode()
    # 10,000 tokens × $3/MTok × (1.25 − 0.1) = $0.0345 at the table's default model.
    assert '<td class="num break-cost">$0.0345</td>' in body
    assert "over 1 trim that report their token counts" in body


def test_the_pricing_and_gap_fields_belong_to_the_knob_form_so_repricing_keeps_the_edits(
    operator_client, setup
):
    transcript, tight, _ = setup
    body = operator_client.get(_sim(transcript, tight, gap="60")).content.decode()
    controls = re.search(r'<div class="cost-controls small">(.*?)</div>', body, re.S)
    assert controls is not None
    assert '<select form="sim-controls" name="pricing">' in controls.group(1)
    assert 'form="sim-controls" type="number" name="gap"' in controls.group(
        1
    ) and 'value="60"' in controls.group(1)
    assert '<select form="sim-controls" name="ttl" id="cost-ttl-input">' in controls.group(1)
    assert 'id="sim-controls"' in body


def test_the_gap_placeholder_is_the_one_default_the_simulator_uses(operator_client, setup):
    transcript, tight, _ = setup
    body = operator_client.get(_sim(transcript, tight)).content.decode()
    assert f'id="cost-gap-input" min="0" step="any" value="" placeholder="{DEFAULT_GAP_SECONDS:g}"' in body


def test_a_transcript_with_timestamps_offers_no_gap_to_change(operator_client, operator, setup):
    _, tight, _ = setup
    transcript = services.transcript_import(text=CLAUDE_WITH_CACHE.read_text(), name="cc", user=operator)
    body = operator_client.get(_sim(transcript, tight)).content.decode()
    gap = re.search(r'<span id="cost-gap">(.*?)</span>', body, re.S)
    assert gap is not None and gap.group(1) == "gaps between calls from the transcript&#x27;s timestamps"


def test_the_one_hour_cache_ttl_prices_anthropic_writes_at_twice_input(operator_client, setup):
    transcript, tight, _ = setup
    sonnet = "anthropic/claude-sonnet-4-5"
    short = operator_client.get(_sim(transcript, tight, pricing=sonnet, gap="600")).content.decode()
    long = operator_client.get(_sim(transcript, tight, pricing=sonnet, gap="600", ttl="1h")).content.decode()
    assert '<span id="cost-ttl">5-minute cache writes (1.25× input)</span>' in short
    assert '<span id="cost-ttl">1-hour cache writes (2× input)</span>' in long
    assert '<option value="1h" selected>' in long and "ttl=1h" in long
    # Ten minutes apart, only the 1-hour writes are still there to read: the totals differ.
    totals = [re.search(r'id="cost-total">\$([\d.]+)<', b) for b in (short, long)]
    assert all(totals) and totals[0].group(1) != totals[1].group(1)


def test_an_unknown_cache_ttl_is_named_and_5m_used(operator_client, setup):
    transcript, tight, _ = setup
    body = operator_client.get(_sim(transcript, tight, ttl="2h")).content.decode()
    problem = re.search(r'id="cost-problem">([^<]+)<', body)
    assert problem is not None and "cache TTL &#x27;2h&#x27; is not one of 5m, 1h" in problem.group(1)
    assert '<span id="cost-ttl">5-minute cache writes (1.25× input)</span>' in body


def _summary_cell(body: str, profile: str, column: int) -> str:
    row = re.search(rf"<tr><td>{profile}</td>(.*?)</tr>", body, re.S)
    assert row is not None
    return re.findall(r"<td[^>]*>(.*?)</td>", row.group(1), re.S)[column].strip()


def _openclaw():
    pruning = {"mode": "cache-ttl", "ttl": "5m", "minPrunableToolChars": 1000}
    return services.profile_create(
        name="pruning",
        document={
            "trimscope": {"runtime": "openclaw"},
            "agents": {"defaults": {"contextPruning": pruning}},
            "model": {"provider": "anthropic", "id": "claude-sonnet-4-5", "contextWindow": 8000},
        },
    )


def test_compare_states_the_gap_and_reprices_with_pricing_gap_and_ttl(operator_client, setup):
    transcript, tight, baseline = setup
    url = f"{reverse('compare')}?transcript={transcript.pk}&profiles={baseline.pk},{tight.pk}"
    body = operator_client.get(url).content.decode()
    gap = re.search(r'<span id="cost-gap">(.*?)</span>', body, re.S)
    assert gap is not None and "no timestamps: calls assumed 30 s apart (the default)" in gap.group(1)
    form = re.search(r'<form class="cost-controls small" id="compare-cost-controls"(.*?)</form>', body, re.S)
    assert form is not None
    for field in (
        'name="pricing"',
        'name="gap"',
        'name="ttl"',
        f'name="profiles" value="{baseline.pk},{tight.pk}"',
    ):
        assert field in form.group(1)
    repriced = operator_client.get(f"{url}&gap=900&ttl=1h").content.decode()
    assert "no timestamps: calls assumed 900 s apart" in repriced
    assert '<span id="cost-ttl">1-hour cache writes (2× input)</span>' in repriced
    # Links within the page keep the choices.
    assert "gap=900&amp;ttl=1h" in repriced


def test_compare_replays_openclaw_at_the_gap_its_cost_assumes(operator_client, setup):
    transcript, _, baseline = setup
    pruning = _openclaw()
    url = f"{reverse('compare')}?transcript={transcript.pk}&profiles={pruning.pk},{baseline.pk}"
    warm = operator_client.get(url).content.decode()
    cold = operator_client.get(f"{url}&gap=3600").content.decode()
    # The summary table's "Calls trimmed" column (after runtime, budget and the two token totals).
    assert (_summary_cell(warm, "pruning", 4), _summary_cell(cold, "pruning", 4)) == ("0", "9")


def test_a_bad_gap_and_a_bad_ttl_are_both_named(operator_client, setup):
    transcript, tight, _ = setup
    body = operator_client.get(_sim(transcript, tight, gap="soon", ttl="2h")).content.decode()
    problem = re.search(r'id="cost-problem">([^<]+)<', body)
    assert problem is not None
    assert "is not a number of seconds" in problem.group(1) and "is not one of 5m, 1h" in problem.group(1)
