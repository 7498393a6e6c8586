"""Simulation run writes. A run stores what was simulated (transcript, canonical profile document) and the
summary numbers; the per-call result is recomputed on read by ``selectors.simulation_run_result``.
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User

from dashboard.models import Profile, SimulationRun, Transcript
from dashboard.selectors.simulations import simulation_cost, simulation_result
from simulator import JSON, ProfileError, SimulationResult, profile_from_document, profile_to_document

INLINE_PROFILE_NAME = "inline profile"


def simulation_create(
    *,
    transcript: Transcript,
    profile_row: Profile | None,
    document: JSON | None,
    user: User | AnonymousUser | None,
    name: str = "",
    pricing: str | None = None,
    assumed_gap_seconds: float | None = None,
) -> tuple[SimulationRun, SimulationResult]:
    """Replay ``transcript`` through a stored profile or an inline document (exactly one) and store the run.

    Returns:
        The stored run and the full result it summarises.

    Raises:
        ProfileError: the document is invalid, or not exactly one of ``profile_row``/``document`` was
            given. Nothing is stored.
        PriceTableError: ``pricing`` names no price table entry. Nothing is stored.
    """
    if (profile_row is None) == (document is None):
        raise ProfileError(
            "profile",
            "give exactly one of profile_id and profile",
            allowed="a stored profile's id, or an inline profile document",
        )
    if profile_row is not None:
        document, profile_name = profile_row.settings, profile_row.name
    else:
        profile_name = INLINE_PROFILE_NAME
    profile = profile_from_document(document, name=profile_name)
    result = simulation_result(
        transcript=transcript, profile=profile, assumed_gap_seconds=assumed_gap_seconds
    )
    # Priced before storing: an unknown pricing key stores nothing.
    simulation_cost(
        transcript=transcript,
        profile=profile,
        user=user,
        pricing=pricing,
        assumed_gap_seconds=assumed_gap_seconds,
    )
    run = SimulationRun.objects.create(
        transcript=transcript,
        profile=profile_row,
        name=name.strip()[:200],
        profile_name=profile_name,
        runtime=profile.runtime,
        document=profile_to_document(profile),
        calls=len(result.calls),
        trims=result.trims,
        total_tokens_sent=result.total_tokens_sent,
        overflow_failures=result.overflow_failures,
        pricing=pricing or "",
        assumed_gap_seconds=assumed_gap_seconds,
        created_by=user if isinstance(user, User) else None,
    )
    return run, result


def simulation_delete(*, run: SimulationRun) -> None:
    run.delete()
