"""ai-profile 0.1.7 as a runtime spec."""

from __future__ import annotations

from simulator.convert import to_ai_profile
from simulator.estimates import ai_profile_estimate, ai_profile_system_tokens
from simulator.replay.ai_profile import ESTIMATOR, AiProfileNatives, prepare_ai_profile, replay_ai_profile
from simulator.replay.model import SimulationResult
from simulator.runtime_spec import ReplayInput, RuntimeSpec
from simulator.runtimes.ai_profile import AiProfileSettings
from simulator.specs.ai_profile.budget import explain_budget
from simulator.specs.ai_profile.config import detect, dump, load
from simulator.specs.ai_profile.knobs import KNOBS
from simulator.specs.ai_profile.presets import PRESETS
from simulator.transcript import Transcript


def _version(settings: AiProfileSettings) -> str:
    return "0.1.7"


def _replay(transcript: Transcript, inp: ReplayInput[AiProfileSettings]) -> SimulationResult:
    return replay_ai_profile(
        transcript,
        inp.settings,
        profile_name=inp.profile_name,
        provider_window=inp.provider_window,
        reference=inp.reference,
        prepared=inp.prepared if isinstance(inp.prepared, AiProfileNatives) else None,
    )


V0_1_7: RuntimeSpec[AiProfileSettings] = RuntimeSpec(
    runtime="ai_profile",
    version="0.1.7",
    runtime_label="ai-profile",
    version_label="0.1.7",
    settings_type=AiProfileSettings,
    version_of=_version,
    detect=detect,
    load=load,
    dump=dump,
    knobs=KNOBS,
    explain_budget=explain_budget,
    convert=to_ai_profile,
    estimate=ai_profile_estimate,
    estimator=ESTIMATOR,
    replay=_replay,
    prepare=prepare_ai_profile,
    estimate_outside=ai_profile_system_tokens,
    conformance_system="ai_profile",
    conformance_module="simulator.conformance.ai_profile_adapters",
    presets=PRESETS,
)
