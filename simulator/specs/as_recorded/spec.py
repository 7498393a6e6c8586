"""``as-recorded`` as a runtime spec: no context management, every message held before a call is sent.

It is the baseline the cost model compares each profile with (issue 12). It is a spec in the registry,
not a replay mode, so it is a profile like any other: a preset (``as-recorded``), a stored profile, a
``--profile`` on the CLI, a column on the compare page; nothing outside the registry needs to know it.

Native messages are the transcript's messages one for one; sizes are o200k counts of each message's
text, thinking and tool-call arguments (``simulator.estimates``), the tokenizer the cost model uses for
every runtime. The document has no knobs: ``{"trimscope": {"runtime": "as_recorded"}}``; other keys are
refused by name, so a config of another runtime is never silently read as ``as-recorded``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from simulator.convert import Converted
from simulator.errors import ProfileError
from simulator.estimates import message_token_text, tiktoken_count
from simulator.jsonvalue import JSON
from simulator.replay.loop import ModelCall, model_calls, run_calls
from simulator.replay.model import BudgetExplanation, CallRecord, SimulationResult
from simulator.runtime_spec import Loaded, PresetSource, ReplayInput, RuntimeSpec
from simulator.transcript import Message, Transcript

RUNTIME = "as_recorded"
VERSION = "1"
ESTIMATOR = "o200k_base over text, thinking and tool-call arguments"


@dataclass(frozen=True, slots=True)
class AsRecordedSettings:
    """No knobs: nothing is trimmed, pruned or cleared."""

    def validate(self) -> None:
        return None


def _version(settings: AsRecordedSettings) -> str:
    return VERSION


def detect(doc: Mapping[str, JSON]) -> bool:
    # Only an explicit ``trimscope.runtime``: an untagged document is always some runtime's config.
    return False


def load(doc: Mapping[str, JSON]) -> Loaded[AsRecordedSettings]:
    for key in doc:
        if key != "trimscope":
            raise ProfileError(key, "as-recorded has no settings", allowed="only the trimscope block")
    return Loaded(AsRecordedSettings())


def dump(loaded: Loaded[AsRecordedSettings]) -> dict[str, JSON]:
    return {"trimscope": {"runtime": RUNTIME}}


def explain_budget(settings: AsRecordedSettings) -> BudgetExplanation:
    return BudgetExplanation(
        None,
        "no context management",
        ("every message held before a call is sent: no trimming, no pruning",),
        summary="no context management: every held message is sent",
    )


def convert(messages: Sequence[Message]) -> Converted:
    return Converted(
        messages=tuple(message_token_text(m) for m in messages),
        origins=tuple((i,) for i in range(len(messages))),
    )


def estimate(messages: Sequence[Message]) -> int:
    return sum(tiktoken_count(message_token_text(m)) for m in messages)


def replay_as_recorded(transcript: Transcript, inp: ReplayInput[AsRecordedSettings]) -> SimulationResult:
    """Every call sends all the messages before its reply."""
    messages = transcript.messages
    tokens = tuple(tiktoken_count(message_token_text(m)) for m in messages)
    prefix = [0]
    for count in tokens:
        prefix.append(prefix[-1] + count)
    origins = tuple((i,) for i in range(len(messages)))

    def step(state: None, call: ModelCall) -> tuple[CallRecord, None]:
        usage = messages[call.message_index].usage
        record = CallRecord(
            number=call.number,
            message_index=call.message_index,
            available=call.available,
            sent=((0, call.available),) if call.available else (),
            breadcrumb_at=None,
            fated=(),
            budget=None,
            tokens_full=prefix[call.available],
            tokens_sent=prefix[call.available],
            trimmed=False,
            provider_input_tokens=usage.prompt_tokens if usage is not None else None,
        )
        return record, None

    calls, _ = run_calls(model_calls(transcript, origins), step, None)
    return SimulationResult(
        runtime=RUNTIME,
        version=VERSION,
        profile_name=inp.profile_name,
        budget=explain_budget(inp.settings),
        window=None,
        calls=calls,
        origins=origins,
        native_tokens=tokens,
        dropped_at=(0,) * len(messages),
        drop_rules=("",) * len(messages),
        content_changes=(),
        estimator=ESTIMATOR,
    )


AS_RECORDED: RuntimeSpec[AsRecordedSettings] = RuntimeSpec(
    runtime=RUNTIME,
    version=VERSION,
    runtime_label="as-recorded",
    version_label="no context management",
    settings_type=AsRecordedSettings,
    version_of=_version,
    detect=detect,
    load=load,
    dump=dump,
    knobs=(),
    explain_budget=explain_budget,
    convert=convert,
    estimate=estimate,
    estimator=ESTIMATOR,
    replay=replay_as_recorded,
    # No upstream implementation to check against: no vectors name this system.
    conformance_system=RUNTIME,
    conformance_module="simulator.conformance.as_recorded_adapters",
    presets=(
        PresetSource(
            "as-recorded",
            "as-recorded (no context management)",
            "Every message held before a call is sent: no trimming, no pruning. The baseline each "
            "profile's cost is compared with.",
            {"trimscope": {"runtime": RUNTIME}},
        ),
    ),
)
