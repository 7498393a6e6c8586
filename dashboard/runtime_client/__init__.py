"""The runtime client: a fleet runtime's side of ``/ws/runtime/`` (send trim events, resend until acked).

What lives here: :class:`RuntimeClient` and its backoff and URL helpers. It is the *client* of the
dashboard's runtime socket, used by the ``demo_fleet`` and ``follow`` management commands and by tests;
it is not part of the dashboard's core (models, services, selectors, views, API, consumers), which may
not import it (an import-linter contract in ``pyproject.toml`` says so). It may import the frame schemas
(``dashboard.fleet_schemas``) so that what it sends is what the server accepts.

"Runtime" here is a fleet runtime (the ``Runtime`` model: a registered process that streams events),
not a reproduced runtime kind (ZeroClaw, ai-profile, OpenClaw) in the simulator's registry.
"""

from __future__ import annotations

from dashboard.runtime_client.client import (
    CLOSE_BAD_TOKEN,
    CLOSE_TOO_LARGE,
    CLOSE_TRY_AGAIN,
    RUNTIME_PATH,
    ClientCounters,
    RuntimeClient,
    RuntimeClientClosed,
    backoff_delay,
    runtime_ws_url,
)

__all__ = [
    "CLOSE_BAD_TOKEN",
    "CLOSE_TOO_LARGE",
    "CLOSE_TRY_AGAIN",
    "RUNTIME_PATH",
    "ClientCounters",
    "RuntimeClient",
    "RuntimeClientClosed",
    "backoff_delay",
    "runtime_ws_url",
]
