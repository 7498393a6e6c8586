"""Profile reads: rows, the domain profile, the resolved budget in one line, the edit form's knobs, exports.

Stored ``settings`` are always the canonical document, so everything here rebuilds the domain profile
from it with the same loader the writes validated through.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from django.db.models import QuerySet
from django.utils.text import slugify

from dashboard.models import Profile
from simulator.config_files import ConfigFile, Syntax, read_config_text
from simulator.errors import ProfileError
from simulator.jsonvalue import JSON
from simulator.presets import PRESETS, Preset, preset_get
from simulator.profile_warnings import knob_warnings, profile_warnings
from simulator.profiles import Profile as DomainProfile
from simulator.profiles import (
    detect_runtime,
    profile_document_from_text,
    profile_from_document,
    profile_to_document,
    profile_to_json,
    profile_to_toml,
)
from simulator.runtimes.ai_profile import OVERHEAD_TOKENS, AiProfileSettings
from simulator.runtimes.zeroclaw import resolve_budget
from simulator.runtimes.zeroclaw.settings import VERSIONS, ZeroClawSettings

ExportFormat: TypeAlias = Literal["toml", "json"]
KnobKind: TypeAlias = Literal["int", "float", "bool", "tristate", "text", "select"]
FormSource: TypeAlias = Literal["knobs", "toml"]

EXPORT_CONTENT_TYPES: Mapping[str, str] = {
    # application/toml is the IANA-registered TOML media type.
    "toml": "application/toml; charset=utf-8",
    "json": "application/json; charset=utf-8",
}


def profile_list() -> QuerySet[Profile]:
    return Profile.objects.all()


def profile_get(*, profile_id: int) -> Profile | None:
    return Profile.objects.filter(pk=profile_id).first()


def profile_domain(*, profile: Profile) -> DomainProfile:
    return profile_from_document(profile.settings, name=profile.name)


def profile_presets() -> tuple[Preset, ...]:
    return PRESETS


def profile_preset_get(*, key: str) -> Preset | None:
    return preset_get(key)


def profile_copy_name(*, profile: Profile) -> str:
    """A free name for a copy: ``"<name> (copy)"``, then ``"(copy 2)"``, ``"(copy 3)"``..."""
    base = f"{profile.name} (copy"
    taken = set(Profile.objects.filter(name__startswith=base).values_list("name", flat=True))
    candidate, n = f"{base})", 1
    while candidate in taken:
        n += 1
        candidate = f"{base} {n})"
    return candidate[:120]


# -- the budget in one line ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BudgetLine:
    """What the profile lets through: ``tokens`` is a history budget or (OpenClaw) the pruner's window."""

    tokens: int | None
    what: Literal["budget", "window"]
    explanation: str


def _ttl(ms: float) -> str:
    for unit, size in (("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if ms >= size and ms % size == 0:
            return f"{ms / size:g}{unit}"
    return f"{ms:g}ms"


def profile_budget(*, profile: DomainProfile) -> BudgetLine:
    s = profile.settings
    if isinstance(s, ZeroClawSettings):
        r = resolve_budget(s)
        return BudgetLine(r.budget, "budget", f"bound by {r.bound_by}: " + " → ".join(r.steps))
    if isinstance(s, AiProfileSettings):
        limits = s.limits()
        budget = s.history_budget()
        if budget is None or limits.context_window is None:
            return BudgetLine(
                None, "budget", "no context window known: nothing trimmed up front, only the overflow retry"
            )
        source = limits.context_window_source.value if limits.context_window_source else "unknown"
        sent = s.effective_max_tokens()
        lowered = f" (max_tokens {s.max_tokens:,} lowered to maxOutput)" if sent < s.max_tokens else ""
        return BudgetLine(
            budget,
            "budget",
            f"window {limits.context_window:,} ({source}) − max_tokens {sent:,}{lowered}"
            f" − overhead {OVERHEAD_TOKENS:,} = {budget:,}",
        )
    window = s.context_window_tokens()
    effective = s.effective()
    if effective is None:
        return BudgetLine(window, "window", f"pruning off (mode {s.mode or 'unset'}): nothing is pruned")
    chars = window * 4
    hard = (
        f"hard-clear at {effective.hard_clear_ratio:g} "
        f"({math.floor(chars * effective.hard_clear_ratio):,} chars) "
        f"once ≥ {effective.min_prunable_tool_chars:,.0f} prunable tool chars"
        if effective.hard_clear.enabled
        else "hard-clear disabled"
    )
    return BudgetLine(
        window,
        "window",
        f"ttl {_ttl(effective.ttl_ms)} · soft-trim at {effective.soft_trim_ratio:g} "
        f"({math.floor(chars * effective.soft_trim_ratio):,} chars) · {hard} · "
        f"keep last {effective.keep_last_assistants:g} assistants",
    )


@dataclass(frozen=True, slots=True)
class ProfileRow:
    profile: Profile
    label: str
    budget: BudgetLine


def profile_rows() -> list[ProfileRow]:
    rows = []
    for profile in profile_list():
        domain = profile_domain(profile=profile)
        rows.append(ProfileRow(profile, domain.label, profile_budget(profile=domain)))
    return rows


# -- the edit form: one labelled input per knob ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Knob:
    """One knob of a runtime: where it lives in the document and how the form edits it."""

    path: str
    label: str
    kind: KnobKind
    allowed: str
    choices: tuple[str, ...] = ()
    minimum: float | None = 0
    maximum: float | None = None
    step: str = "1"
    placeholder: str = ""

    @property
    def error_field(self) -> str:
        """The field name the loader puts in a :class:`ProfileError` about this knob."""
        # The OpenClaw loader names pruning fields from the block, not from agents.defaults.
        return self.path.removeprefix("agents.defaults.") if ".contextPruning." in self.path else self.path

    @property
    def dom_id(self) -> str:
        return "knob-" + self.path.replace(".", "-")


_ZC = "runtime_profiles.default"
_OC = "agents.defaults.contextPruning"
KNOBS: Mapping[str, tuple[Knob, ...]] = {
    "zeroclaw": (
        Knob("trimscope.version", "Version", "select", ", ".join(VERSIONS), choices=VERSIONS),
        Knob(f"{_ZC}.max_context_tokens", "max_context_tokens", "int", "an integer ≥ 0, or empty (unset)"),
        Knob(
            f"{_ZC}.context_compact_ratio",
            "context_compact_ratio",
            "float",
            "a number; only (0, 1] takes effect (documented version)",
            minimum=None,
            step="any",
        ),
        Knob(f"{_ZC}.max_history_messages", "max_history_messages", "int", "an integer ≥ 0, or empty"),
        Knob(f"{_ZC}.max_tool_iterations", "max_tool_iterations", "int", "an integer ≥ 0", placeholder="10"),
        Knob(f"{_ZC}.max_tool_result_chars", "max_tool_result_chars", "int", "an integer ≥ 0 (0 = off)"),
        Knob(f"{_ZC}.history_pruning.enabled", "history_pruning.enabled", "bool", "on or off"),
        Knob(f"{_ZC}.history_pruning.max_tokens", "history_pruning.max_tokens", "int", "an integer ≥ 0"),
        Knob("provider.model", "provider.model", "text", "the model the window is declared for"),
        Knob("provider.context_window", "provider.context_window", "int", "an integer ≥ 0, or empty"),
        Knob("trimscope.model", "selected model", "text", "empty = the provider's model"),
    ),
    "ai_profile": (
        Knob("max_tokens", "max_tokens", "int", "an integer ≥ 0"),
        Knob("max_attempts", "max_attempts", "int", "an integer from 0 to 10", maximum=10),
        *(
            Knob(f"limits.{layer}.{key}", f"limits.{layer}.{key}", "int", "an integer ≥ 0, or empty")
            for layer in ("user", "endpoint", "preset")
            for key in ("contextWindow", "maxOutput")
        ),
        Knob(
            "provider.context_window", "provider.context_window", "int", "an integer ≥ 1, or empty", minimum=1
        ),
    ),
    "openclaw": (
        Knob(
            f"{_OC}.mode", "mode", "select", '"off" or "cache-ttl"; unset = off', choices=("off", "cache-ttl")
        ),
        Knob(f"{_OC}.ttl", "ttl", "text", "a duration like 5m, 1h, 1h30m", placeholder="5m"),
        Knob(f"{_OC}.keepLastAssistants", "keepLastAssistants", "int", "an integer ≥ 0", placeholder="3"),
        Knob(
            f"{_OC}.softTrimRatio",
            "softTrimRatio",
            "float",
            "a number in [0, 1]",
            maximum=1,
            step="any",
            placeholder="0.3",
        ),
        Knob(
            f"{_OC}.hardClearRatio",
            "hardClearRatio",
            "float",
            "a number in [0, 1]",
            maximum=1,
            step="any",
            placeholder="0.5",
        ),
        Knob(
            f"{_OC}.minPrunableToolChars",
            "minPrunableToolChars",
            "int",
            "an integer ≥ 0",
            placeholder="50000",
        ),
        Knob(f"{_OC}.softTrim.maxChars", "softTrim.maxChars", "int", "an integer ≥ 0", placeholder="4000"),
        Knob(f"{_OC}.softTrim.headChars", "softTrim.headChars", "int", "an integer ≥ 0", placeholder="1500"),
        Knob(f"{_OC}.softTrim.tailChars", "softTrim.tailChars", "int", "an integer ≥ 0", placeholder="1500"),
        Knob(f"{_OC}.hardClear.enabled", "hardClear.enabled", "tristate", "true, false or unset (true)"),
        Knob(f"{_OC}.hardClear.placeholder", "hardClear.placeholder", "text", "any text"),
        Knob(
            "model.contextWindow",
            "model.contextWindow",
            "int",
            "an integer ≥ 1, or empty (200,000)",
            minimum=1,
        ),
        Knob(
            "agents.defaults.contextTokens",
            "agents.defaults.contextTokens",
            "int",
            "an integer ≥ 1, or empty",
            minimum=1,
        ),
    ),
}


@dataclass(frozen=True, slots=True)
class KnobField:
    """A knob with the value the form shows (``text`` for inputs, ``checked`` for checkboxes)."""

    knob: Knob
    text: str
    checked: bool


def _get(doc: Mapping[str, JSON], path: str) -> JSON:
    node: JSON = dict(doc)
    for part in path.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def _set(doc: dict[str, JSON], path: str, value: JSON) -> None:
    *parents, leaf = path.split(".")
    node = doc
    for part in parents:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    node[leaf] = value


def _delete(doc: dict[str, JSON], path: str) -> None:
    *parents, leaf = path.split(".")
    node: JSON = doc
    for part in parents:
        if not isinstance(node, dict):
            return
        node = node.get(part)
    if isinstance(node, dict):
        node.pop(leaf, None)


def _display(value: JSON) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    return json.dumps(value)


def profile_knobs(*, document: Mapping[str, JSON]) -> tuple[str, tuple[KnobField, ...]]:
    """The runtime and its knobs with the values ``document`` holds (which need not be valid).

    Raises:
        ProfileError: when the runtime cannot be told from the document.
    """
    runtime = detect_runtime(document)
    fields = []
    for knob in KNOBS[runtime]:
        value = _get(document, knob.path)
        fields.append(KnobField(knob, _display(value), value is True))
    return runtime, tuple(fields)


def _knob_value(knob: Knob, raw: str | None) -> tuple[bool, JSON]:
    """``(present, value)`` for a submitted knob; unparseable values go in as text for the loader to name."""
    if knob.kind == "bool":
        return True, raw is not None
    text = (raw or "").strip()
    if not text:
        return False, None
    if knob.kind == "tristate":
        return True, {"true": True, "false": False}.get(text, text)
    if knob.kind in ("int", "float"):
        try:
            number = float(text)
        except ValueError:
            return True, text
        if not math.isfinite(number):
            return True, text
        if knob.kind == "int" and number.is_integer() and "." not in text and "e" not in text.lower():
            return True, int(text)
        return True, number
    return True, text


def profile_document_parse(*, text: str, syntax: Literal["toml", "json", "auto"] = "auto") -> dict[str, JSON]:
    """A TOML or JSON profile text as a document (not yet validated)."""
    return profile_document_from_text(text, syntax=syntax)


def profile_document_from_form(
    *, text: str, knob_values: Mapping[str, str], knobs_runtime: str, source: FormSource
) -> dict[str, JSON]:
    """The document an edit form describes: the raw TOML, or (``source="knobs"``) it with the knobs on top.

    The result is not validated, so an invalid knob value reaches the loader, which names it.

    Args:
        text: The raw TOML/JSON editor contents.
        knob_values: Submitted knob inputs by document path (an unchecked checkbox is absent).
        knobs_runtime: The runtime the knob inputs were drawn for.
        source: Which side the operator edited last.

    Raises:
        ProfileError: when the editor text does not parse or (for knobs) its base is invalid.
    """
    doc = profile_document_parse(text=text)
    runtime = detect_runtime(doc)
    if source == "toml" or runtime != knobs_runtime:
        return doc
    # The knob paths are the canonical ones (runtime_profiles.default, agents.defaults...).
    base = profile_to_document(profile_from_document(doc, name="form"))
    for knob in KNOBS[runtime]:
        present, value = _knob_value(knob, knob_values.get(knob.path))
        if present:
            _set(base, knob.path, value)
        else:
            _delete(base, knob.path)
    return base


def profile_error_knob(*, error: ProfileError, fields: Sequence[KnobField]) -> str | None:
    """The knob path an error belongs to, or ``None`` when it is about the document as a whole."""
    for f in fields:
        if error.field == f.knob.error_field:
            return f.knob.path
    return None


# -- whole config files: what an import would store ----------------------------------------------------


def profile_config_read(*, text: str, syntax: Syntax = "auto", filename: str | None = None) -> ConfigFile:
    """Every profile a pasted or uploaded config yields, with the reader's warnings and kept keys."""
    return read_config_text(text, filename=filename, syntax=syntax)


@dataclass(frozen=True, slots=True)
class ConfigPreviewRow:
    """One profile a config file yields, as the import page lists it before storing."""

    name: str
    label: str
    budget: BudgetLine
    warnings: tuple[str, ...]
    kept: tuple[str, ...]


def profile_config_preview(*, config: ConfigFile) -> list[ConfigPreviewRow]:
    return [
        ConfigPreviewRow(
            p.name, p.label, profile_budget(profile=p), profile_warnings(p), tuple(k.path for k in p.kept)
        )
        for p in config.profiles
    ]


# -- export -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProfileExport:
    text: str
    content_type: str
    filename: str


def profile_export(*, profile: Profile, fmt: ExportFormat) -> ProfileExport:
    domain = profile_domain(profile=profile)
    text = profile_to_toml(domain) if fmt == "toml" else profile_to_json(domain)
    stem = slugify(profile.name) or f"profile-{profile.pk}"
    return ProfileExport(text, EXPORT_CONTENT_TYPES[fmt], f"{stem}.{fmt}")


# -- the edit form as a whole -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProfileFormInput:
    """What an edit form submitted: ``text`` is the raw editor, ``knob_values`` the inputs by path."""

    name: str
    description: str
    text: str
    knob_values: Mapping[str, str]
    knobs_runtime: str
    source: FormSource

    def document(self) -> dict[str, JSON]:
        return profile_document_from_form(
            text=self.text, knob_values=self.knob_values, knobs_runtime=self.knobs_runtime, source=self.source
        )


@dataclass(frozen=True, slots=True)
class ProfileForm:
    """The edit form's view model; ``error_knob`` is the knob path an error sits next to (else the editor)."""

    name: str
    description: str
    text: str
    source: FormSource
    runtime: str
    knobs: tuple[KnobField, ...]
    error: ProfileError | None = None
    error_knob: str | None = None
    label: str = ""
    budget: BudgetLine | None = None
    slot_knobs: tuple[Knob, ...] = ()
    sync_toml: bool = False
    sync_knobs: bool = False
    warnings: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    """Key paths of the source config that are kept, not modelled (they come back on export)."""
    knob_notes: tuple[tuple[str, str], ...] = ()
    """``(knob label, note)``: what the runtime does with that knob's value, shown next to it."""


def _knobs_or_none(document: Mapping[str, JSON]) -> tuple[str, tuple[KnobField, ...]] | None:
    try:
        return profile_knobs(document=document)
    except ProfileError:
        return None


def profile_form(
    *, profile: Profile, submitted: ProfileFormInput | None = None, error: ProfileError | None = None
) -> ProfileForm:
    """The edit form for ``profile``: as stored, or as ``submitted`` with the ``error`` that stopped it."""
    domain = profile_domain(profile=profile)
    stored = profile_knobs(document=profile.settings)
    if submitted is None:
        return ProfileForm(
            name=profile.name,
            description=profile.description,
            text=profile_to_toml(domain),
            source="knobs",
            runtime=stored[0],
            knobs=stored[1],
            label=domain.label,
            budget=profile_budget(profile=domain),
            warnings=domain.warnings,
            kept=tuple(k.path for k in domain.kept),
            knob_notes=knob_warnings(domain),
        )
    try:
        # Unvalidated on purpose: the inputs redraw with the bad value the operator typed.
        drawn = _knobs_or_none(submitted.document()) or stored
    except ProfileError:
        drawn = stored
    return ProfileForm(
        name=submitted.name,
        description=submitted.description,
        text=submitted.text,
        source=submitted.source,
        runtime=drawn[0],
        knobs=drawn[1],
        error=error,
        error_knob=None if error is None else profile_error_knob(error=error, fields=drawn[1]),
        label=domain.label,
        budget=profile_budget(profile=domain),
    )


def profile_form_check(*, submitted: ProfileFormInput) -> ProfileForm:
    """The inline check: the error with its knob, or (valid) the other side redrawn canonically."""
    slot_knobs = KNOBS.get(submitted.knobs_runtime, ())
    document: dict[str, JSON] | None = None
    try:
        document = submitted.document()
        domain = profile_from_document(document, name=submitted.name or "profile")
    except ProfileError as exc:
        drawn = _knobs_or_none(document) if document is not None else None
        runtime, knobs = drawn or (submitted.knobs_runtime, ())
        return ProfileForm(
            name=submitted.name,
            description=submitted.description,
            text=submitted.text,
            source=submitted.source,
            runtime=runtime,
            knobs=knobs,
            error=exc,
            error_knob=next((k.path for k in slot_knobs if k.error_field == exc.field), None),
            slot_knobs=slot_knobs,
        )
    runtime, knobs = profile_knobs(document=profile_to_document(domain))
    return ProfileForm(
        name=submitted.name,
        description=submitted.description,
        text=profile_to_toml(domain),
        source=submitted.source,
        runtime=runtime,
        knobs=knobs,
        label=domain.label,
        budget=profile_budget(profile=domain),
        slot_knobs=slot_knobs,
        knob_notes=knob_warnings(domain),
        # Only the side the operator is not typing in is redrawn, so focus and caret stay put.
        sync_toml=submitted.source == "knobs",
        sync_knobs=submitted.source == "toml",
    )
