"""OpenClaw's versions as runtime specs: 2026.7.1 (cache-TTL context pruning).

A later version is one more spec here (``replace(V2026_7_1, version=..., version_label=..., replay=...)``
plus its own ``version_of``) and one line in ``simulator/registry.py``.
"""

from __future__ import annotations

from simulator.convert import to_openclaw
from simulator.estimates import openclaw_estimate_tokens, openclaw_system_tokens
from simulator.replay.model import CallRecord, SimulationResult
from simulator.replay.openclaw import ESTIMATOR, pruned_contents, replay_openclaw
from simulator.runtime_spec import ReplayInput, RuntimeSpec
from simulator.runtimes.openclaw.settings import OpenClawSettings
from simulator.specs.openclaw.budget import explain_budget
from simulator.specs.openclaw.config import detect, dump, load
from simulator.specs.openclaw.knobs import KNOBS
from simulator.specs.openclaw.presets import PRESETS
from simulator.transcript import Transcript


def _version(settings: OpenClawSettings) -> str:
    return "2026.7.1"


def _replay(transcript: Transcript, inp: ReplayInput[OpenClawSettings]) -> SimulationResult:
    return replay_openclaw(transcript, inp.settings, profile_name=inp.profile_name, reference=inp.reference)


def _contents(
    transcript: Transcript, settings: OpenClawSettings, result: SimulationResult, call: CallRecord
) -> dict[int, tuple[int, str]]:
    return pruned_contents(transcript, settings, call, result.origins)


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
    changed_contents=_contents,
    estimate_outside=openclaw_system_tokens,
    conformance_system="openclaw",
    conformance_module="simulator.conformance.openclaw_adapters",
    presets=PRESETS,
)
