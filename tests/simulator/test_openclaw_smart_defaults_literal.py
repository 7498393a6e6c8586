"""OpenClaw's Claude model-id upgrades and trailing auth profiles, as tables (smart defaults)."""

from __future__ import annotations

from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.smart_defaults import (
    UNDEFINED,
    JSValue,
    _claude_cli_runtime_refs,
    _key,
    _split_trailing_auth_profile,
    _upgrade_old_claude_model_id,
    _uses_claude_cli_model_selection,
    _uses_selected_claude_cli_auth_profile,
    _with_claude_cli_runtime,
    apply_anthropic_config_defaults,
    get,
    is_cache_retention_target,
    parse_provider_model_ref,
    resolve_anthropic_default_auth_mode,
    resolve_claude_cli_anthropic_model_refs,
    resolve_known_anthropic_model_ref,
    spread,
    truthy,
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
        ("m@a@b", ("m", "a@b")),
        ("x/@p", ("x/", "p")),
        ("c@20250101@a@b", ("c@20250101", "a@b")),
    ]
    assert [(raw, _split_trailing_auth_profile(raw)) for raw, _ in cases] == cases


def test_property_keys_and_lookups_follow_javascript():
    values: list[JSValue] = ["s", UNDEFINED, None, True, False, 1.5, 2, {}, [1, [2, None], "a"]]
    assert [_key(v) for v in values] == [
        "s",
        "undefined",
        "null",
        "true",
        "false",
        "1.5",
        "2",
        "[object Object]",
        "1,2,null,a",
    ]
    lookups: list[tuple[JSValue, str]] = [
        ({"a": 1}, "a"),
        ({"a": 1}, "b"),
        ([5, 6], "1"),
        ([5, 6], "2"),
        ("xy", "0"),
        ([5], "01"),
        ([5], "-1"),
        (5, "0"),
    ]
    assert [get(o, k) for o, k in lookups] == [
        1,
        UNDEFINED,
        6,
        UNDEFINED,
        "x",
        UNDEFINED,
        UNDEFINED,
        UNDEFINED,
    ]


def test_provider_model_refs_split_at_the_first_slash_and_normalise_bedrock():
    refs = ["", " ", "m", "/m", "P/m", "Bedrock/x", "aws-bedrock/x", "p/", "a/b/c"]
    assert [parse_provider_model_ref(r, "anthropic") for r in refs] == [
        None,
        None,
        ("anthropic", "m"),
        ("anthropic", "/m"),
        ("p", "m"),
        ("amazon-bedrock", "x"),
        ("amazon-bedrock", "x"),
        None,
        ("a", "b/c"),
    ]
    assert parse_provider_model_ref("Bedrock/x", "anthropic", normalize=False) == ("bedrock", "x")


def test_known_claude_ids_and_family_aliases_get_their_current_anthropic_ref():
    refs = [
        "claude-opus-4-1",
        "anthropic/claude-x",
        "claude-cli/opus",
        "openai/gpt",
        "gpt-5",
        "anthropic/gpt-5",
    ]
    assert [resolve_claude_cli_anthropic_model_refs(r) for r in refs] == [
        (("anthropic/claude-opus-4-1", "anthropic/claude-opus-4-8"), "anthropic/claude-opus-4-8"),
        (("anthropic/claude-x",), "anthropic/claude-x"),
        (("anthropic/opus", "anthropic/claude-opus-4-8"), "anthropic/claude-opus-4-8"),
        None,
        None,
        (("anthropic/gpt-5",), None),
    ]
    assert resolve_claude_cli_anthropic_model_refs("claude-cli/gpt-5") == (
        ("anthropic/gpt-5",),
        "anthropic/gpt-5",
    )
    assert resolve_claude_cli_anthropic_model_refs("") is None
    models = [
        "",
        "  ",
        "gpt-5",
        "opus",
        "sonnet",
        "haiku",
        "opus-4.7",
        "sonnet-5",
        "claude-sonnet-5",
        "claude-opus-4-1@work",
        "opus@team",
    ]
    assert [resolve_known_anthropic_model_ref(m) for m in models] == [
        None,
        None,
        "gpt-5",
        "anthropic/claude-opus-4-8",
        "anthropic/claude-sonnet-5",
        "anthropic/claude-haiku-4-5",
        "anthropic/claude-opus-4-7",
        "anthropic/claude-sonnet-5",
        "claude-sonnet-5",  # current already: kept as written
        "anthropic/claude-opus-4-8@work",
        "anthropic/claude-opus-4-8@team",
    ]
    assert resolve_known_anthropic_model_ref(None) is None


def test_claude_cli_selection_is_read_from_the_primary_model_or_the_models_map():
    defaults: list[JSValue] = [
        {},
        {"model": "claude-cli/opus"},
        {"model": {"primary": " claude-cli/opus "}},
        {"model": {"primary": 5}},
        {"model": "anthropic/opus"},
        {"models": {"claude-cli/x": {}}},
        {"models": {"anthropic/x": {"agentRuntime": {"id": " Claude-CLI "}}}},
        {"models": {"anthropic/x": {"agentRuntime": "claude-cli"}}},
        {"models": {"openai/x": {"agentRuntime": {"id": "claude-cli"}}}},
        {"model": "  "},
    ]
    assert [_uses_claude_cli_model_selection(d) for d in defaults] == [
        False,
        True,
        True,
        False,
        False,
        True,
        True,
        False,
        False,
        False,
    ]


def test_a_model_entry_gets_the_claude_cli_runtime_unless_it_names_another():
    entries: list[JSValue] = [
        None,
        {"a": 1},
        {"agentRuntime": {"id": "auto", "x": 1}},
        {"agentRuntime": {"id": "pi"}},
        {"agentRuntime": "x"},
        {"agentRuntime": {"id": " AUTO "}},
    ]
    assert [_with_claude_cli_runtime(e) for e in entries] == [
        {"agentRuntime": {"id": "claude-cli"}},
        {"a": 1, "agentRuntime": {"id": "claude-cli"}},
        {"agentRuntime": {"id": "claude-cli", "x": 1}},
        {"agentRuntime": {"id": "pi"}},
        {"agentRuntime": {"id": "claude-cli"}},
        {"agentRuntime": {"id": "claude-cli"}},
    ]


def test_claude_cli_runtime_refs_gather_defaults_then_each_agents_primary_fallbacks_and_models():
    config: JSON = {
        "agents": {
            "list": [
                {"model": "claude-cli/opus"},
                {
                    "model": {"primary": "gpt-5", "fallbacks": ["claude-opus-4-1", 5]},
                    "models": {"anthropic/claude-x": {}},
                },
            ]
        }
    }
    defaults: JSON = {
        "model": {"primary": "claude-sonnet-4-5"},
        "models": {"anthropic/claude-y": {}},
    }
    assert _claude_cli_runtime_refs(config, defaults) == [
        "anthropic/claude-sonnet-4-5",
        "anthropic/claude-sonnet-4-6",
        "anthropic/claude-y",
        "anthropic/opus",
        "anthropic/claude-opus-4-8",
        "anthropic/claude-opus-4-1",
        "anthropic/claude-x",
    ]


def auth(**fields: JSON) -> JSON:
    return {"auth": fields}


def test_the_selected_auth_profile_is_claude_cli_by_order_or_when_it_is_the_only_kind():
    configs: list[JSON] = [
        {},
        auth(order={"anthropic": ["a"]}, profiles={"a": {"provider": "claude-cli"}}),
        auth(
            order={"anthropic": ["a", "b"]},
            profiles={"a": {"provider": "anthropic"}, "b": {"provider": "claude-cli"}},
        ),
        auth(order={"claude-cli": ["x", "b"]}, profiles={"b": {"provider": "claude-cli"}}),
        auth(profiles={"b": {"provider": "claude-cli"}}),
        auth(profiles={"b": {"provider": "claude-cli"}, "c": {"provider": "anthropic"}}),
    ]
    assert [_uses_selected_claude_cli_auth_profile(c) for c in configs] == [
        False,
        True,
        False,
        True,
        True,
        False,
    ]


def test_the_default_auth_mode_comes_from_the_ordered_profile_then_the_profile_kinds_then_the_environment():
    cases: list[tuple[JSON, dict[str, JSON], str | None]] = [
        ({}, {}, None),
        (
            auth(order={"anthropic": ["a"]}, profiles={"a": {"provider": "anthropic", "mode": "api_key"}}),
            {},
            "api_key",
        ),
        (
            auth(order={"anthropic": ["a"]}, profiles={"a": {"provider": "anthropic", "mode": "token"}}),
            {},
            "oauth",
        ),
        (auth(order={"anthropic": ["a"]}, profiles={"a": {"provider": "claude-cli"}}), {}, "oauth"),
        (
            auth(order={"anthropic": ["z", "a"]}, profiles={"a": {"provider": "anthropic", "mode": "oauth"}}),
            {},
            "oauth",
        ),
        (
            auth(
                order={"anthropic": ["a"]},
                profiles={
                    "a": {"provider": "anthropic", "mode": "other"},
                    "b": {"provider": "anthropic", "mode": "api_key"},
                },
            ),
            {},
            "api_key",
        ),
        (
            auth(
                profiles={"b": {"provider": "anthropic", "mode": "api_key"}, "c": {"provider": "claude-cli"}}
            ),
            {"ANTHROPIC_API_KEY": "k"},
            "api_key",
        ),
        (auth(profiles={"c": {"provider": "anthropic", "mode": "oauth"}}), {}, "oauth"),
        ({}, {"ANTHROPIC_OAUTH_TOKEN": " t ", "ANTHROPIC_API_KEY": "k"}, "oauth"),
        ({}, {"ANTHROPIC_OAUTH_TOKEN": "  ", "ANTHROPIC_API_KEY": "k"}, "api_key"),
        ({}, {"ANTHROPIC_API_KEY": " "}, None),
        (
            auth(order={"anthropic": [1]}, profiles={"1": {"provider": "anthropic", "mode": "api_key"}}),
            {},
            "api_key",
        ),
    ]
    assert [resolve_anthropic_default_auth_mode(c, e) for c, e, _ in cases] == [mode for _, _, mode in cases]


def test_profiles_on_unknown_claude_ids_and_aliases_are_kept_and_unknown_models_are_not_rewritten():
    assert resolve_known_anthropic_model_ref("claude-x@work") == "anthropic/claude-x@work"
    assert resolve_known_anthropic_model_ref("opus-4.7@team") == "anthropic/claude-opus-4-7@team"
    assert resolve_known_anthropic_model_ref("gpt-5@p") == "gpt-5@p"
    assert resolve_claude_cli_anthropic_model_refs("/a/b") is None
    assert resolve_claude_cli_anthropic_model_refs("/m") is None


def test_a_models_key_without_provider_means_anthropic_for_the_runtime_check():
    assert _uses_claude_cli_model_selection({"models": {"x": {"agentRuntime": {"id": "claude-cli"}}}}) is True


def test_a_non_record_model_entry_is_replaced_not_spread():
    assert _with_claude_cli_runtime([1]) == {"agentRuntime": {"id": "claude-cli"}}


def test_the_ordered_profile_decides_even_when_other_profiles_disagree():
    cli_first = auth(
        order={"anthropic": ["a"]}, profiles={"a": {"provider": "claude-cli"}, "c": {"provider": "anthropic"}}
    )
    cli_order = auth(
        order={"claude-cli": ["b"]},
        profiles={"b": {"provider": "claude-cli"}, "c": {"provider": "anthropic"}},
    )
    assert (
        _uses_selected_claude_cli_auth_profile(cli_first),
        _uses_selected_claude_cli_auth_profile(cli_order),
    ) == (True, True)
    both = {"b": {"provider": "anthropic", "mode": "oauth"}}
    key_first = auth(
        order={"anthropic": ["z", "a"]}, profiles={"a": {"provider": "anthropic", "mode": "api_key"}, **both}
    )
    token_first = auth(
        order={"anthropic": ["a"]},
        profiles={
            "a": {"provider": "anthropic", "mode": "token"},
            "k": {"provider": "anthropic", "mode": "api_key"},
        },
    )
    other_first = auth(
        order={"anthropic": ["o"]}, profiles={"o": {"provider": "openai", "mode": "api_key"}, **both}
    )
    as_string = auth(
        order={"anthropic": "a"}, profiles={"a": {"provider": "anthropic", "mode": "api_key"}, **both}
    )
    modes = [
        resolve_anthropic_default_auth_mode(c, {}) for c in (key_first, token_first, other_first, as_string)
    ]
    assert modes == ["api_key", "oauth", "oauth", "api_key"]


def test_profiles_given_as_a_list_or_string_are_read_by_index_like_object_entries():
    listed = auth(profiles=[{"provider": "anthropic", "mode": "api_key"}, {"provider": "openai"}])
    assert resolve_anthropic_default_auth_mode(listed, {}) == "api_key"
    assert resolve_anthropic_default_auth_mode(auth(profiles="ab"), {}) is None


def test_api_key_defaults_add_short_cache_retention_to_anthropic_models_and_the_allowlist():
    config: JSON = {
        "auth": {"profiles": {"a": {"provider": "anthropic", "mode": "api_key"}}},
        "agents": {
            "defaults": {
                "model": {"primary": "claude-opus-4-1"},
                "models": {
                    "anthropic/claude-x": {"params": {"cacheRetention": "long", "t": 1}},
                    "anthropic/claude-y": None,
                    "openai/gpt": {},
                    "amazon-bedrock/anthropic.claude-3": {"params": {"a": 1}},
                },
                "contextPruning": {"ttl": "5m", "x": 1},
                "heartbeat": {"every": "10m"},
            }
        },
    }
    short = {"params": {"cacheRetention": "short"}}
    assert apply_anthropic_config_defaults(config, {}) == {
        "auth": {"profiles": {"a": {"provider": "anthropic", "mode": "api_key"}}},
        "agents": {
            "defaults": {
                "model": {"primary": "claude-opus-4-1"},
                "models": {
                    "anthropic/claude-x": {"params": {"cacheRetention": "long", "t": 1}},
                    "anthropic/claude-y": short,
                    "openai/gpt": {},
                    "amazon-bedrock/anthropic.claude-3": {"params": {"a": 1, "cacheRetention": "short"}},
                    "anthropic/claude-opus-4-8": short,
                    "anthropic/claude-sonnet-5": short,
                    "anthropic/claude-sonnet-4-6": short,
                },
                "contextPruning": {"ttl": "5m", "x": 1, "mode": "cache-ttl"},
                "heartbeat": {"every": "10m"},
            }
        },
    }


def test_oauth_with_claude_cli_routes_every_selected_and_allowlisted_model_through_the_cli_runtime():
    config: JSON = {
        "auth": {"profiles": {"c": {"provider": "claude-cli"}}},
        "agents": {
            "defaults": {
                "model": "claude-opus-4-1",
                "models": {"anthropic/claude-opus-4-8": {"agentRuntime": {"id": "pi"}}},
            }
        },
    }
    cli = {"agentRuntime": {"id": "claude-cli"}}
    assert apply_anthropic_config_defaults(config, {}) == {
        "auth": {"profiles": {"c": {"provider": "claude-cli"}}},
        "agents": {
            "defaults": {
                "model": "claude-opus-4-1",
                "models": {
                    "anthropic/claude-opus-4-8": {"agentRuntime": {"id": "pi"}},
                    "anthropic/claude-opus-4-1": cli,
                    "anthropic/claude-sonnet-5": cli,
                    "anthropic/claude-opus-4-7": cli,
                    "anthropic/claude-sonnet-4-6": cli,
                    "anthropic/claude-opus-4-6": cli,
                },
                "contextPruning": {"mode": "cache-ttl", "ttl": "1h"},
                "heartbeat": {"every": "1h"},
            }
        },
    }


def test_a_config_with_everything_set_or_without_anthropic_auth_is_returned_as_it_is():
    complete: JSON = {
        "agents": {"defaults": {"contextPruning": {"mode": "off"}, "heartbeat": {"every": "1m"}}}
    }
    assert apply_anthropic_config_defaults(complete, {"ANTHROPIC_OAUTH_TOKEN": "t"}) is complete
    no_auth: JSON = {"agents": {"defaults": {}}}
    assert apply_anthropic_config_defaults(no_auth, {}) is no_auth
    no_defaults: JSON = {"agents": {}}
    assert apply_anthropic_config_defaults(no_defaults, {"ANTHROPIC_API_KEY": "k"}) is no_defaults


KEY_AUTH: JSON = {"profiles": {"a": {"provider": "anthropic", "mode": "api_key"}}}
SET: dict[str, JSON] = {"contextPruning": {"mode": "off"}, "heartbeat": {"every": "5m"}}
LONG = {"params": {"cacheRetention": "long"}}
SHORT = {"params": {"cacheRetention": "short"}}


def defaults_after(defaults: JSON, auth_block: JSON = KEY_AUTH) -> JSON:
    result = apply_anthropic_config_defaults({"auth": auth_block, "agents": {"defaults": defaults}}, {})
    return get(get(result, "agents"), "defaults")


def test_a_model_key_without_provider_is_an_anthropic_model_and_gets_retention():
    models: JSON = {"anthropic/claude-sonnet-5": LONG, "anthropic/claude-sonnet-4-6": LONG, "claude-z": {}}
    assert get(defaults_after({**SET, "models": models}), "models") == {**models, "claude-z": SHORT}


def test_a_primary_model_without_provider_gets_an_anthropic_entry_with_retention():
    models: JSON = {"anthropic/claude-sonnet-5": LONG, "anthropic/claude-sonnet-4-6": LONG}
    result = defaults_after({**SET, "models": models, "model": "gpt-5"})
    assert get(result, "models") == {**models, "anthropic/gpt-5": SHORT}


def test_existing_heartbeat_fields_are_kept_when_every_is_filled_in():
    result = defaults_after({"contextPruning": {"mode": "off"}, "heartbeat": {"target": "x"}})
    assert get(result, "heartbeat") == {"target": "x", "every": "30m"}


def test_the_other_agents_keys_are_kept():
    config: JSON = {"auth": KEY_AUTH, "agents": {"defaults": {}, "list": [{"id": "main"}]}}
    result = apply_anthropic_config_defaults(config, {})
    assert get(get(result, "agents"), "list") == [{"id": "main"}]


def test_an_agents_own_claude_model_is_routed_through_the_cli_runtime_too():
    cli_auth: JSON = {"profiles": {"c": {"provider": "claude-cli"}}}
    config: JSON = {"auth": cli_auth, "agents": {"defaults": SET, "list": [{"model": "claude-3-haiku"}]}}
    models = get(get(get(apply_anthropic_config_defaults(config, {}), "agents"), "defaults"), "models")
    assert isinstance(models, dict) and list(models)[:2] == [
        "anthropic/claude-3-haiku",
        "anthropic/claude-sonnet-4-6",
    ]


def test_truthiness_and_spreading_of_strings_and_numbers_follow_javascript():
    values: list[JSValue] = ["x", "", 1, 0, 0.5, True, False, [], {}, None, UNDEFINED]
    assert [truthy(v) for v in values] == [
        True,
        False,
        True,
        False,
        True,
        True,
        False,
        True,
        True,
        False,
        False,
    ]
    assert spread("ab") == {"0": "a", "1": "b"}
    assert spread(["a"]) == {"0": "a"}
    assert spread(3) == {}


def test_only_anthropic_and_bedrock_claude_models_are_cache_retention_targets():
    parsed: list[tuple[str, str] | None] = [
        None,
        ("anthropic", "anything"),
        ("amazon-bedrock", "us.Anthropic.Claude-x"),
        ("amazon-bedrock", "titan"),
        ("openai", "anthropic.claude-x"),
    ]
    assert [is_cache_retention_target(p) for p in parsed] == [False, True, True, False, False]


def test_an_auth_profile_delimiter_at_the_very_start_is_no_delimiter_even_before_a_date_stamp():
    assert _split_trailing_auth_profile("@20250101@work") == ("@20250101@work", None)


def test_an_ordered_oauth_profile_decides_oauth_even_beside_an_api_key_profile():
    profiles: dict[str, JSON] = {
        "a": {"provider": "anthropic", "mode": "oauth"},
        "b": {"provider": "anthropic", "mode": "api_key"},
    }
    config: JSON = {"auth": {"order": {"anthropic": ["a"]}, "profiles": profiles}}
    assert resolve_anthropic_default_auth_mode(config, {}) == "oauth"


def test_an_unordered_token_profile_alone_means_oauth():
    config: JSON = {"auth": {"profiles": {"t": {"provider": "anthropic", "mode": "token"}}}}
    assert resolve_anthropic_default_auth_mode(config, {}) == "oauth"


def test_cache_retention_keeps_the_model_entrys_other_fields():
    config: JSON = {
        "auth": {"profiles": {"a": {"provider": "anthropic", "mode": "api_key"}}},
        "agents": {
            "defaults": {"models": {"anthropic/claude-x": {"alias": "fast"}}, "heartbeat": {"every": "1m"}}
        },
    }
    result = apply_anthropic_config_defaults(config, {})
    models = get(get(get(result, "agents"), "defaults"), "models")
    assert get(models, "anthropic/claude-x") == {"alias": "fast", "params": {"cacheRetention": "short"}}


def test_a_model_key_without_provider_alone_brings_in_the_allowlist():
    models = get(defaults_after({**SET, "models": {"claude-z": {}}}), "models")
    assert models == {
        "claude-z": SHORT,
        "anthropic/claude-sonnet-5": SHORT,
        "anthropic/claude-sonnet-4-6": SHORT,
    }


def test_an_api_key_config_with_only_non_anthropic_models_is_returned_as_it_is():
    config: JSON = {
        "auth": KEY_AUTH,
        "agents": {"defaults": {**SET, "model": "openai/gpt-5", "models": {"openai/gpt": {}}}},
    }
    assert apply_anthropic_config_defaults(config, {}) is config


def test_the_primary_models_existing_entry_keeps_its_fields_when_it_gets_retention():
    models: JSON = {"anthropic/claude-opus-4-8": {"alias": "o"}}
    result = defaults_after({**SET, "model": "anthropic/claude-opus-4-8", "models": models})
    assert get(result, "models") == {
        "anthropic/claude-opus-4-8": {"alias": "o", **SHORT},
        "anthropic/claude-sonnet-5": SHORT,
        "anthropic/claude-sonnet-4-6": SHORT,
    }


def test_a_missing_pruning_mode_alone_is_filled_in():
    result = defaults_after({"heartbeat": {"every": "5m"}})
    assert result == {"heartbeat": {"every": "5m"}, "contextPruning": {"mode": "cache-ttl", "ttl": "1h"}}


def test_an_oauth_token_with_a_claude_cli_primary_routes_models_through_the_cli_runtime():
    config: JSON = {"agents": {"defaults": {**SET, "model": "claude-cli/claude-opus-4-8"}}}
    result = apply_anthropic_config_defaults(config, {"ANTHROPIC_OAUTH_TOKEN": "t"})
    models = get(get(get(result, "agents"), "defaults"), "models")
    assert get(models, "anthropic/claude-opus-4-8") == {"agentRuntime": {"id": "claude-cli"}}


def test_a_claude_cli_config_whose_models_all_use_the_cli_runtime_is_returned_as_it_is():
    cli = {"agentRuntime": {"id": "claude-cli"}}
    models: JSON = {
        "anthropic/claude-opus-4-8": cli,
        "anthropic/claude-sonnet-5": cli,
        "anthropic/claude-opus-4-7": cli,
        "anthropic/claude-sonnet-4-6": cli,
        "anthropic/claude-opus-4-6": cli,
    }
    config: JSON = {
        "auth": {"profiles": {"c": {"provider": "claude-cli"}}},
        "agents": {"defaults": {**SET, "models": models}},
    }
    assert apply_anthropic_config_defaults(config, {}) is config
