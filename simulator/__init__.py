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
* ``conformance/`` - the vector runner behind ``python -m simulator conform``.

The library does no I/O and reads no clock: callers pass text and times in.
"""

from __future__ import annotations

from simulator.config_files import SYNTAXES as CONFIG_SYNTAXES
from simulator.config_files import ConfigFile, parse_config_text, read_config_text
from simulator.config_files import Syntax as ConfigSyntax
from simulator.corpus_pool import TRANSCRIPT_SUFFIXES, corpus_files
from simulator.errors import ProfileError, SimulatorError, TranscriptParseError
from simulator.estimates import message_token_text, tiktoken_count
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
from simulator.overview import TranscriptOverview, summarize
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
    RetryStep,
    SimulationResult,
    changed_contents,
    simulate,
)
from simulator.replay.compare import Comparison, MessageDiff, compare, message_diff
from simulator.replay.counts import CallCounts, call_counts
from simulator.replay.events import TrimEvent, WireShapes, wire_frames, wire_shapes
from simulator.replay.report import result_to_json
from simulator.replay.view import CallView, Timeline, TimelineShape, call_view, timeline, timeline_shape
from simulator.runtime_spec import AnyRuntimeSpec
from simulator.synthetic import synthetic_openclaw_session
from simulator.transcript import Transcript

__all__ = [
    "CONFIG_SYNTAXES",
    "FORMATS",
    "JSON",
    "OBJECTIVES",
    "PRESETS",
    "RUNTIMES",
    "SPECS",
    "TRANSCRIPT_SUFFIXES",
    "AnyRuntimeSpec",
    "BudgetExplanation",
    "call_counts",
    "call_view",
    "CallCounts",
    "CallRecord",
    "CallView",
    "cdf_of",
    "Change",
    "changed_contents",
    "compare",
    "Comparison",
    "ConfigFile",
    "ConfigSyntax",
    "Constraints",
    "corpus_files",
    "detect_runtime",
    "evaluate_session",
    "Fate",
    "FateGroup",
    "Histogram",
    "KeptKey",
    "Knob",
    "KnobKind",
    "KnobNote",
    "message_diff",
    "message_token_text",
    "MessageDiff",
    "Objective",
    "parse_config_text",
    "parse_transcript",
    "PreparedTranscript",
    "Preset",
    "preset_get",
    "Profile",
    "profile_document_from_text",
    "profile_from_document",
    "profile_from_text",
    "profile_to_document",
    "profile_to_json",
    "profile_to_toml",
    "ProfileError",
    "ProfileSummary",
    "read_config_text",
    "result_to_json",
    "RetryStep",
    "Runtime",
    "runtime_label",
    "runtimes",
    "SessionMetrics",
    "simulate",
    "SimulationResult",
    "SimulatorError",
    "spec_get",
    "summarise",
    "summarize",
    "synthetic_openclaw_session",
    "tiktoken_count",
    "timeline",
    "Timeline",
    "timeline_shape",
    "TimelineShape",
    "Transcript",
    "transcript_overview",
    "TranscriptOverview",
    "TranscriptParseError",
    "TrimEvent",
    "tune",
    "versions",
    "wire_frames",
    "wire_shapes",
    "WireShapes",
    "worst_sessions",
]
