"""A runtime's knob catalogue: every setting a profile can change, where it lives in the document, its range.

Each runtime spec (``simulator/specs/``) lists its knobs in its own config keys; a form (the dashboard's
profile editor) draws one input per knob and puts the submitted values back at ``path``. Rendering stays
with the form: this module only says what a knob is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

KnobKind: TypeAlias = Literal["int", "float", "bool", "tristate", "text", "select"]


@dataclass(frozen=True, slots=True)
class Knob:
    """One knob of a runtime: its dotted path in the profile document and how it is edited."""

    path: str
    label: str
    kind: KnobKind
    allowed: str
    choices: tuple[str, ...] = ()
    minimum: float | None = 0
    maximum: float | None = None
    step: str = "1"
    placeholder: str = ""
    error_field: str = ""
    """The field a :class:`~simulator.errors.ProfileError` about this knob names (default: ``path``)."""
    choice_labels: tuple[str, ...] = ()
    """How each of ``choices`` is shown (default: the choice itself)."""

    def __post_init__(self) -> None:
        if not self.error_field:
            object.__setattr__(self, "error_field", self.path)

    @property
    def options(self) -> tuple[tuple[str, str], ...]:
        """``(value, label)`` for each choice of a select."""
        labels = self.choice_labels or self.choices
        return tuple(zip(self.choices, labels, strict=True))


@dataclass(frozen=True, slots=True)
class KnobNote:
    """What the runtime does with one knob's value (out of range, ignored by this version...)."""

    path: str
    """The knob's :attr:`Knob.path`."""
    note: str
