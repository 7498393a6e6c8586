"""The simulation screen's knob edits: a stored profile with the knob inputs the operator changed on top.

The edits are not stored; they re-run the replay in place (the selectors do the replay). What may import
this module: views.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from dashboard.forms.profiles import profile_document_from_form
from dashboard.models import Profile
from simulator import JSON, profile_from_document
from simulator import Profile as DomainProfile


def simulation_document(*, profile: Profile, knob_values: Mapping[str, str] | None = None) -> dict[str, JSON]:
    """The stored profile's document with the simulation screen's knob edits on top (not validated).

    The edits travel in the URL, and a URL may carry only the knobs changed (a link written by hand, a
    bookmark from before a knob was added): a knob it does not name keeps its stored value, never its
    default. The knob bar sends every knob, an unchecked box as ``off``."""
    document: dict[str, JSON] = dict(profile.settings)
    if not knob_values:
        return document
    return profile_document_from_form(
        text=json.dumps(document),
        knob_values=knob_values,
        knobs_runtime=profile.runtime,
        source="knobs",
        absent_kept=True,
    )


def simulation_profile(*, profile: Profile, knob_values: Mapping[str, str] | None = None) -> DomainProfile:
    """The stored profile, with the simulation screen's knob edits on top when there are any.

    Raises:
        ProfileError: naming the knob whose value is not allowed.
    """
    return profile_from_document(
        simulation_document(profile=profile, knob_values=knob_values), name=profile.name
    )
