"""ZeroClaw's two versions as runtime specs.

* ``documented`` — "proposed (PRs #9368, #9535)": what the history-management docs describe (PR 9368
  turn cap and breadcrumb, PR 9535 model-relative budget, PR 9379 events); not merged upstream.
* ``upstream`` — "released (v0.8.4)": master 15d28660 as released in v0.8.4.

Both read the same config keys; ``trimscope.version`` says which one a profile uses.
"""

from __future__ import annotations

from dataclasses import replace

from simulator.convert import to_zeroclaw_chat
from simulator.estimates import zeroclaw_estimate
from simulator.replay.model import SimulationResult
from simulator.replay.zeroclaw import (
    ESTIMATOR,
    ZeroClawNatives,
    prepare_zeroclaw,
    replay_zeroclaw,
    truncated_contents,
)
from simulator.runtime_spec import ReplayInput, RuntimeSpec
from simulator.runtimes.zeroclaw.settings import ZeroClawSettings
from simulator.specs.zeroclaw.budget import explain_budget
from simulator.specs.zeroclaw.config import detect, dump, load
from simulator.specs.zeroclaw.knobs import KNOBS, VERSION_LABELS
from simulator.specs.zeroclaw.notes import knob_notes
from simulator.specs.zeroclaw.presets import PROPOSED_PRESETS, RELEASED_PRESETS
from simulator.transcript import Transcript


def _version(settings: ZeroClawSettings) -> str:
    return settings.version


def _replay(transcript: Transcript, inp: ReplayInput[ZeroClawSettings]) -> SimulationResult:
    prepared = inp.prepared if isinstance(inp.prepared, ZeroClawNatives) else None
    return replay_zeroclaw(
        transcript, inp.settings, profile_name=inp.profile_name, reference=inp.reference, prepared=prepared
    )


PROPOSED: RuntimeSpec[ZeroClawSettings] = RuntimeSpec(
    runtime="zeroclaw",
    version="documented",
    runtime_label="ZeroClaw",
    version_label=VERSION_LABELS["documented"],
    settings_type=ZeroClawSettings,
    version_of=_version,
    detect=detect,
    load=load,
    dump=dump,
    knobs=KNOBS,
    explain_budget=explain_budget,
    convert=to_zeroclaw_chat,
    estimate=zeroclaw_estimate,
    estimator=ESTIMATOR,
    replay=_replay,
    prepare=prepare_zeroclaw,
    changed_contents=truncated_contents,
    knob_notes=knob_notes,
    conformance_system="zeroclaw",
    conformance_module="simulator.conformance.zeroclaw_adapters",
    presets=PROPOSED_PRESETS,
)

RELEASED: RuntimeSpec[ZeroClawSettings] = replace(
    PROPOSED, version="upstream", version_label=VERSION_LABELS["upstream"], presets=RELEASED_PRESETS
)
