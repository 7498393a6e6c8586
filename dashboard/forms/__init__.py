"""Forms: what a submitted page form describes, and the view models that draw it again (with its errors).

What lives here: the profile edit form (``profiles``: knob fields beside the raw TOML, the document they
describe, the inline check) and the simulation screen's knob edits (``simulations``). Forms read stored
rows through ``dashboard.selectors`` and never write; views pass what a form describes to
``dashboard.services``. What may import this package: views (and tests).
"""

from __future__ import annotations

from dashboard.forms.knob_edits import KnobEdits, simulation_knob_edits
from dashboard.forms.profiles import (
    FormSource,
    KnobField,
    ProfileForm,
    ProfileFormInput,
    profile_document_from_form,
    profile_document_parse,
    profile_error_knob,
    profile_form,
    profile_form_check,
    profile_knobs,
    runtime_knobs,
)
from dashboard.forms.simulations import simulation_document, simulation_profile

__all__ = [
    "FormSource",
    "KnobEdits",
    "KnobField",
    "ProfileForm",
    "ProfileFormInput",
    "profile_document_from_form",
    "profile_document_parse",
    "profile_error_knob",
    "profile_form",
    "profile_form_check",
    "profile_knobs",
    "runtime_knobs",
    "simulation_document",
    "simulation_knob_edits",
    "simulation_profile",
]
