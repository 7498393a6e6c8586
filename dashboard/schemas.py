"""API schemas: paired In/Out shapes, validated at the edge.

Every request body schema carries one example (``model_config``'s ``json_schema_extra``) that is a
request the API accepts; ``dashboard.api.docs.body_example`` puts it on the operation too, so the OpenAPI
page shows it instead of a generated placeholder. Tests validate every example.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from ninja import Schema
from pydantic import ConfigDict, Field, JsonValue

from dashboard.models import Profile, SimulationRun, TrimEvent
from dashboard.selectors.profiles import profile_budget, profile_domain
from simulator import DEFAULT_GAP_SECONDS, BudgetExplanation, CacheTtl

MAX_GAP_SECONDS = 7 * 24 * 3600

# A ZeroClaw profile (the documented version) that trims the history to 8,000 tokens, in ZeroClaw's keys.
PROFILE_DOCUMENT_EXAMPLE: dict[str, JsonValue] = {
    "trimscope": {"runtime": "zeroclaw", "version": "documented"},
    "runtime_profiles": {
        "default": {
            "max_tool_iterations": 10,
            "max_tool_result_chars": 0,
            "history_pruning": {"enabled": True, "max_tokens": 8000},
        }
    },
    "provider": {"model": "gpt-4o", "context_window": 128000},
}
OPENCLAW_CONFIG_EXAMPLE = """{
  // openclaw.json (JSON5): one profile per agents.list entry
  agents: {
    defaults: { contextPruning: { mode: "cache-ttl", ttl: "5m" } },
    list: [{ id: "coder" }, { id: "writer", contextPruning: { ttl: "1h" } }],
  },
}"""
TRANSCRIPT_TEXT_EXAMPLE = (
    '{"messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}, '
    '{"role": "assistant", "content": "hello"}]}'
)


def _example(example: dict[str, JsonValue]) -> ConfigDict:
    return ConfigDict(json_schema_extra={"examples": [example]})


class ErrorOut(Schema):
    message: str
    extra: dict[str, JsonValue] = Field(default_factory=dict)


class TranscriptIn(Schema):
    model_config = _example({"text": TRANSCRIPT_TEXT_EXAMPLE, "name": "greeting", "store_copy": False})

    text: str = Field(min_length=1, description="the transcript file's text")
    name: str = Field(default="", max_length=200)
    format: str | None = Field(default=None, description="force a format instead of detecting it")
    store_copy: bool = Field(
        default=False, description="store it even when the same content is already stored (else 409)"
    )


class TranscriptOut(Schema):
    id: int
    name: str
    format: str
    session_id: str
    size_bytes: int
    message_count: int
    turn_count: int
    tool_pair_count: int
    orphan_count: int
    estimated_tokens: int
    uploaded_at: datetime
    is_copy: bool


class SkippedLineOut(Schema):
    line: int
    reason: str


class ToolCallOut(Schema):
    id: str
    name: str
    arguments: str
    result_index: int | None


class MessageOut(Schema):
    index: int
    turn: int | None
    role: str
    text: str
    estimated_tokens: int
    tokenizer_tokens: int
    provider_input_tokens: int | None
    tool_calls: list[ToolCallOut]
    result_of_call_id: str | None
    result_of_index: int | None
    flags: list[str]
    role_label: str
    error: str | None = Field(description="the provider error when this assistant entry is a failed call")


class TranscriptDetailOut(TranscriptOut):
    problems: list[str]
    warnings: list[str]
    skipped_lines: list[SkippedLineOut] = Field(description="malformed lines of a JSON-lines file, left out")
    messages: list[MessageOut]


class ProfileIn(Schema):
    model_config = _example(
        {"name": "tight", "document": PROFILE_DOCUMENT_EXAMPLE, "description": "8k history budget"}
    )

    name: str = Field(min_length=1, max_length=120)
    document: dict[str, JsonValue] = Field(
        description="the document in the runtime's own config keys", examples=[PROFILE_DOCUMENT_EXAMPLE]
    )
    description: str = Field(default="", max_length=400)


class BudgetOut(Schema):
    """The runtime spec's one budget explanation (the same the pages and the CLI show)."""

    value: int | None = Field(description="the budget the replay trims to; null = no proactive bound")
    bound_by: str
    steps: list[str]
    window: int | None
    window_source: str | None
    summary: str = Field(description="the explanation in one line")
    headline: Literal["budget", "window"] = Field(description="which number the summary leads with")


class ProfileOut(Schema):
    id: int
    name: str
    runtime: str
    version: str = Field(description="the runtime version's key, e.g. documented or upstream for ZeroClaw")
    label: str = Field(description="runtime and version as shown, e.g. ZeroClaw released (v0.8.4)")
    description: str
    document: dict[str, JsonValue] = Field(validation_alias="settings", description="the canonical document")
    budget: BudgetOut
    created_at: datetime
    updated_at: datetime

    @staticmethod
    def resolve_version(obj: Profile) -> str:
        return profile_domain(profile=obj).version

    @staticmethod
    def resolve_label(obj: Profile) -> str:
        return profile_domain(profile=obj).label

    @staticmethod
    def resolve_budget(obj: Profile) -> BudgetExplanation:
        return profile_budget(profile=profile_domain(profile=obj))


class ProfileImportIn(Schema):
    model_config = _example(
        {
            "name": "writer",
            "text": OPENCLAW_CONFIG_EXAMPLE,
            "syntax": "json5",
            "filename": "openclaw.json",
            "select": "writer",
        }
    )

    name: str = Field(min_length=1, max_length=120)
    text: str = Field(min_length=1, description="a runtime config (TOML or JSON5) or a profile block")
    syntax: Literal["toml", "json", "json5", "auto"] = "auto"
    description: str = Field(default="", max_length=400)
    filename: str | None = Field(default=None, max_length=200, description="tells TOML from JSON5")
    select: str | None = Field(
        default=None, max_length=200, description="the agent, runtime profile or preset key to import"
    )


class ProfileImportAllIn(Schema):
    model_config = _example(
        {
            "text": OPENCLAW_CONFIG_EXAMPLE,
            "syntax": "json5",
            "filename": "openclaw.json",
            "name_prefix": "prod",
        }
    )

    text: str = Field(min_length=1, description="a runtime config (TOML or JSON5)")
    syntax: Literal["toml", "json", "json5", "auto"] = "auto"
    filename: str | None = Field(default=None, max_length=200)
    names: list[str] = Field(default=[], description="the profiles to import (empty = all)")
    name_prefix: str = Field(default="", max_length=60, description='stored as "<prefix> · <name>"')
    description: str = Field(default="", max_length=400)


class ConfigProfileOut(Schema):
    name: str
    label: str
    warnings: list[str]
    kept: list[str] = Field(description="key paths kept, not modelled")


class ConfigPreviewOut(Schema):
    runtime: str
    shape: str
    warnings: list[str]
    kept: list[str]
    profiles: list[ConfigProfileOut]


class ProfileImportAllOut(Schema):
    profiles: list[ProfileOut]


class SimulationIn(Schema):
    model_config = _example({"transcript_id": 1, "profile": PROFILE_DOCUMENT_EXAMPLE, "name": "8k budget"})

    transcript_id: int
    profile_id: int | None = Field(default=None, description="a stored profile (or give `profile`)")
    profile: dict[str, JsonValue] | None = Field(
        default=None, description="an inline profile document in the runtime's own config keys"
    )
    name: str = Field(default="", max_length=200, description="a label for the run")
    pricing: str | None = Field(
        default=None,
        max_length=120,
        description="price table key (GET /api/pricing); default: the transcript's model, else the table's",
    )
    assumed_gap_seconds: float | None = Field(
        default=None,
        ge=0,
        le=MAX_GAP_SECONDS,
        description="seconds between calls for a transcript without timestamps (cache model and OpenClaw's "
        f"TTL pruning); default {DEFAULT_GAP_SECONDS:g}, stated in `result.cost_model.gap`",
    )
    cache_ttl: CacheTtl = Field(
        default="5m",
        description="cache-write lifetime this answer is priced at: 5m (Anthropic 1.25x input) or 1h (2x); "
        "not stored with the run (`GET /simulations/{id}?cache_ttl=` prices a read)",
    )


class SimulationRunOut(Schema):
    id: int
    name: str
    transcript_id: int
    profile_id: int | None = Field(description="null for an inline profile or once the profile is deleted")
    profile_name: str
    runtime: str
    document: dict[str, JsonValue] = Field(description="the canonical profile document that was simulated")
    created_by: str | None
    created_at: datetime
    calls: int
    trims: int
    total_tokens_sent: int
    overflow_failures: int
    pricing: str = Field(description="the price table key asked for ('' = the transcript's model)")
    assumed_gap_seconds: float | None

    @staticmethod
    def resolve_created_by(obj: SimulationRun | dict[str, JsonValue]) -> JsonValue:
        # A detail response is this schema's dump plus the result, validated again: then obj is that dict.
        if isinstance(obj, dict):
            return obj.get("created_by")
        return None if obj.created_by is None else obj.created_by.get_username()


class SimulationRunDetailOut(SimulationRunOut):
    result: dict[str, JsonValue] = Field(description="the per-call replay, recomputed from the stored inputs")


class CompareIn(Schema):
    model_config = _example(
        {"transcript_id": 1, "profile_ids": [1, 2], "profiles": [PROFILE_DOCUMENT_EXAMPLE]}
    )

    transcript_id: int
    profile_ids: list[int] = Field(default_factory=list, max_length=3)
    profiles: list[dict[str, JsonValue]] = Field(
        default_factory=list, max_length=3, description="inline profile documents, compared after profile_ids"
    )
    pricing: str | None = Field(default=None, max_length=120, description="price table key for every profile")
    assumed_gap_seconds: float | None = Field(
        default=None,
        ge=0,
        le=MAX_GAP_SECONDS,
        description="seconds between calls for a transcript without timestamps (cache model and OpenClaw's "
        f"TTL pruning); default {DEFAULT_GAP_SECONDS:g}, stated in `cost.gap`",
    )
    cache_ttl: CacheTtl = Field(
        default="5m", description="cache-write lifetime: 5m or 1h (Anthropic, 2x input)"
    )


class TraceIn(Schema):
    transcript_id: int = Field(description="a stored transcript", examples=[1])
    profile_id: int = Field(description="a stored profile to replay it through", examples=[1])
    find: str = Field(
        min_length=1,
        max_length=500,
        description="text (case-insensitive), a file path or a tool-call id; a regex with `regex`",
        examples=["config.toml"],
    )
    regex: bool = Field(default=False, description="read `find` as a regular expression (Python syntax)")
    assumed_gap_seconds: float | None = Field(
        default=None,
        ge=0,
        le=MAX_GAP_SECONDS,
        description="seconds between calls for a transcript without timestamps (OpenClaw's TTL pruning); "
        f"default {DEFAULT_GAP_SECONDS:g}",
    )


class TraceMatchOut(Schema):
    message_index: int = Field(description="0-based index of the matching transcript message")
    role: str
    in_context_calls: list[int] | None = Field(
        description="[first, last] call (1-based) that sent it in full; null if never sent in full"
    )
    left_at_call: int | None = Field(description="the call where it left or changed; null if it never left")
    rule: str | None = Field(
        description="why: dropped-turn, turn-cap, soft-trimmed, hard-cleared, truncated, image-removed, ..."
    )
    rule_detail: str | None = Field(description="the rule in words, with the numbers that decided it")
    survived: str | None = Field(description="for a changed message: whether the match survived (head, tail)")


class TraceRereadOut(Schema):
    tool: str
    arguments: str
    result_index: int = Field(description="the earlier result that left the context")
    again_index: int = Field(description="the repeated tool call's message")
    again_call: int
    left_at_call: int
    rule: str


class TraceOut(Schema):
    model_config = _example(
        {
            "query": "config.toml",
            "calls": 20,
            "more": 0,
            "matches": [
                {
                    "message_index": 3,
                    "role": "assistant",
                    "in_context_calls": [2, 15],
                    "left_at_call": 16,
                    "rule": "dropped-turn",
                    "rule_detail": "token budget 4,000: 4,464 est. held",
                    "survived": None,
                }
            ],
            "rereads": [
                {
                    "tool": "read",
                    "arguments": '{"path": "config.toml"}',
                    "result_index": 4,
                    "again_index": 38,
                    "again_call": 19,
                    "left_at_call": 16,
                    "rule": "dropped-turn",
                }
            ],
        }
    )

    query: str
    calls: int = Field(description="model calls in the replay")
    more: int = Field(description="further matches past the first 100, counted but not followed")
    matches: list[TraceMatchOut]
    rereads: list[TraceRereadOut] = Field(
        description="re-reads after forgetting: the same tool and arguments after the result left the context"
    )


class CompareRowOut(Schema):
    number: int
    message_index: int
    tokens_sent: list[int]
    sent_counts: list[int] = Field(description="transcript messages sent, per profile")
    trimmed: list[bool]
    differs: bool


class CompareSummaryOut(Schema):
    profile_name: str
    runtime: str
    total_tokens_sent: int
    trims: int
    overflow_failures: int
    messages_lost: int


class CompareCostOut(Schema):
    pricing: dict[str, JsonValue] = Field(description="the pricing object every profile was priced with")
    cost_usd: list[float] = Field(description="per profile, the session total")
    difference_usd: list[float] = Field(description="per profile, its total minus the first profile's")
    per_call_usd: list[list[float]] = Field(description="per call, each profile's cost")
    overtakes: list[dict[str, JsonValue]] = Field(
        description="per profile after the first: the call after which the running totals last changed order"
    )
    as_recorded_usd: list[float] = Field(
        description="per profile, as-recorded with its runtime's breakpoints"
    )
    gap_seconds: float = Field(description="seconds between calls the cost (and OpenClaw's replay) assumed")
    gap_source: Literal["timestamps", "assumed", "default"] = Field(
        description="where the gap came from: the timestamps, `assumed_gap_seconds`, or the default"
    )
    gap: str = Field(description="the gap in words, as the pages state it")
    cache_ttl: CacheTtl
    cache_ttl_statement: str = Field(description="the cache-write lifetime priced, in words")


class CompareOut(Schema):
    transcript_id: int
    profile_ids: list[int | None] = Field(description="per compared profile; null for an inline one")
    first_difference: int | None = Field(description="1-based number of the first call that differs")
    rows: list[CompareRowOut]
    summaries: list[CompareSummaryOut]
    cost: CompareCostOut


class PricingOut(Schema):
    key: str
    input_per_mtok: float
    output_per_mtok: float
    cache_write_multiplier: float
    cache_write_1h_multiplier: float
    cache_read_multiplier: float
    cache_ttl_seconds: int
    min_cacheable_tokens: int
    caching: str
    source: str
    checked: str
    note: str
    origin: str = Field(description="table (the checked-in default), dashboard (edited for everyone), yours")


class PriceTableOut(Schema):
    version: str
    default: str
    models: list[PricingOut]


class PriceEditIn(Schema):
    # Claude Sonnet 4.5's list prices with a one-hour cache lifetime, as the caller's own edit.
    model_config = _example(
        {
            "scope": "user",
            "input_per_mtok": 3.0,
            "output_per_mtok": 15.0,
            "cache_write_multiplier": 1.25,
            "cache_read_multiplier": 0.1,
            "cache_ttl_seconds": 3600,
        }
    )

    scope: Literal["user", "dashboard"] = Field(
        default="user", description="your own prices, or the dashboard's for everyone (staff only)"
    )
    input_per_mtok: float
    output_per_mtok: float
    cache_write_multiplier: float
    cache_read_multiplier: float
    cache_ttl_seconds: int


class ApiTokenIn(Schema):
    model_config = _example({"name": "nightly export script"})

    name: str = Field(default="", max_length=120)


class ApiTokenOut(Schema):
    id: int
    name: str
    prefix: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


class ApiTokenCreatedOut(ApiTokenOut):
    secret: str = Field(description="shown only in this response; only its hash is stored")


class FleetAlertOut(Schema):
    kind: Literal["session_trims", "overflow_failed", "runtime_silent", "estimate_drift"]
    message: str
    session_id: str = Field(description="the session the alert is about, or empty")
    runtime: str = Field(description="the runtime the alert is about, or empty")
    count: int = Field(
        description="the most trims in one window (session_trims), failures of this session on this "
        "runtime (overflow_failed), or 1 (runtime_silent, estimate_drift)"
    )
    at: datetime | None = Field(description="the latest event, or when the runtime was last seen")
    event_id: int | None = Field(description="the latest failed event (overflow_failed)")


class FleetEventFilterIn(Schema):
    runtime: str = Field(default="", max_length=200, description="the runtime's name")
    session: str = Field(default="", max_length=200, description="a session id")
    reason: str = Field(default="", max_length=200)
    limit: int = Field(default=100, ge=1, le=1000)


class FleetEventOut(Schema):
    id: int
    runtime: str
    shape: str
    session_id: str
    seq: int | None
    event_id: str | None
    reason: str
    dropped_messages: int
    kept_turns: int
    dropped_turns: int | None
    tokens_before: int | None
    tokens_after: int | None
    budget: int | None
    trim_target: str
    overflow_recovery: str
    call_number: int | None
    occurred_at: datetime
    received_at: datetime

    @staticmethod
    def resolve_runtime(obj: TrimEvent) -> str:
        return obj.runtime.name


class RuntimeIn(Schema):
    model_config = _example({"name": "prod-gateway-1", "kind": "zeroclaw"})

    name: str = Field(min_length=1, max_length=120)
    kind: str = Field(default="zeroclaw", min_length=1, max_length=40)


class RuntimeOut(Schema):
    id: int
    name: str
    kind: str
    token_prefix: str
    created_at: datetime
    revoked_at: datetime | None
    last_seen_at: datetime | None
    connected: int = Field(description="open WebSocket connections right now")


class RuntimeCreatedOut(RuntimeOut):
    token: str = Field(description="shown only in this response; only its hash is stored")


EVENT_BATCH_MAX = 500


class EventBatchIn(Schema):
    model_config = _example(
        {
            "events": [
                {
                    "session_id": "support-42",
                    "seq": 7,
                    "sent_at": "2026-11-30T12:00:00Z",
                    "event": {
                        "type": "history_trimmed",
                        "dropped_messages": 6,
                        "kept_turns": 4,
                        "reason": "context token budget exceeded",
                        "tokens_before": 9400,
                        "tokens_after": 7800,
                        "budget": 8000,
                        "call_number": 12,
                    },
                },
                {
                    "type": "history_trimmed",
                    "session_id": "support-43",
                    "dropped_messages": 2,
                    "kept_turns": 3,
                    "reason": "context token budget exceeded",
                },
            ]
        }
    )

    # Each frame is checked on its own (dashboard.fleet_schemas.parse_frame), so one bad frame is
    # reported at its index instead of failing the whole batch.
    events: list[JsonValue] = Field(max_length=EVENT_BATCH_MAX, description="trim-event frames")


class EventResultOut(Schema):
    index: int
    status: Literal["stored", "duplicate", "rejected"]
    id: int | None = Field(default=None, description="the stored event (stored or duplicate)")
    message: str | None = Field(default=None, description="why the frame was rejected")
    field: str | None = Field(default=None, description="the frame's field at fault, when there is one")


class EventBatchOut(Schema):
    results: list[EventResultOut]
