"""Writes and their side effects, one module per sub-domain. Views, the API and consumers call these."""

from __future__ import annotations

from dashboard.services.profiles import (
    ProfileNameTaken,
    demo_profiles_ensure,
    profile_create,
    profile_delete,
    profile_duplicate,
    profile_import,
    profile_update,
)
from dashboard.services.simulations import simulation_create, simulation_delete
from dashboard.services.tokens import api_token_create, api_token_revoke
from dashboard.services.transcripts import (
    transcript_delete,
    transcript_import,
)

__all__ = [
    "ProfileNameTaken",
    "api_token_create",
    "api_token_revoke",
    "demo_profiles_ensure",
    "profile_create",
    "profile_delete",
    "profile_duplicate",
    "profile_import",
    "profile_update",
    "simulation_create",
    "simulation_delete",
    "transcript_delete",
    "transcript_import",
]
