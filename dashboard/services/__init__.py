"""Writes and their side effects, one module per area (transcripts, profiles, simulations, tokens, fleet,
corpora, evaluations, throttle). A request a service refuses raises an ``ApplicationError``
(``dashboard.errors``) carrying the HTTP status the API answers with.

Who may import: views, the API, consumers, commands and tasks. Services read through selectors and reach
the simulator through its facade (``import simulator``) only.
"""

from __future__ import annotations

from dashboard.services.fleet import (
    Ingested,
    IngestFailed,
    RuntimeInvalid,
    RuntimeNameTaken,
    runtime_connected,
    runtime_create,
    runtime_group,
    runtime_revoke,
    runtime_seen,
    trim_event_ingest,
    trim_events_ingest,
    trim_events_ingest_many,
)
from dashboard.services.fleet_alerts import (
    AlertInvalid,
    alert_acknowledge,
    alert_mute,
    alert_thresholds_update,
    alert_unmute,
)
from dashboard.services.fleet_rollups import (
    fleet_prune,
    fleet_prune_schedule,
    trim_rollups_add,
    trim_rollups_rebuild,
)
from dashboard.services.pricing import price_override_delete, price_override_set
from dashboard.services.profiles import (
    ProfileNameTaken,
    demo_profiles_ensure,
    profile_create,
    profile_delete,
    profile_duplicate,
    profile_import,
    profile_import_all,
    profile_import_syntax,
    profile_update,
)
from dashboard.services.simulations import simulation_create, simulation_delete
from dashboard.services.tokens import api_token_create, api_token_revoke
from dashboard.services.transcripts import (
    TranscriptAlreadyStored,
    transcript_delete,
    transcript_import,
    transcript_parsed_forms_store,
)

__all__ = [
    "AlertInvalid",
    "alert_acknowledge",
    "alert_mute",
    "alert_thresholds_update",
    "alert_unmute",
    "fleet_prune",
    "fleet_prune_schedule",
    "trim_rollups_add",
    "trim_rollups_rebuild",
    "IngestFailed",
    "Ingested",
    "ProfileNameTaken",
    "RuntimeInvalid",
    "RuntimeNameTaken",
    "TranscriptAlreadyStored",
    "api_token_create",
    "api_token_revoke",
    "demo_profiles_ensure",
    "price_override_delete",
    "price_override_set",
    "profile_create",
    "profile_delete",
    "profile_duplicate",
    "profile_import",
    "profile_import_all",
    "profile_import_syntax",
    "profile_update",
    "runtime_connected",
    "runtime_create",
    "runtime_group",
    "runtime_revoke",
    "runtime_seen",
    "simulation_create",
    "simulation_delete",
    "transcript_delete",
    "transcript_import",
    "transcript_parsed_forms_store",
    "trim_event_ingest",
    "trim_events_ingest",
    "trim_events_ingest_many",
]
