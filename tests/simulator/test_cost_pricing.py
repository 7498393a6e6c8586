"""The price table: published prices, lookup by key and alias, the named default, malformed documents."""

from __future__ import annotations

import pytest

from simulator.cost.pricing import PriceTableError, load_price_table, price_table_from_toml, pricing_for


@pytest.mark.parametrize(
    ("key", "write_5m", "write_1h", "read", "output"),
    [
        # Anthropic pricing page, "Model pricing" table (USD per MTok).
        ("anthropic/claude-sonnet-4-5", 3.75, 6.0, 0.30, 15.0),
        ("anthropic/claude-opus-4-5", 6.25, 10.0, 0.50, 25.0),
        ("anthropic/claude-haiku-4-5", 1.25, 2.0, 0.10, 5.0),
        ("anthropic/claude-opus-4-1", 18.75, 30.0, 1.50, 75.0),
    ],
)
def test_anthropic_entries_reproduce_the_published_cache_prices(key, write_5m, write_1h, read, output):
    pricing = pricing_for(key).pricing
    assert pricing.input_per_mtok * pricing.write_multiplier("5m") == pytest.approx(write_5m)
    assert pricing.input_per_mtok * pricing.write_multiplier("1h") == pytest.approx(write_1h)
    assert pricing.input_per_mtok * pricing.cache_read_multiplier == pytest.approx(read)
    assert pricing.output_per_mtok == output
    assert pricing.ttl_seconds("5m") == 300
    assert pricing.ttl_seconds("1h") == 3600


def test_openai_models_write_the_cache_for_free():
    assert pricing_for("openai/gpt-5.5").pricing.write_multiplier("5m") == 0
    # OpenAI has no one-hour write tier: asking for it changes nothing.
    assert pricing_for("openai/gpt-5.5").pricing.ttl_seconds("1h") == 300


def test_every_entry_names_its_source_page_and_the_date_it_was_read():
    table = load_price_table()
    assert table.version
    for pricing in table.entries.values():
        assert pricing.source.startswith("https://")
        assert len(pricing.checked) == 10 and pricing.checked[4] == "-"


def test_dated_and_dotted_model_ids_resolve_to_their_entry():
    assert pricing_for("claude-sonnet-4-5-20250929", provider="anthropic").pricing.key == (
        "anthropic/claude-sonnet-4-5"
    )
    assert pricing_for("anthropic/claude-haiku-4.5").pricing.key == "anthropic/claude-haiku-4-5"
    assert pricing_for("openai/gpt-4o-2024-11-20").pricing.key == "openai/gpt-4o"
    assert pricing_for("gemini-2.5-pro").pricing.key == "google/gemini-2.5-pro"
    assert pricing_for("anthropic/claude-sonnet-4-5").warning is None


def test_an_unknown_model_is_priced_as_the_named_default_with_a_warning_naming_it():
    lookup = pricing_for("acme/frontier-9")
    table = load_price_table()
    assert lookup.pricing.key == table.default
    assert lookup.warning is not None
    assert "acme/frontier-9" in lookup.warning and table.default in lookup.warning
    assert "no model recorded" in (pricing_for(None).warning or "")


def test_a_malformed_table_names_the_entry_and_the_field():
    text = """
version = "t"
default = "x/y"
[models."x/y"]
caching = "automatic"
input_per_mtok = -1
"""
    with pytest.raises(PriceTableError) as caught:
        price_table_from_toml(text)
    assert caught.value.key == "x/y"
    assert "input_per_mtok" in caught.value.reason
