"""The cost parts of the pages: the simulation page's strip and sentences, compare, pricing, fleet session."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from dashboard import services
from dashboard.models import PriceOverride, Profile, TrimEvent
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
    assert "anthropic/claude-sonnet-4-5" in body and "no timestamps: calls 30 s apart" in body


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
    assert "no timestamps: calls 900 s apart (assumed)" in body
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
    assert 'id="sim-controls"' in body
