"""OpenClaw's versions as runtime specs: 2026.7.1 and 2026.9.6.

Both read the same profile document (``trimscope.version`` says which one, else the config's schema);
2026.9.6 rejects the ``contextPruning`` keys it retired and has its own knob catalogue and budget
explanation. The replay (``simulator.replay.openclaw``) runs the version's attempt transforms.
"""

from __future__ import annotations

from dataclasses import replace

from simulator.convert import to_openclaw
from simulator.estimates import openclaw_estimate_tokens, openclaw_system_tokens
from simulator.replay.model import CallRecord, SimulationResult
from simulator.replay.openclaw import ESTIMATOR, pruned_contents, replay_openclaw
from simulator.replay.openclaw_runs import pruned_runs
from simulator.replay.openclaw_session import OpenClawNatives, prepare_openclaw
from simulator.runtime_spec import ReplayInput, RuntimeSpec
from simulator.runtimes.openclaw.settings import OpenClawSettings
from simulator.specs.openclaw.budget import explain_budget
from simulator.specs.openclaw.config import detect, dump, load
from simulator.specs.openclaw.knobs import KNOBS, KNOBS_2026_9_6
from simulator.specs.openclaw.presets import PRESETS, PRESETS_2026_9_6
from simulator.transcript import Transcript


def _version(settings: OpenClawSettings) -> str:
    return settings.version


def _replay(transcript: Transcript, inp: ReplayInput[OpenClawSettings]) -> SimulationResult:
    prepared = inp.prepared if isinstance(inp.prepared, OpenClawNatives) else None
    return replay_openclaw(
        transcript, inp.settings, profile_name=inp.profile_name, reference=inp.reference, prepared=prepared
    )


def _contents(
    transcript: Transcript, settings: OpenClawSettings, result: SimulationResult, call: CallRecord
) -> dict[int, tuple[int, str]]:
    return pruned_contents(transcript, settings, result, call)


V2026_7_1: RuntimeSpec[OpenClawSettings] = RuntimeSpec(
    runtime="openclaw",
    version="2026.7.1",
    runtime_label="OpenClaw",
    version_label="2026.7.1",
    settings_type=OpenClawSettings,
    version_of=_version,
    detect=detect,
    load=load,
    dump=dump,
    knobs=KNOBS,
    explain_budget=explain_budget,
    convert=to_openclaw,
    estimate=openclaw_estimate_tokens,
    estimator=ESTIMATOR,
    replay=_replay,
    prepare=prepare_openclaw,
    changed_contents=_contents,
    priced_contents=pruned_runs,
    estimate_outside=openclaw_system_tokens,
    conformance_system="openclaw",
    conformance_module="simulator.conformance.openclaw_adapters",
    presets=PRESETS,
    reads_clock=True,
)

V2026_9_6: RuntimeSpec[OpenClawSettings] = replace(
    V2026_7_1, version="2026.9.6", version_label="2026.9.6", knobs=KNOBS_2026_9_6, presets=PRESETS_2026_9_6
)

VERSIONS: tuple[RuntimeSpec[OpenClawSettings], ...] = (V2026_7_1, V2026_9_6)


def own_settings(settings: object) -> OpenClawSettings | None:
    """``settings`` typed as OpenClaw's (either version), else ``None``: each version's own check."""
    for spec in VERSIONS:
        owned = spec.own(settings)
        if owned is not None:
            return owned
    return None
