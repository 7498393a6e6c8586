"""OpenClaw's Claude model-id upgrades and trailing auth profiles, as tables (smart defaults)."""

from __future__ import annotations

from simulator.runtimes.openclaw.smart_defaults import (
    _split_trailing_auth_profile,
    _upgrade_old_claude_model_id,
)

OPUS, SONNET = "claude-opus-4-8", "claude-sonnet-4-6"


def test_current_models_are_not_upgraded():
    current = [
        "claude-opus-4-8",
        "claude-opus-4.8",
        "claude-opus-4-7",
        "claude-sonnet-4-6-20250101",
        "claude-haiku-4-5",
    ]
    assert [_upgrade_old_claude_model_id(m) for m in current] == [None] * 5


def test_retired_opus_ids_become_opus_4_8_with_any_suffix_after_a_separator():
    retired = [
        "claude-opus-4",
        "claude-opus-4-5",
        "claude-opus-4.5",
        "claude-opus-4-1-20250805",
        "claude-opus-4.1",
        "claude-opus-4-0",
        "claude-opus-4.0",
        "claude-opus-4-1@work",
        "claude-opus-4-1:0",
        "claude-opus-4-1.2",
        "claude-opus-4-20250514",
        "claude-3-opus-20240229",
        "opus-4.5",
        "opus-4.1",
        "opus-4",
        "opus-3",
    ]
    assert {m: _upgrade_old_claude_model_id(m) for m in retired} == dict.fromkeys(retired, OPUS)


def test_retired_sonnet_and_haiku_ids_become_sonnet_4_6():
    retired = [
        "claude-sonnet-4",
        "claude-sonnet-4-5",
        "claude-sonnet-4.5",
        "claude-sonnet-4-1",
        "claude-sonnet-4.1",
        "claude-sonnet-4-0",
        "claude-sonnet-4.0",
        "claude-sonnet-4-20250514",
        "claude-3-5-sonnet",
        "claude-3-haiku",
        "sonnet-4.5",
        "sonnet-4.1",
        "sonnet-4.0",
        "sonnet-4",
        "sonnet-3.7",
        "sonnet-3.5",
        "sonnet-3",
        "haiku-3.5",
        "haiku-3",
    ]
    assert {m: _upgrade_old_claude_model_id(m) for m in retired} == dict.fromkeys(retired, SONNET)


def test_near_misses_are_left_alone():
    near = [
        "claude-opus-4-1x",
        "claude-opus-4-2025051",
        "claude-sonnet-4-5x",
        "claude-3-foo",
        "opus-4.6",
        "sonnet-4.6",
        "haiku-4.5",
    ]
    assert [_upgrade_old_claude_model_id(m) for m in near] == [None] * 7


def test_a_trailing_auth_profile_is_split_after_the_last_slash_skipping_a_date_stamp():
    cases = [
        ("", ("", None)),
        ("  ", ("", None)),
        ("a@b", ("a", "b")),
        ("@b", ("@b", None)),
        ("m/x@p", ("m/x", "p")),
        ("claude@20250101", ("claude@20250101", None)),
        ("claude@20250101@team", ("claude@20250101", "team")),
        ("claude@2025010", ("claude", "2025010")),
        ("m@ p ", ("m", "p")),
        ("m@ ", ("m@", None)),
        (" @p", ("@p", None)),
        ("a/b@c/d@e", ("a/b@c/d", "e")),
        ("claude-x@20250101x", ("claude-x", "20250101x")),
    ]
    assert [(raw, _split_trailing_auth_profile(raw)) for raw, _ in cases] == cases
