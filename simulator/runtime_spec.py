"""What Trimscope knows about one reproduced runtime version, in one value: :class:`RuntimeSpec`.

A spec bundles the runtime's key and version with everything the rest of the simulator asks of it:
reading and writing its own config keys, its knob catalogue, the budget explanation, the conversion
to its native messages, its token estimator, its replay and its conformance adapters. Specs are
written in ``simulator/specs/`` and collected in ``simulator/registry.py``.

This module and the registry are the only places that look at a settings value's type: a spec is
generic in its settings type, and :meth:`RuntimeSpec.own` checks a value belongs to it before any
typed function runs. Who may import it: the simulator's own modules (the dashboard uses the facade).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Generic, Protocol, TypeVar

import msgspec

from simulator.convert import Converted
from simulator.jsonvalue import JSON
from simulator.knobs import Knob, KnobNote
from simulator.replay.model import BudgetExplanation, CallRecord, CallRecords, SimulationResult
from simulator.transcript import Message, Role, Transcript


class Settings(Protocol):
    """Any runtime's settings value: a frozen dataclass that checks its own knobs."""

    def validate(self) -> object: ...


S = TypeVar("S", bound=Settings)


@dataclass(frozen=True, slots=True)
class Loaded(Generic[S]):
    """A profile document's settings plus the provider window some runtimes simulate overflows against."""

    settings: S
    provider_window: int | None = None


@dataclass(frozen=True, slots=True)
class ReplayInput(Generic[S]):
    """Everything a replay of one transcript needs besides the transcript."""

    settings: S
    profile_name: str
    provider_window: int | None = None
    reference: bool = False
    """Run the reference implementation (the runtime's own functions every call), not the fast one."""
    prepared: object | None = None
    """What the spec's ``prepare`` made of this transcript, reused across replays (``None``: made anew)."""


@dataclass(frozen=True, slots=True)
class PresetSource:
    """A ready-made profile of one runtime version: ``document`` in its config keys (made canonical
    by ``simulator.presets``)."""

    key: str
    name: str
    description: str
    document: Mapping[str, JSON]


ContentsOf = Callable[[Transcript, S, SimulationResult, CallRecord], dict[int, tuple[int, str]]]
PricedContentsOf = Callable[[Transcript, S, SimulationResult, CallRecord], Mapping[int, tuple[int, str]]]


def _no_contents(
    transcript: Transcript, settings: object, result: SimulationResult, call: CallRecord
) -> dict[int, tuple[int, str]]:
    return {}


def _no_notes(settings: object) -> tuple[KnobNote, ...]:
    return ()


def _nothing_to_prepare(transcript: Transcript) -> None:
    return None


@dataclass(frozen=True, slots=True)
class RuntimeSpec(Generic[S]):
    """One runtime version.

    Args:
        runtime: The runtime's key (``Profile.runtime``, ``trimscope.runtime`` in a document).
        version: The version's key (``SimulationResult.version``; ZeroClaw's ``trimscope.version``).
        runtime_label: The runtime's name as shown ("ZeroClaw").
        version_label: The version as shown everywhere a version is shown.
        settings_type: The settings class this version reads.
        version_of: Which version a settings value asks for (for runtimes with several).
        detect: Whether an untagged document is in this runtime's config keys.
        load: A document (already parsed) to validated settings; raises ``ProfileError`` by path.
        dump: Settings back to the canonical document (round-trips through ``load``).
        knobs: The catalogue a form edits, in the document's keys.
        explain_budget: The budget (or window) and why, for the CLI, the API and the pages.
        convert: Transcript messages to this runtime's native messages.
        estimate: This runtime's own token estimate of transcript messages.
        estimator: The estimator in words.
        replay: A transcript through the settings, one record per model call.
        knob_notes: What this version does with the settings' out-of-range or version-specific knob
            values, by knob path (worked out from the values, so never stale after an edit).
        conformance_system: The ``system`` the shared vectors name for this runtime.
        conformance_module: The module whose ``ADAPTERS`` run those vectors.
        changed_contents: Per native message a rule changed at one call: ``(tokens, text)`` as sent.
        priced_contents: The same mapping in the shape the cost model builds requests from fastest (OpenClaw
            tells its hard-cleared run as a run); ``None`` when ``changed_contents`` is that shape.
        presets: Ready-made profiles of this version.
        estimate_outside: This runtime's estimate of a system message it sends outside the history it
            trims (ai-profile's and OpenClaw's system prompt); ``None`` when every message is held in
            the history (ZeroClaw).
        reads_clock: Whether the replay reads the time of each call (OpenClaw's cache-TTL gate), so a
            transcript without timestamps is replayed with assumed ones (``simulator.assumed_times``).
        prepare: What every replay of one transcript shares whatever the settings (native messages and
            per-message sizes), made once; ``replay`` takes it back in ``ReplayInput.prepared``. The same
            for every version of a runtime.
    """

    runtime: str
    version: str
    runtime_label: str
    version_label: str
    settings_type: type[S]
    version_of: Callable[[S], str]
    detect: Callable[[Mapping[str, JSON]], bool]
    load: Callable[[Mapping[str, JSON]], Loaded[S]]
    dump: Callable[[Loaded[S]], dict[str, JSON]]
    knobs: tuple[Knob, ...]
    explain_budget: Callable[[S], BudgetExplanation]
    convert: Callable[[Sequence[Message]], Converted]
    estimate: Callable[[Sequence[Message]], int]
    estimator: str
    replay: Callable[[Transcript, ReplayInput[S]], SimulationResult]
    conformance_system: str
    conformance_module: str
    changed_contents: ContentsOf[S] = _no_contents
    priced_contents: PricedContentsOf[S] | None = None
    knob_notes: Callable[[S], tuple[KnobNote, ...]] = _no_notes
    presets: tuple[PresetSource, ...] = ()
    estimate_outside: Callable[[Message], int] | None = None
    reads_clock: bool = False
    prepare: Callable[[Transcript], object] = _nothing_to_prepare

    @property
    def label(self) -> str:
        """Runtime and version as shown, e.g. "ZeroClaw proposed (PRs #9368, #9535)"."""
        return f"{self.runtime_label} {self.version_label}"

    def own(self, settings: object) -> S | None:
        """``settings`` typed as this spec's, when it is this runtime at this version; else ``None``."""
        if isinstance(settings, self.settings_type) and self.version_of(settings) == self.version:
            return settings
        return None

    def _owned(self, settings: object) -> S:
        owned = self.own(settings)
        if owned is None:
            raise TypeError(f"{type(settings).__name__} is not {self.label}'s settings")
        return owned

    # -- the untyped face the registry and its callers use (each checks ownership once) --------------

    def owns(self, settings: object) -> bool:
        return self.own(settings) is not None

    def load_settings(self, doc: Mapping[str, JSON]) -> tuple[Settings, int | None]:
        loaded = self.load(doc)
        return loaded.settings, loaded.provider_window

    def dump_document(self, settings: object, provider_window: int | None) -> dict[str, JSON]:
        return self.dump(Loaded(self._owned(settings), provider_window))

    def budget(self, settings: object) -> BudgetExplanation:
        return self.explain_budget(self._owned(settings))

    def simulate(
        self,
        transcript: Transcript,
        settings: object,
        *,
        profile_name: str,
        provider_window: int | None,
        reference: bool = False,
        prepared: object | None = None,
    ) -> SimulationResult:
        inp = ReplayInput(self._owned(settings), profile_name, provider_window, reference, prepared)
        result = _with_outside(self.replay(transcript, inp), transcript, self.estimate_outside)
        return replace(
            result,
            runtime=self.runtime,
            version=self.version,
            runtime_label=self.runtime_label,
            version_label=self.version_label,
        )

    def prepare_transcript(self, transcript: Transcript) -> object:
        return self.prepare(transcript)

    def contents(
        self, transcript: Transcript, settings: object, result: SimulationResult, call: CallRecord
    ) -> dict[int, tuple[int, str]]:
        return self.changed_contents(transcript, self._owned(settings), result, call)

    def priced(
        self, transcript: Transcript, settings: object, result: SimulationResult, call: CallRecord
    ) -> Mapping[int, tuple[int, str]]:
        """:meth:`contents` as the cost model reads it (the same mapping, perhaps as runs)."""
        if self.priced_contents is None:
            return self.contents(transcript, settings, result, call)
        return self.priced_contents(transcript, self._owned(settings), result, call)

    def notes(self, settings: object) -> tuple[KnobNote, ...]:
        return self.knob_notes(self._owned(settings))


def _with_outside(
    result: SimulationResult, transcript: Transcript, estimate: Callable[[Message], int] | None
) -> SimulationResult:
    """Count what a call sends outside the trimmed history into what it sends (and holds).

    A runtime that sends the system prompt as the request's own field trims only the history, so its
    replay counts only the history; the request still carries the prompt, so every count of what was
    sent includes it (``CallRecord.tokens_outside`` says how much of it is outside the history).
    """
    if estimate is None:
        return result
    # The system messages first (most transcripts have one or none), then which of them are held.
    system, messages = Role.SYSTEM, transcript.messages
    systems = [index for index, message in enumerate(messages) if message.role is system]
    if not systems:
        return result
    held = {index for origin in result.origins for index in origin}
    outside = tuple((index, estimate(messages[index])) for index in systems if index not in held)
    if not outside:
        return result
    if isinstance(result.calls, CallRecords):
        return replace(result, calls=_records_with_outside(result.calls, outside), outside=outside)
    before = _outside_before([call.message_index for call in result.calls], outside)
    return replace(result, calls=tuple(map(_with_tokens_outside, result.calls, before)), outside=outside)


def _outside_before(indices: Sequence[int], outside: tuple[tuple[int, int], ...]) -> list[int]:
    """Per call (its reply's transcript index, ascending), the tokens of ``outside`` sent before it."""
    before: list[int] = []
    position, tokens = 0, 0
    for index in indices:
        while position < len(outside) and outside[position][0] < index:
            tokens += outside[position][1]
            position += 1
        before.append(tokens)
    return before


def _with_tokens_outside(call: CallRecord, tokens: int) -> CallRecord:
    return msgspec.structs.replace(
        call,
        tokens_full=call.tokens_full + tokens,
        tokens_sent=call.tokens_sent + tokens,
        tokens_outside=tokens,
    )


def _records_with_outside(calls: CallRecords, outside: tuple[tuple[int, int], ...]) -> CallRecords:
    """:func:`_with_outside` of records made when read: each made from the replay's own when read (made
    and not kept there: the record with the outside tokens is the one kept), the columns counted now."""
    columns = calls.columns
    before = _outside_before(columns.message_indices, outside)

    def make(item: tuple[object, ...]) -> CallRecord:
        (k,) = item
        assert isinstance(k, int)
        return _with_tokens_outside(calls.unkept(k), before[k])

    counted = replace(
        columns,
        full=[full + more for full, more in zip(columns.full, before, strict=True)],
        sent=[sent + more for sent, more in zip(columns.sent, before, strict=True)],
    )
    return CallRecords([(k,) for k in range(len(calls))], make, counted)


class AnyRuntimeSpec(Protocol):
    """A :class:`RuntimeSpec` of any settings type, as the registry holds it (settings as ``object``)."""

    @property
    def runtime(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def runtime_label(self) -> str: ...
    @property
    def version_label(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def knobs(self) -> tuple[Knob, ...]: ...
    @property
    def estimator(self) -> str: ...
    @property
    def conformance_system(self) -> str: ...
    @property
    def conformance_module(self) -> str: ...
    @property
    def presets(self) -> tuple[PresetSource, ...]: ...
    @property
    def detect(self) -> Callable[[Mapping[str, JSON]], bool]: ...
    @property
    def convert(self) -> Callable[[Sequence[Message]], Converted]: ...
    @property
    def estimate(self) -> Callable[[Sequence[Message]], int]: ...
    @property
    def reads_clock(self) -> bool: ...

    def owns(self, settings: object) -> bool: ...
    def load_settings(self, doc: Mapping[str, JSON]) -> tuple[Settings, int | None]: ...
    def dump_document(self, settings: object, provider_window: int | None) -> dict[str, JSON]: ...
    def budget(self, settings: object) -> BudgetExplanation: ...
    def simulate(
        self,
        transcript: Transcript,
        settings: object,
        *,
        profile_name: str,
        provider_window: int | None,
        reference: bool = False,
        prepared: object | None = None,
    ) -> SimulationResult: ...
    def prepare_transcript(self, transcript: Transcript) -> object: ...
    def contents(
        self, transcript: Transcript, settings: object, result: SimulationResult, call: CallRecord
    ) -> dict[int, tuple[int, str]]: ...
    def priced(
        self, transcript: Transcript, settings: object, result: SimulationResult, call: CallRecord
    ) -> Mapping[int, tuple[int, str]]: ...
    def notes(self, settings: object) -> tuple[KnobNote, ...]: ...
