"""The simulation screen's knob edits, applied one by one: an invalid knob keeps the others."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from dashboard.forms.profiles import profile_error_knob, profile_knobs
from dashboard.forms.simulations import simulation_document, simulation_profile
from dashboard.models import Profile
from simulator import Profile as DomainProfile
from simulator import ProfileError


@dataclass(frozen=True, slots=True)
class KnobEdits:
    profile: DomainProfile
    """The stored profile with every valid edit applied."""
    applied: dict[str, str]
    """The knob values simulated: the submitted ones less any invalid knob (which keeps its stored value)."""
    error: ProfileError | None
    error_path: str | None
    """The knob the error belongs to (``None``: the document as a whole)."""
    edited: bool


def simulation_knob_edits(*, profile: Profile, knob_values: Mapping[str, str]) -> KnobEdits:
    """The profile to simulate: the edits, with each knob the runtime refuses put back as stored.

    The first error is kept to show beside its knob; the other edits still apply, so one typo does
    not switch the whole screen back to the stored profile.
    """
    values = dict(knob_values)
    first: tuple[ProfileError, str | None] | None = None
    for _ in range(len(values) + 1):
        try:
            domain = simulation_profile(profile=profile, knob_values=values)
        except ProfileError as exc:
            _, fields = profile_knobs(document=simulation_document(profile=profile, knob_values=values))
            path = profile_error_knob(error=exc, fields=fields)
            first = first or (exc, path)
            if path is None or path not in values:
                break
            values.pop(path)  # a knob the edits do not name keeps its stored value
            continue
        error, error_path = first if first is not None else (None, None)
        return KnobEdits(domain, values, error, error_path, bool(knob_values))
    error, error_path = first if first is not None else (None, None)
    return KnobEdits(simulation_profile(profile=profile), {}, error, error_path, False)
