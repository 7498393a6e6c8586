"""The profile edit form: one labelled input per knob beside the raw TOML, checked inline as it is typed.

What lives here: the knob fields a document draws (:func:`profile_knobs`), the document a submitted form
describes (:func:`profile_document_from_form`: the editor text, with the knob inputs on top), which knob
an error belongs to, and the form's view model (:func:`profile_form`, :func:`profile_form_check`).
Nothing here writes: views hand the form's document to ``dashboard.services`` to store. Reads of stored
profiles come from ``dashboard.selectors``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from dashboard.models import Profile
from dashboard.selectors.profiles import profile_budget, profile_domain
from simulator import (
    JSON,
    BudgetExplanation,
    Knob,
    KnobNote,
    ProfileError,
    detect_runtime,
    profile_document_from_text,
    profile_from_document,
    profile_to_document,
    profile_to_toml,
    spec_get,
    versions,
)

FormSource: TypeAlias = Literal["knobs", "toml"]


# -- the edit form: one labelled input per knob ------------------------------------------------------


def runtime_knobs(runtime: str, document: Mapping[str, JSON] | None = None) -> tuple[Knob, ...]:
    """A runtime's knob catalogue: the one of the version ``document`` targets, else the default version's.

    ZeroClaw's versions share one catalogue; OpenClaw 2026.9.6 has its own (retired keys gone, compaction
    knobs added).
    """
    meta = document.get("trimscope") if document is not None else None
    version = meta.get("version") if isinstance(meta, dict) else None
    spec = spec_get(runtime, version) if isinstance(version, str) else None
    return (spec or versions(runtime)[0]).knobs


@dataclass(frozen=True, slots=True)
class KnobField:
    """A knob with the value the form shows (``text`` for inputs, ``checked`` for checkboxes)."""

    knob: Knob
    text: str = ""
    checked: bool = False

    @property
    def dom_id(self) -> str:
        return "knob-" + self.knob.path.replace(".", "-")


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
    for knob in runtime_knobs(runtime, document):
        value = _get(document, knob.path)
        fields.append(KnobField(knob, _display(value), value is True))
    return runtime, tuple(fields)


_SWITCH_WORDS = {"on": True, "true": True, "1": True, "off": False, "false": False, "0": False, "": False}
"""What a checkbox knob's value reads as: ``on`` (a checked box), ``off`` (the hidden input the simulation
screen's knob bar sends before each box, so an unchecked box is said rather than left out), or a word typed
into a URL."""


def _knob_value(knob: Knob, raw: str | None) -> tuple[bool, JSON]:
    """``(present, value)`` for a submitted knob; unparseable values go in as text for the loader to name."""
    if knob.kind == "bool":
        if raw is None:
            return True, False  # a form's unchecked box is not sent
        switch = _SWITCH_WORDS.get(raw.strip().lower())
        return True, switch if switch is not None else raw
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
    *,
    text: str,
    knob_values: Mapping[str, str],
    knobs_runtime: str,
    source: FormSource,
    absent_kept: bool = False,
) -> dict[str, JSON]:
    """The document an edit form describes: the raw TOML, or (``source="knobs"``) it with the knobs on top.

    The result is not validated, so an invalid knob value reaches the loader, which names it.

    Args:
        text: The raw TOML/JSON editor contents.
        knob_values: Submitted knob inputs by document path (an unchecked checkbox is absent).
        knobs_runtime: The runtime the knob inputs were drawn for.
        source: Which side the operator edited last.
        absent_kept: A knob not in ``knob_values`` keeps the document's value (edits carried in a URL,
            which may name only the knobs changed), instead of being unset (a whole form, where an
            absent knob is an unchecked box).

    Raises:
        ProfileError: when the editor text does not parse or (for knobs) its base is invalid.
    """
    doc = profile_document_parse(text=text)
    runtime = detect_runtime(doc)
    if source == "toml" or runtime != knobs_runtime:
        return doc
    # The knob paths are the canonical ones (runtime_profiles.default, agents.defaults...).
    base = profile_to_document(profile_from_document(doc, name="form"))
    for knob in runtime_knobs(runtime, base):
        raw = knob_values.get(knob.path)
        if raw is None and absent_kept:
            continue
        present, value = _knob_value(knob, raw)
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
    budget: BudgetExplanation | None = None
    slot_knobs: tuple[KnobField, ...] = ()
    sync_toml: bool = False
    sync_knobs: bool = False
    warnings: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    """Key paths of the source config that are kept, not modelled (they come back on export)."""
    knob_notes: tuple[KnobNote, ...] = ()
    """What the runtime does with a knob's value, shown next to that knob."""


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
            knob_notes=domain.knob_notes,
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
    try:
        slot_knobs = tuple(KnobField(k) for k in runtime_knobs(submitted.knobs_runtime))
    except ProfileError:
        slot_knobs = ()
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
            error_knob=next((k.knob.path for k in slot_knobs if k.knob.error_field == exc.field), None),
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
        knob_notes=domain.knob_notes,
        # Only the side the operator is not typing in is redrawn, so focus and caret stay put.
        sync_toml=submitted.source == "knobs",
        sync_knobs=submitted.source == "toml",
    )
