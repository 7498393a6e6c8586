from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from dashboard.api import api
from dashboard.views import (
    auth,
    compare,
    estimates,
    fleet,
    profiles,
    runtimes,
    simulations,
    tokens,
    transcripts,
    tuning,
)

urlpatterns: list[URLPattern | URLResolver] = [
    path("api/", api.urls),
    path("login/", auth.SignInView.as_view(), name="login"),
    path("logout/", auth.SignOutView.as_view(), name="logout"),
    path("", transcripts.transcript_list, name="transcript-list"),
    path("transcripts/upload/", transcripts.transcript_upload, name="transcript-upload"),
    path("transcripts/<int:transcript_id>/", transcripts.transcript_detail, name="transcript-detail"),
    path("transcripts/<int:transcript_id>/delete/", transcripts.transcript_delete, name="transcript-delete"),
    path("simulate/", simulations.simulation, name="simulation"),
    path("simulate/tokens/", simulations.simulation_tokens, name="simulation-tokens"),
    path("simulate/estimates/", estimates.simulation_estimates, name="simulation-estimates"),
    path("simulate/save/", tuning.simulation_save, name="simulation-save"),
    path("compare/", compare.compare, name="compare"),
    path("profiles/", profiles.profile_list, name="profile-list"),
    path("profiles/create/", profiles.profile_create, name="profile-create"),
    path("profiles/import/", profiles.profile_import, name="profile-import"),
    path("profiles/validate/", profiles.profile_validate, name="profile-validate"),
    path("profiles/<int:profile_id>/", profiles.profile_edit, name="profile-edit"),
    path("profiles/<int:profile_id>/duplicate/", profiles.profile_duplicate, name="profile-duplicate"),
    path("profiles/<int:profile_id>/delete/", profiles.profile_delete, name="profile-delete"),
    path("profiles/<int:profile_id>/export.<str:fmt>", profiles.profile_export, name="profile-export"),
    path("fleet/", fleet.fleet, name="fleet"),
    path("fleet/sessions/<path:session_id>/", fleet.fleet_session, name="fleet-session"),
    path("tokens/", tokens.token_list, name="token-list"),
    path("tokens/create/", tokens.token_create, name="token-create"),
    path("tokens/<int:token_id>/revoke/", tokens.token_revoke, name="token-revoke"),
    path("runtimes/", runtimes.runtime_list, name="runtime-list"),
    path("runtimes/create/", runtimes.runtime_create, name="runtime-create"),
    path("runtimes/<int:runtime_id>/revoke/", runtimes.runtime_revoke, name="runtime-revoke"),
]
