"""OpenClaw's ``contextPruning`` settings, literally: defaults, clamping, the window, the profile checks.

Rules: /work/shared/spec/openclaw.md §2 (schema, ``DEFAULT_CONTEXT_PRUNING_SETTINGS``,
``computeEffectiveSettings`` of ``src/agents/agent-hooks/context-pruning/settings.ts``) and §3
(``resolveContextWindowInfo`` of ``src/agents/context-window-guard.ts``, default 200000), pitfall 12;
the strict zod ``contextPruning`` object of ``src/config/zod-schema*.ts``. Profile-only refusals (a bad
``ttl``, 2026.9.6's retired keys, the route) are Trimscope's own and pinned by their messages.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from simulator.errors import ProfileError
from simulator.jsonvalue import JSON
from simulator.runtimes.openclaw.duration import DurationError
from simulator.runtimes.openclaw.settings import (
    EffectivePruningSettings,
    HardClearConfig,
    HardClearSettings,
    OpenClawSettings,
    RouteConfig,
    SoftTrimConfig,
    SoftTrimSettings,
    ToolsConfig,
    compute_effective_settings,
    resolve_context_window_tokens,
)

DEFAULT_JSON: dict[str, JSON] = {
    "mode": "cache-ttl",
    "ttlMs": 300_000,
    "keepLastAssistants": 3,
    "softTrimRatio": 0.3,
    "hardClearRatio": 0.5,
    "minPrunableToolChars": 50_000,
    "tools": {},
    "softTrim": {"maxChars": 4000, "headChars": 1500, "tailChars": 1500},
    "hardClear": {"enabled": True, "placeholder": "[Old tool result content cleared]"},
}
INVALID_SOON = 'Invalid duration: "soon". Use values like 500ms, 30s, 5m, 2h, or 1h30m.'
RETIRED = "retired in OpenClaw 2026.9.6 (its built-in default applies)"
TOP_KEYS = (
    "mode, ttl, keepLastAssistants, softTrimRatio, hardClearRatio, minPrunableToolChars, tools, softTrim, "
    "hardClear"
)


def refusal(call: Callable[[], object]) -> tuple[str, str, str | None]:
    with pytest.raises(ProfileError) as caught:
        call()
    return caught.value.field, caught.value.problem, caught.value.allowed


def effective(raw: JSON) -> EffectivePruningSettings:
    settings = compute_effective_settings(raw)
    assert settings is not None
    return settings


# --- the effective settings object (§2 defaults, as the vectors and the pruner hold it) ---


def test_the_defaults_serialise_exactly_as_openclaws_default_context_pruning_settings() -> None:
    assert EffectivePruningSettings().to_json() == DEFAULT_JSON


def test_integral_doubles_serialise_as_integers_and_fractions_stay_fractions() -> None:
    settings = EffectivePruningSettings(
        mode="off",
        ttl_ms=60_000.0,
        keep_last_assistants=2.0,
        soft_trim_ratio=0.25,
        hard_clear_ratio=1.0,
        min_prunable_tool_chars=7.5,
        tools={"deny": ["exec"]},
        soft_trim=SoftTrimSettings(10.0, 4.0, 3.0),
        hard_clear=HardClearSettings(False, "gone"),
    )
    out = settings.to_json()
    assert out == {
        "mode": "off",
        "ttlMs": 60_000,
        "keepLastAssistants": 2,
        "softTrimRatio": 0.25,
        "hardClearRatio": 1,
        "minPrunableToolChars": 7.5,
        "tools": {"deny": ["exec"]},
        "softTrim": {"maxChars": 10, "headChars": 4, "tailChars": 3},
        "hardClear": {"enabled": False, "placeholder": "gone"},
    }
    soft = out["softTrim"]
    assert isinstance(soft, dict)
    assert [type(out[k]) for k in ("ttlMs", "keepLastAssistants", "hardClearRatio")] == [int, int, int]
    assert [type(v) for v in soft.values()] == [int, int, int]


def test_an_effective_settings_object_is_read_back_field_by_field_without_clamping() -> None:
    raw: JSON = {
        "mode": "off",
        "ttlMs": 1,
        "keepLastAssistants": -2,
        "softTrimRatio": 10,
        "hardClearRatio": 0.75,
        "minPrunableToolChars": 9,
        "tools": {"allow": ["read"]},
        "softTrim": {"maxChars": 8, "headChars": 5, "tailChars": 6},
        "hardClear": {"enabled": False, "placeholder": "  x  "},
    }
    assert EffectivePruningSettings.from_json(raw) == EffectivePruningSettings(
        mode="off",
        ttl_ms=1,
        keep_last_assistants=-2,
        soft_trim_ratio=10,
        hard_clear_ratio=0.75,
        min_prunable_tool_chars=9,
        tools={"allow": ["read"]},
        soft_trim=SoftTrimSettings(8, 5, 6),
        hard_clear=HardClearSettings(False, "  x  "),
    )
    assert EffectivePruningSettings.from_json(raw).to_json() == raw


def test_reading_back_falls_back_to_each_default_for_missing_or_mistyped_fields() -> None:
    assert EffectivePruningSettings.from_json(None) == EffectivePruningSettings()
    assert EffectivePruningSettings.from_json([1]) == EffectivePruningSettings()
    assert EffectivePruningSettings.from_json({}).to_json() == DEFAULT_JSON
    mistyped: JSON = {
        "mode": 1,
        "ttlMs": True,
        "keepLastAssistants": "5",
        "softTrimRatio": None,
        "hardClearRatio": False,
        "minPrunableToolChars": [1],
        "softTrim": {"maxChars": "8", "headChars": True, "tailChars": None},
        "hardClear": {"enabled": 0, "placeholder": 5},
    }
    assert EffectivePruningSettings.from_json(mistyped).to_json() == DEFAULT_JSON
    not_objects: JSON = {"softTrim": [1], "hardClear": "off"}
    assert EffectivePruningSettings.from_json(not_objects).to_json() == DEFAULT_JSON


def test_reading_back_keeps_tools_verbatim_and_infinite_numbers_as_they_are() -> None:
    read = EffectivePruningSettings.from_json(
        {"tools": None, "ttlMs": math.inf, "softTrim": {"tailChars": 2.5}}
    )
    assert read.tools is None
    assert read.ttl_ms == math.inf
    assert read.soft_trim == SoftTrimSettings(4000, 1500, 2.5)


# --- computeEffectiveSettings (§2 steps 1-6, pitfall 12) ---


@pytest.mark.parametrize(
    "raw",
    [None, "cache-ttl", ["cache-ttl"], {}, {"mode": "off"}, {"mode": "CACHE-TTL"}, {"mode": " cache-ttl"}],
)
def test_pruning_is_off_unless_the_block_is_an_object_with_mode_exactly_cache_ttl(raw: JSON) -> None:
    assert compute_effective_settings(raw) is None


def test_mode_cache_ttl_alone_gives_the_defaults() -> None:
    settings = effective({"mode": "cache-ttl"})
    assert settings == EffectivePruningSettings()
    assert settings.to_json() == DEFAULT_JSON


def test_every_configured_field_is_floored_clamped_or_trimmed_into_the_effective_settings() -> None:
    settings = effective(
        {
            "mode": "cache-ttl",
            "ttl": "1h30m",
            "keepLastAssistants": 4.9,
            "softTrimRatio": 0.25,
            "hardClearRatio": 0.75,
            "minPrunableToolChars": 1234.5,
            "tools": {"allow": ["Read*"], "deny": ["exec"]},
            "softTrim": {"maxChars": 99.9, "headChars": 40.2, "tailChars": 30.7},
            "hardClear": {"enabled": False, "placeholder": "\u00a0\ufeff cleared \n"},
        }
    )
    assert settings.to_json() == {
        "mode": "cache-ttl",
        "ttlMs": 5_400_000,
        "keepLastAssistants": 4,
        "softTrimRatio": 0.25,
        "hardClearRatio": 0.75,
        "minPrunableToolChars": 1234,
        "tools": {"allow": ["Read*"], "deny": ["exec"]},
        "softTrim": {"maxChars": 99, "headChars": 40, "tailChars": 30},
        "hardClear": {"enabled": False, "placeholder": "cleared"},
    }
    assert [type(v) for v in (settings.keep_last_assistants, settings.min_prunable_tool_chars)] == [int, int]


def test_negative_counts_floor_to_zero_and_ratios_clamp_to_the_unit_interval() -> None:
    settings = effective(
        {
            "mode": "cache-ttl",
            "keepLastAssistants": -0.5,
            "softTrimRatio": -0.1,
            "hardClearRatio": 1.5,
            "minPrunableToolChars": -7,
            "softTrim": {"maxChars": -1, "headChars": -0.25, "tailChars": -3},
        }
    )
    assert (settings.keep_last_assistants, settings.soft_trim_ratio, settings.hard_clear_ratio) == (0, 0, 1)
    assert settings.min_prunable_tool_chars == 0
    assert settings.soft_trim == SoftTrimSettings(0, 0, 0)
    upper = effective({"mode": "cache-ttl", "softTrimRatio": 2, "hardClearRatio": -2})
    assert (upper.soft_trim_ratio, upper.hard_clear_ratio) == (1, 0)
    edges = effective({"mode": "cache-ttl", "softTrimRatio": 0, "hardClearRatio": 1, "keepLastAssistants": 0})
    assert (edges.soft_trim_ratio, edges.hard_clear_ratio, edges.keep_last_assistants) == (0, 1, 0)


@pytest.mark.parametrize("value", ["0.9", True, False, None, math.inf, -math.inf, math.nan, [1], {"n": 1}])
def test_a_number_counts_only_when_it_is_a_finite_json_number(value: JSON) -> None:
    raw: JSON = {
        "mode": "cache-ttl",
        "keepLastAssistants": value,
        "softTrimRatio": value,
        "hardClearRatio": value,
        "minPrunableToolChars": value,
        "softTrim": {"maxChars": value, "headChars": value, "tailChars": value},
    }
    assert effective(raw).to_json() == DEFAULT_JSON


def test_a_partial_soft_trim_block_keeps_the_other_defaults() -> None:
    def soft(block: JSON) -> SoftTrimSettings:
        return effective({"mode": "cache-ttl", "softTrim": block}).soft_trim

    assert soft({"headChars": 7}) == SoftTrimSettings(4000, 7, 1500)
    assert soft({"tailChars": 8}) == SoftTrimSettings(4000, 1500, 8)
    assert soft({"maxChars": 9}) == SoftTrimSettings(9, 1500, 1500)
    assert soft([9]) == SoftTrimSettings()


@pytest.mark.parametrize(
    ("ttl", "ttl_ms"),
    [("10", 600_000), ("0", 0), ("90s", 90_000), ("1h", 3_600_000), (" 2M ", 120_000), ("250ms", 250)],
)
def test_a_ttl_string_is_parsed_with_minutes_as_the_default_unit(ttl: str, ttl_ms: int) -> None:
    assert effective({"mode": "cache-ttl", "ttl": ttl}).ttl_ms == ttl_ms


@pytest.mark.parametrize("ttl", ["soon", "", "1h 30m", "-5m", 10, None, True])
def test_an_unparseable_or_non_string_ttl_silently_keeps_five_minutes(ttl: JSON) -> None:
    assert effective({"mode": "cache-ttl", "ttl": ttl}).ttl_ms == 300_000


def test_hard_clear_takes_only_a_boolean_switch_and_a_non_blank_placeholder() -> None:
    def hard(block: JSON) -> HardClearSettings:
        return effective({"mode": "cache-ttl", "hardClear": block}).hard_clear

    assert hard({"enabled": False}) == HardClearSettings(False, "[Old tool result content cleared]")
    assert hard({"placeholder": "x"}) == HardClearSettings(True, "x")
    assert hard({"enabled": 0, "placeholder": " \u3000\t "}) == HardClearSettings()
    assert hard({"placeholder": 5}) == HardClearSettings()
    assert hard("off") == HardClearSettings()


@pytest.mark.parametrize(
    ("tools", "kept"),
    [
        ([], []),
        ({}, {}),
        ("exec", "exec"),
        (1, 1),
        ({"deny": ["*"]}, {"deny": ["*"]}),
        ("", {}),
        (0, {}),
        (False, {}),
        (None, {}),
    ],
)
def test_tools_replace_the_default_wholesale_when_js_finds_them_truthy(tools: JSON, kept: JSON) -> None:
    assert effective({"mode": "cache-ttl", "tools": tools}).tools == kept
    assert type(effective({"mode": "cache-ttl", "tools": tools}).tools) is type(kept)


# --- the window the runtime passes to the pruner (§3) ---


def test_the_window_defaults_to_200000_tokens() -> None:
    assert resolve_context_window_tokens() == 200_000
    assert resolve_context_window_tokens(None, None, None) == 200_000


def test_the_models_context_tokens_come_before_its_context_window_and_are_floored() -> None:
    assert resolve_context_window_tokens(120_000.9, 300_000) == 120_000
    assert type(resolve_context_window_tokens(120_000.9, 300_000)) is int
    assert resolve_context_window_tokens(None, 300_000.5) == 300_000
    assert resolve_context_window_tokens(1, 300_000) == 1


@pytest.mark.parametrize("tokens", [0, 0.5, -5, math.inf, -math.inf, math.nan])
def test_a_context_tokens_value_that_does_not_floor_to_a_positive_number_falls_through(tokens: float) -> None:
    assert resolve_context_window_tokens(tokens, 64_000) == 64_000
    assert resolve_context_window_tokens(tokens, tokens) == 200_000
    assert resolve_context_window_tokens(None, tokens) == 200_000


def test_agents_context_tokens_cap_the_window_only_when_smaller_and_positive() -> None:
    assert resolve_context_window_tokens(None, 300_000, 150_000.7) == 150_000
    assert resolve_context_window_tokens(None, 100_000, 150_000) == 100_000
    assert resolve_context_window_tokens(None, 100_000, 100_000) == 100_000
    assert resolve_context_window_tokens(None, 100_000, 99_999) == 99_999
    assert resolve_context_window_tokens(None, None, 1) == 1
    assert resolve_context_window_tokens(None, None, 1.5) == 1
    for ignored in (0, 0.5, -1, math.inf, -math.inf, math.nan, 250_000):
        assert resolve_context_window_tokens(None, None, ignored) == 200_000


def test_a_profile_resolves_its_window_from_the_model_window_and_the_agents_cap() -> None:
    assert OpenClawSettings().context_window_tokens() == 200_000
    assert OpenClawSettings(model_context_window=300_000).context_window_tokens() == 300_000
    assert OpenClawSettings(context_tokens=150_000).context_window_tokens() == 150_000
    capped = OpenClawSettings(model_context_window=300_000, context_tokens=150_000)
    assert capped.context_window_tokens() == 150_000
    uncapped = OpenClawSettings(model_context_window=100_000, context_tokens=150_000)
    assert uncapped.context_window_tokens() == 100_000


# --- the profile: the contextPruning block it writes and what OpenClaw derives from it ---

FULL = OpenClawSettings(
    mode="cache-ttl",
    ttl="1h",
    keepLastAssistants=2,
    softTrimRatio=0.4,
    hardClearRatio=0.6,
    minPrunableToolChars=1000,
    softTrim=SoftTrimConfig(800, 300, 200),
    hardClear=HardClearConfig(False, " x "),
    tools=ToolsConfig(("read",), ("exec", "bash")),
    model_context_window=300_000,
    context_tokens=150_000,
)
FULL_JSON: dict[str, JSON] = {
    "mode": "cache-ttl",
    "ttl": "1h",
    "keepLastAssistants": 2,
    "softTrimRatio": 0.4,
    "hardClearRatio": 0.6,
    "minPrunableToolChars": 1000,
    "tools": {"allow": ["read"], "deny": ["exec", "bash"]},
    "softTrim": {"maxChars": 800, "headChars": 300, "tailChars": 200},
    "hardClear": {"enabled": False, "placeholder": " x "},
}


def test_a_profile_writes_every_set_key_of_its_context_pruning_block() -> None:
    assert FULL.context_pruning_json() == FULL_JSON
    assert list(FULL.context_pruning_json()) == list(FULL_JSON)


def test_a_profile_omits_unset_keys_but_keeps_zero_false_and_empty_values() -> None:
    assert OpenClawSettings().context_pruning_json() == {}
    zeros = OpenClawSettings(
        keepLastAssistants=0,
        softTrimRatio=0.0,
        hardClearRatio=0.0,
        minPrunableToolChars=0,
        softTrim=SoftTrimConfig(headChars=0),
        hardClear=HardClearConfig(enabled=False),
        tools=ToolsConfig(deny=()),
    )
    assert zeros.context_pruning_json() == {
        "keepLastAssistants": 0,
        "softTrimRatio": 0.0,
        "hardClearRatio": 0.0,
        "minPrunableToolChars": 0,
        "tools": {"deny": []},
        "softTrim": {"headChars": 0},
        "hardClear": {"enabled": False},
    }
    only: list[tuple[OpenClawSettings, dict[str, JSON]]] = [
        (OpenClawSettings(mode="off"), {"mode": "off"}),
        (OpenClawSettings(ttl="5m"), {"ttl": "5m"}),
        (OpenClawSettings(tools=ToolsConfig(allow=())), {"tools": {"allow": []}}),
        (OpenClawSettings(softTrim=SoftTrimConfig(maxChars=1)), {"softTrim": {"maxChars": 1}}),
        (OpenClawSettings(softTrim=SoftTrimConfig(tailChars=2)), {"softTrim": {"tailChars": 2}}),
        (OpenClawSettings(hardClear=HardClearConfig(placeholder="")), {"hardClear": {"placeholder": ""}}),
    ]
    for profile, block in only:
        assert profile.context_pruning_json() == block


def test_a_profile_derives_openclaws_effective_settings_from_its_block() -> None:
    derived = FULL.effective()
    assert derived is not None
    assert derived.to_json() == {
        "mode": "cache-ttl",
        "ttlMs": 3_600_000,
        "keepLastAssistants": 2,
        "softTrimRatio": 0.4,
        "hardClearRatio": 0.6,
        "minPrunableToolChars": 1000,
        "tools": {"allow": ["read"], "deny": ["exec", "bash"]},
        "softTrim": {"maxChars": 800, "headChars": 300, "tailChars": 200},
        "hardClear": {"enabled": False, "placeholder": "x"},
    }
    assert OpenClawSettings(ttl="1h").effective() is None
    assert OpenClawSettings(mode="off").effective() is None


# --- reading a profile's block with the strict schema ---


def test_a_full_block_is_read_key_by_key() -> None:
    read = OpenClawSettings.from_json(FULL_JSON, model_context_window=300_000, context_tokens=150_000)
    assert read == FULL


def test_no_block_reads_as_an_empty_profile() -> None:
    assert OpenClawSettings.from_json(None) == OpenClawSettings()
    assert OpenClawSettings.from_json({}) == OpenClawSettings()


def test_integral_floats_read_as_integers_and_numbers_stay_numbers() -> None:
    block: JSON = {
        "keepLastAssistants": 3.0,
        "softTrimRatio": 1,
        "hardClearRatio": 0.5,
        "softTrim": {"maxChars": 10.0},
    }
    read = OpenClawSettings.from_json(block, model_context_window=1000.0, context_tokens=500)
    integers = (read.keepLastAssistants, read.softTrim.maxChars, read.model_context_window)
    assert integers == (3, 10, 1000)
    assert [type(v) for v in integers] == [int, int, int]
    assert (read.softTrimRatio, read.hardClearRatio, read.context_tokens) == (1, 0.5, 500)
    assert OpenClawSettings.from_json({"tools": {"allow": []}}).tools == ToolsConfig((), None)


@pytest.mark.parametrize(
    ("block", "field", "problem"),
    [
        ({"mode": 1}, "contextPruning.mode", "must be a string"),
        ({"ttl": 5}, "contextPruning.ttl", "must be a string"),
        ({"keepLastAssistants": 1.5}, "contextPruning.keepLastAssistants", "must be an integer"),
        ({"keepLastAssistants": True}, "contextPruning.keepLastAssistants", "must be an integer"),
        ({"keepLastAssistants": "3"}, "contextPruning.keepLastAssistants", "must be an integer"),
        ({"softTrimRatio": "0.5"}, "contextPruning.softTrimRatio", "must be a number"),
        ({"softTrimRatio": True}, "contextPruning.softTrimRatio", "must be a number"),
        ({"hardClearRatio": [0.5]}, "contextPruning.hardClearRatio", "must be a number"),
        ({"minPrunableToolChars": 0.5}, "contextPruning.minPrunableToolChars", "must be an integer"),
        ({"softTrim": {"maxChars": "1"}}, "contextPruning.softTrim.maxChars", "must be an integer"),
        ({"softTrim": {"headChars": False}}, "contextPruning.softTrim.headChars", "must be an integer"),
        ({"softTrim": {"tailChars": 2.5}}, "contextPruning.softTrim.tailChars", "must be an integer"),
        ({"hardClear": {"enabled": 1}}, "contextPruning.hardClear.enabled", "must be a boolean"),
        ({"hardClear": {"enabled": "true"}}, "contextPruning.hardClear.enabled", "must be a boolean"),
        ({"hardClear": {"placeholder": 0}}, "contextPruning.hardClear.placeholder", "must be a string"),
        ({"tools": {"allow": "read"}}, "contextPruning.tools.allow", "must be a list of strings"),
        ({"tools": {"deny": ["exec", 1]}}, "contextPruning.tools.deny", "must be a list of strings"),
        ("cache-ttl", "contextPruning", "must be an object"),
        ({"softTrim": [1]}, "contextPruning.softTrim", "must be an object"),
        ({"hardClear": True}, "contextPruning.hardClear", "must be an object"),
        ({"tools": ["read"]}, "contextPruning.tools", "must be an object"),
    ],
)
def test_a_wrong_json_type_is_refused_naming_its_key(block: JSON, field: str, problem: str) -> None:
    assert refusal(lambda: OpenClawSettings.from_json(block)) == (field, problem, None)


def test_the_window_inputs_must_be_integers() -> None:
    assert refusal(lambda: OpenClawSettings.from_json(None, model_context_window="1")) == (
        "model.contextWindow",
        "must be an integer",
        None,
    )
    assert refusal(lambda: OpenClawSettings.from_json(None, context_tokens=1.5)) == (
        "agents.defaults.contextTokens",
        "must be an integer",
        None,
    )


@pytest.mark.parametrize(
    ("block", "field", "allowed"),
    [
        ({"stripThinking": True, "aaa": 1}, "contextPruning.aaa", TOP_KEYS),
        ({"mode": "cache-ttl", "stripThinking": True}, "contextPruning.stripThinking", TOP_KEYS),
        ({"softTrim": {"maxChar": 1}}, "contextPruning.softTrim.maxChar", "maxChars, headChars, tailChars"),
        ({"hardClear": {"enable": True}}, "contextPruning.hardClear.enable", "enabled, placeholder"),
        ({"tools": {"deny": [], "allowed": []}}, "contextPruning.tools.allowed", "allow, deny"),
    ],
)
def test_an_unknown_key_is_refused_naming_the_first_sorted(block: JSON, field: str, allowed: str) -> None:
    assert refusal(lambda: OpenClawSettings.from_json(block)) == (field, "unknown key", allowed)


# --- validating a profile (zod ranges, plus Trimscope's refusals) ---


def test_an_empty_and_a_full_profile_are_valid() -> None:
    OpenClawSettings().validate()
    FULL.validate()
    OpenClawSettings(mode="off", ttl="10").validate()
    OpenClawSettings(softTrimRatio=0, hardClearRatio=1, keepLastAssistants=0).validate()
    OpenClawSettings(minPrunableToolChars=0).validate()
    OpenClawSettings(softTrim=SoftTrimConfig(0, 0, 0), model_context_window=1, context_tokens=1).validate()


def test_an_unknown_mode_is_refused_with_the_two_modes() -> None:
    assert refusal(OpenClawSettings(mode="Cache-TTL").validate) == (
        "contextPruning.mode",
        "unknown mode 'Cache-TTL'",
        '"off" | "cache-ttl"',
    )


def test_a_ttl_that_openclaw_would_silently_ignore_is_refused_in_a_profile() -> None:
    with pytest.raises(ProfileError) as caught:
        OpenClawSettings(ttl="soon").validate()
    assert (caught.value.field, caught.value.problem, caught.value.allowed) == (
        "contextPruning.ttl",
        INVALID_SOON,
        "duration like 5m, 1h, 1h30m",
    )
    assert isinstance(caught.value.__cause__, DurationError)


def test_a_bare_number_ttl_is_checked_as_minutes_up_to_the_safe_integers() -> None:
    # 150000000000 min = 9e15 ms fits below 2**53; 200000000000 min does not (it would as milliseconds).
    OpenClawSettings(ttl="150000000000").validate()
    assert effective({"mode": "cache-ttl", "ttl": "150000000000"}).ttl_ms == 9_000_000_000_000_000
    assert refusal(OpenClawSettings(ttl="200000000000").validate) == (
        "contextPruning.ttl",
        'Invalid duration: "200000000000". Use values like 500ms, 30s, 5m, 2h, or 1h30m.',
        "duration like 5m, 1h, 1h30m",
    )
    assert effective({"mode": "cache-ttl", "ttl": "200000000000"}).ttl_ms == 300_000


@pytest.mark.parametrize(
    ("profile", "field", "minimum", "value"),
    [
        (OpenClawSettings(keepLastAssistants=-1), "contextPruning.keepLastAssistants", 0, -1),
        (OpenClawSettings(minPrunableToolChars=-1), "contextPruning.minPrunableToolChars", 0, -1),
        (OpenClawSettings(softTrim=SoftTrimConfig(maxChars=-1)), "contextPruning.softTrim.maxChars", 0, -1),
        (OpenClawSettings(softTrim=SoftTrimConfig(headChars=-2)), "contextPruning.softTrim.headChars", 0, -2),
        (OpenClawSettings(softTrim=SoftTrimConfig(tailChars=-3)), "contextPruning.softTrim.tailChars", 0, -3),
        (OpenClawSettings(model_context_window=0), "model.contextWindow", 1, 0),
        (OpenClawSettings(context_tokens=0), "agents.defaults.contextTokens", 1, 0),
        (OpenClawSettings(route=RouteConfig(context_tokens=0)), "model.contextTokens", 1, 0),
        (OpenClawSettings(route=RouteConfig(max_tokens=0)), "model.maxTokens", 1, 0),
        (OpenClawSettings(route=RouteConfig(context_token_budget=0)), "trimscope.contextTokenBudget", 1, 0),
        (
            OpenClawSettings(route=RouteConfig(compaction_summary_tokens=-1)),
            "trimscope.compactionSummaryTokens",
            0,
            -1,
        ),
    ],
)
def test_a_count_below_its_minimum_is_refused_naming_field_value_and_minimum(
    profile: OpenClawSettings, field: str, minimum: int, value: int
) -> None:
    assert refusal(profile.validate) == (field, f"must be >= {minimum}, got {value}", f"integer >= {minimum}")


def test_route_counts_at_their_minimum_and_known_auth_modes_are_valid() -> None:
    RouteConfig(context_tokens=1, max_tokens=1).validate()
    RouteConfig(context_token_budget=1, compaction_summary_tokens=0).validate()
    RouteConfig(auth="api_key").validate()
    RouteConfig(auth="oauth").validate()


def test_an_unknown_auth_mode_is_refused_with_the_two_modes() -> None:
    assert refusal(RouteConfig(auth="token").validate) == (
        "trimscope.auth",
        "unknown auth 'token'",
        "api_key, oauth",
    )


def test_a_route_is_default_only_when_nothing_is_set() -> None:
    assert RouteConfig().is_default()
    assert not RouteConfig(provider="anthropic").is_default()


@pytest.mark.parametrize(
    ("ratio", "shown"),
    [(-0.1, "-0.1"), (1.1, "1.1"), (math.inf, "inf"), (-math.inf, "-inf"), (math.nan, "nan")],
)
def test_a_ratio_outside_zero_to_one_or_not_finite_is_refused(ratio: float, shown: str) -> None:
    assert refusal(OpenClawSettings(softTrimRatio=ratio).validate) == (
        "contextPruning.softTrimRatio",
        f"must be between 0 and 1, got {shown}",
        "number in [0, 1]",
    )
    assert refusal(OpenClawSettings(hardClearRatio=ratio).validate) == (
        "contextPruning.hardClearRatio",
        f"must be between 0 and 1, got {shown}",
        "number in [0, 1]",
    )


def test_an_unknown_openclaw_version_is_refused_with_the_known_ones() -> None:
    assert refusal(OpenClawSettings(version="2026.8.0").validate) == (
        "trimscope.version",
        "unknown OpenClaw version '2026.8.0'",
        "2026.7.1, 2026.9.6",
    )


def test_2026_9_6_accepts_the_keys_it_kept() -> None:
    OpenClawSettings(
        version="2026.9.6",
        mode="cache-ttl",
        ttl="1h",
        tools=ToolsConfig(("read",)),
        hardClear=HardClearConfig(False, "x"),
        softTrim=SoftTrimConfig(),
        model_context_window=1000,
        context_tokens=500,
    ).validate()


@pytest.mark.parametrize(
    ("profile", "key"),
    [
        (OpenClawSettings(version="2026.9.6", keepLastAssistants=0), "keepLastAssistants"),
        (OpenClawSettings(version="2026.9.6", softTrimRatio=0.0), "softTrimRatio"),
        (OpenClawSettings(version="2026.9.6", hardClearRatio=0.5), "hardClearRatio"),
        (OpenClawSettings(version="2026.9.6", minPrunableToolChars=0), "minPrunableToolChars"),
        (OpenClawSettings(version="2026.9.6", softTrim=SoftTrimConfig(tailChars=1)), "softTrim"),
    ],
)
def test_2026_9_6_refuses_each_retired_key_even_at_a_zero_value(profile: OpenClawSettings, key: str) -> None:
    assert refusal(profile.validate) == (f"contextPruning.{key}", RETIRED, "mode, ttl, tools, hardClear")
    OpenClawSettings(**{key: getattr(profile, key)}).validate()  # 2026.7.1 still reads it


def test_the_retired_values_are_listed_in_order_with_an_unset_soft_trim_as_none() -> None:
    assert OpenClawSettings().retired_values() == (
        ("keepLastAssistants", None),
        ("softTrimRatio", None),
        ("hardClearRatio", None),
        ("minPrunableToolChars", None),
        ("softTrim", None),
    )
    assert FULL.retired_values() == (
        ("keepLastAssistants", 2),
        ("softTrimRatio", 0.4),
        ("hardClearRatio", 0.6),
        ("minPrunableToolChars", 1000),
        ("softTrim", SoftTrimConfig(800, 300, 200)),
    )


def test_the_route_is_validated_with_the_profile() -> None:
    assert refusal(OpenClawSettings(route=RouteConfig(auth="bearer")).validate)[0] == "trimscope.auth"
