"""The JSON API (django-ninja; OpenAPI at ``/api/docs``): one ``NinjaAPI``, one router per area.

What lives here: ``api`` (mounted at ``/api/`` by ``dashboard.urls``) and, one module per area, its
router: ``transcripts``, ``profiles``, ``simulations`` (and compare), ``tokens``, ``runtimes`` (fleet
runtimes), ``events`` (their ingestion), ``fleet`` (alerts and the event feed), ``pricing`` (the price
table and its edits) and ``corpora`` (corpora, evaluations, profile searches). ``errors`` holds the
one get-or-404 and the one error handler: every error is ``{"message", "extra"}`` with a 4xx status.

Handlers are thin: validate (the ``dashboard.schemas`` In/Out pairs), call one service or selector,
return. Only ``dashboard.urls`` imports this package; routers import services, selectors, schemas and
the simulator's facade, never each other (except ``errors``).
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from ninja import NinjaAPI

from dashboard.api import (
    corpora,
    events,
    fleet,
    pricing,
    profiles,
    runtimes,
    simulations,
    tokens,
    transcripts,
)
from dashboard.api.errors import install_error_handler
from dashboard.auth import API_AUTH

# The OpenAPI page and schema are for signed-in operators, like every other page.
api = NinjaAPI(
    title="Trimscope API",
    version="1",
    auth=API_AUTH,
    urls_namespace="api",
    docs_decorator=login_required,
)
install_error_handler(api)

api.add_router("/transcripts", transcripts.router)
api.add_router("/profiles", profiles.router)
api.add_router("/simulations", simulations.router)
api.add_router("/compare", simulations.compare_router)
api.add_router("/tokens", tokens.router)
api.add_router("/events", events.router)
api.add_router("/runtimes", runtimes.router)
api.add_router("/fleet", fleet.router)
api.add_router("/pricing", pricing.router)
api.add_router("/corpora", corpora.corpora_router)
api.add_router("/evaluations", corpora.evaluations_router)
api.add_router("/tune", corpora.tune_router)

__all__ = ["api"]
