"""OpenClaw's knob catalogues (2026.7.1 and 2026.9.6), in ``agents.defaults.contextPruning``, the model route
and ``trimscope`` keys.

The loader names pruning fields from the block (``contextPruning.ttl``), hence ``error_field``. 2026.9.6
reads only ``mode``, ``ttl``, ``tools`` and ``hardClear`` (the rest is retired: built-in defaults apply) and
adds the provider-side compaction inputs (model ``params``, auth) and the stand-in summary's size.
"""

from __future__ import annotations

from simulator.knobs import Knob

_OC = "agents.defaults.contextPruning"
_ERR = "contextPruning"

VERSIONS = ("2026.7.1", "2026.9.6")

_VERSION = Knob(
    "trimscope.version",
    "Version",
    "select",
    "2026.7.1 or 2026.9.6 (retired keys are rejected by 2026.9.6)",
    choices=VERSIONS,
    choice_labels=VERSIONS,
)

_ROUTE: tuple[Knob, ...] = (
    Knob(
        "model.provider",
        "model.provider",
        "text",
        "used when the transcript does not record it",
        placeholder="anthropic",
    ),
    Knob("model.id", "model.id", "text", "the model id, when the transcript does not record it"),
    Knob("model.api", "model.api", "text", "e.g. anthropic-messages, openai-responses"),
    Knob("model.baseUrl", "model.baseUrl", "text", "e.g. https://api.openai.com/v1"),
)

_COMPACTION: tuple[Knob, ...] = (
    Knob(
        "model.params.responsesServerCompaction",
        "params.responsesServerCompaction",
        "tristate",
        "OpenAI Responses server compaction: unset = on for direct OpenAI",
    ),
    Knob(
        "model.params.responsesCompactThreshold",
        "params.responsesCompactThreshold",
        "int",
        "tokens; empty = 0.7 × min(contextTokens, contextWindow), else 80,000",
        minimum=1,
    ),
    Knob(
        "model.params.anthropicServerCompaction",
        "params.anthropicServerCompaction",
        "tristate",
        "Anthropic compact-2026-01-12: opt-in, API key only",
    ),
    Knob(
        "trimscope.auth", "auth", "select", "api_key or oauth (unset = api_key)", choices=("api_key", "oauth")
    ),
    Knob(
        "trimscope.compactionSummaryTokens",
        "compaction summary tokens",
        "int",
        "size of the stand-in summary after a provider-side compaction (default 2,000)",
        placeholder="2000",
    ),
    Knob(
        "trimscope.modelCompaction",
        "model the compaction",
        "tristate",
        "unset/true: later calls send the summary; false: only mark the point",
    ),
)

KNOBS: tuple[Knob, ...] = (
    _VERSION,
    Knob(
        f"{_OC}.mode",
        "mode",
        "select",
        '"off" or "cache-ttl"; unset = off',
        choices=("off", "cache-ttl"),
        error_field=f"{_ERR}.mode",
    ),
    Knob(
        f"{_OC}.ttl",
        "ttl",
        "text",
        "a duration like 5m, 1h, 1h30m",
        placeholder="5m",
        error_field=f"{_ERR}.ttl",
    ),
    Knob(
        f"{_OC}.keepLastAssistants",
        "keepLastAssistants",
        "int",
        "an integer ≥ 0",
        placeholder="3",
        error_field=f"{_ERR}.keepLastAssistants",
    ),
    Knob(
        f"{_OC}.softTrimRatio",
        "softTrimRatio",
        "float",
        "a number in [0, 1]",
        maximum=1,
        step="any",
        placeholder="0.3",
        error_field=f"{_ERR}.softTrimRatio",
    ),
    Knob(
        f"{_OC}.hardClearRatio",
        "hardClearRatio",
        "float",
        "a number in [0, 1]",
        maximum=1,
        step="any",
        placeholder="0.5",
        error_field=f"{_ERR}.hardClearRatio",
    ),
    Knob(
        f"{_OC}.minPrunableToolChars",
        "minPrunableToolChars",
        "int",
        "an integer ≥ 0",
        placeholder="50000",
        error_field=f"{_ERR}.minPrunableToolChars",
    ),
    Knob(
        f"{_OC}.softTrim.maxChars",
        "softTrim.maxChars",
        "int",
        "an integer ≥ 0",
        placeholder="4000",
        error_field=f"{_ERR}.softTrim.maxChars",
    ),
    Knob(
        f"{_OC}.softTrim.headChars",
        "softTrim.headChars",
        "int",
        "an integer ≥ 0",
        placeholder="1500",
        error_field=f"{_ERR}.softTrim.headChars",
    ),
    Knob(
        f"{_OC}.softTrim.tailChars",
        "softTrim.tailChars",
        "int",
        "an integer ≥ 0",
        placeholder="1500",
        error_field=f"{_ERR}.softTrim.tailChars",
    ),
    Knob(
        f"{_OC}.hardClear.enabled",
        "hardClear.enabled",
        "tristate",
        "true, false or unset (true)",
        error_field=f"{_ERR}.hardClear.enabled",
    ),
    Knob(
        f"{_OC}.hardClear.placeholder",
        "hardClear.placeholder",
        "text",
        "any text",
        error_field=f"{_ERR}.hardClear.placeholder",
    ),
    Knob(
        "model.contextWindow", "model.contextWindow", "int", "an integer ≥ 1, or empty (200,000)", minimum=1
    ),
    Knob(
        "agents.defaults.contextTokens",
        "agents.defaults.contextTokens",
        "int",
        "an integer ≥ 1, or empty",
        minimum=1,
    ),
)

KNOBS = (*KNOBS, *_ROUTE)

_RETIRED = (
    "keepLastAssistants",
    "softTrimRatio",
    "hardClearRatio",
    "minPrunableToolChars",
    "softTrim.maxChars",
    "softTrim.headChars",
    "softTrim.tailChars",
)

KNOBS_2026_9_6: tuple[Knob, ...] = (
    *(k for k in KNOBS if k.path.removeprefix(f"{_OC}.") not in _RETIRED),
    *_COMPACTION,
)
