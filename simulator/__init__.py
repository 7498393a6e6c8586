"""Trimscope's simulator: how LLM agent runtimes trim and prune their context, as a pure library.

This module is the public facade: everything outside ``simulator`` (the dashboard, scripts) imports
from here, never from the submodules. What lives where inside:

* ``transcript``, ``importers/`` - the runtime-neutral message model and one reader per format;
* ``runtimes/<runtime>/`` - each runtime's own code, mirrored function by function from upstream;
* ``specs/<runtime>/`` and ``registry`` - one spec per runtime version (config keys, knobs, budget,
  conversion, estimator, replay, conformance) and the registry that collects them;
* ``profiles``, ``presets`` - profile documents in the runtimes' own keys, and ready-made ones;
* ``config_files`` - whole runtime config files (ZeroClaw ``config.toml``, OpenClaw JSON5, ai-profile
  limits and presets) read as the runtimes read them, into named profiles with kept keys and warnings;
* ``replay/`` - the session replay, comparisons, trim events and the view models the pages draw;
* ``estimate_drift`` - per call the runtime's estimate, o200k and the provider's count, and the 2× flag;
* ``trace`` - a query followed through a replay's calls: when a message left, why, and re-reads;
* ``conformance/`` - the vector runner behind ``python -m simulator conform``.

The library does no I/O and reads no clock: callers pass text and times in.
"""

from __future__ import annotations

from simulator.assumed_times import DEFAULT_GAP_SECONDS, gap_statement, has_timestamps
from simulator.config_files import SYNTAXES as CONFIG_SYNTAXES
from simulator.config_files import ConfigFile, parse_config_text, read_config_text
from simulator.config_files import Syntax as ConfigSyntax
from simulator.corpus_pool import TRANSCRIPT_SUFFIXES, corpus_files
from simulator.cost import CacheBreak, CallCost, PriceTable, Pricing, SessionCost, load_price_table
from simulator.cost.compare import CostComparison, Crossing, cost_comparison
from simulator.cost.edits import PriceEdit, price_table_with
from simulator.cost.from_replay import (
    TranscriptTokens,
    UsageComparison,
    message_fingerprint,
)
from simulator.cost.live import trim_rewrite_usd
from simulator.cost.priced import (
    Baseline,
    ResultCost,
    cost_model_json,
    pricing_choice,
    recorded_baseline,
    with_cost,
)
from simulator.cost.pricing import CACHE_TTLS, CacheTtl, PriceTableError
from simulator.cost.shapes import cost_json, pricing_json
from simulator.cost.strip import CostStrip, StripBar, cost_strip, part_usd
from simulator.costing import profile_cost
from simulator.errors import ProfileError, SimulatorError, TranscriptParseError
from simulator.estimate_drift import (
    CallEstimate,
    EstimateChart,
    EstimateCheck,
    estimate_chart,
    estimate_check,
)
from simulator.estimates import message_token_text, tiktoken_count, tiktoken_counts
from simulator.evaluate import (
    OBJECTIVES,
    Constraints,
    Histogram,
    PreparedTranscript,
    ProfileSummary,
    SessionMetrics,
    cdf_of,
    evaluate_session,
    summarise,
    tune,
    worst_sessions,
)
from simulator.evaluate.tune import Objective
from simulator.importers import FORMATS, parse_transcript
from simulator.jsonvalue import JSON
from simulator.knobs import Knob, KnobKind, KnobNote
from simulator.long_lived import collector_paused
from simulator.overview import (
    MessageRow,
    TranscriptIndex,
    TranscriptOverview,
    TurnSpan,
    summarize,
    transcript_index,
)
from simulator.overview import message_rows as transcript_message_rows
from simulator.overview import overview as transcript_overview
from simulator.presets import PRESETS, Preset, preset_get
from simulator.profiles import (
    RUNTIMES,
    KeptKey,
    Profile,
    Runtime,
    detect_runtime,
    profile_document_from_text,
    profile_from_document,
    profile_from_text,
    profile_to_document,
    profile_to_json,
    profile_to_toml,
)
from simulator.registry import SPECS, runtime_label, runtimes, spec_get, versions
from simulator.replay import (
    BudgetExplanation,
    CallRecord,
    Change,
    Fate,
    FateGroup,
    PreparedReplay,
    RetryStep,
    SimulationResult,
    changed_contents,
    replay_prepared,
    simulate,
)
from simulator.replay import prepare as prepare_replay
from simulator.replay.compare import Comparison, MessageDiff, compare, message_diff
from simulator.replay.counts import CallCounts, call_counts
from simulator.replay.events import TrimEvent, WireShapes, wire_frames, wire_shapes
from simulator.replay.report import result_to_json
from simulator.replay.view import (
    Bar,
    BarShape,
    CallView,
    Row,
    Timeline,
    TimelineShape,
    call_view,
    timeline,
    timeline_shape,
)
from simulator.runtime_spec import AnyRuntimeSpec
from simulator.synthetic import synthetic_openclaw_session
from simulator.trace import (
    BeforeAfter,
    Departure,
    PresenceRun,
    Reread,
    Trace,
    TraceQueryError,
    before_after,
    match_before_after,
    rereads,
    sent_text,
    trace_to_json,
)
from simulator.trace import Match as TraceMatch
from simulator.trace import Query as TraceQuery
from simulator.trace import trace as trace_session
from simulator.transcript import Transcript

__all__ = [
    "TranscriptTokens",
    "message_fingerprint",
    "MessageRow",
    "TranscriptIndex",
    "TurnSpan",
    "transcript_index",
    "transcript_message_rows",
    "estimate_check",
    "estimate_chart",
    "EstimateCheck",
    "EstimateChart",
    "CallEstimate",
    "rereads",
    "match_before_after",
    "TraceMatch",
    "Reread",
    "PresenceRun",
    "Departure",
    "trace_to_json",
    "trace_session",
    "sent_text",
    "before_after",
    "TraceQueryError",
    "TraceQuery",
    "Trace",
    "BeforeAfter",
    "CONFIG_SYNTAXES",
    "CACHE_TTLS",
    "DEFAULT_GAP_SECONDS",
    "FORMATS",
    "JSON",
    "OBJECTIVES",
    "PRESETS",
    "RUNTIMES",
    "SPECS",
    "TRANSCRIPT_SUFFIXES",
    "AnyRuntimeSpec",
    "Bar",
    "BarShape",
    "Baseline",
    "BudgetExplanation",
    "CacheBreak",
    "CacheTtl",
    "CallCost",
    "CallCounts",
    "CallRecord",
    "CallView",
    "Row",
    "Change",
    "Comparison",
    "ConfigFile",
    "ConfigSyntax",
    "Constraints",
    "CostComparison",
    "CostStrip",
    "Crossing",
    "Fate",
    "FateGroup",
    "Histogram",
    "KeptKey",
    "Knob",
    "KnobKind",
    "KnobNote",
    "MessageDiff",
    "Objective",
    "PreparedTranscript",
    "Preset",
    "PriceEdit",
    "PriceTable",
    "PriceTableError",
    "Pricing",
    "Profile",
    "ProfileError",
    "ProfileSummary",
    "ResultCost",
    "RetryStep",
    "Runtime",
    "SessionCost",
    "SessionMetrics",
    "SimulationResult",
    "PreparedReplay",
    "SimulatorError",
    "StripBar",
    "Timeline",
    "TimelineShape",
    "Transcript",
    "TranscriptOverview",
    "TranscriptParseError",
    "TrimEvent",
    "UsageComparison",
    "WireShapes",
    "call_counts",
    "call_view",
    "cdf_of",
    "changed_contents",
    "collector_paused",
    "compare",
    "corpus_files",
    "cost_comparison",
    "cost_json",
    "cost_model_json",
    "cost_strip",
    "detect_runtime",
    "evaluate_session",
    "gap_statement",
    "has_timestamps",
    "load_price_table",
    "message_diff",
    "message_token_text",
    "parse_config_text",
    "parse_transcript",
    "part_usd",
    "preset_get",
    "price_table_with",
    "pricing_choice",
    "pricing_json",
    "profile_cost",
    "profile_document_from_text",
    "profile_from_document",
    "profile_from_text",
    "profile_to_document",
    "profile_to_json",
    "profile_to_toml",
    "read_config_text",
    "recorded_baseline",
    "result_to_json",
    "runtime_label",
    "runtimes",
    "simulate",
    "prepare_replay",
    "replay_prepared",
    "spec_get",
    "summarise",
    "summarize",
    "synthetic_openclaw_session",
    "tiktoken_count",
    "tiktoken_counts",
    "timeline",
    "timeline_shape",
    "transcript_overview",
    "trim_rewrite_usd",
    "tune",
    "versions",
    "wire_frames",
    "wire_shapes",
    "with_cost",
    "worst_sessions",
]
