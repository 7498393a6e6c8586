"""WebSocket routes, one ``path`` per endpoint (served by ``dashboard.asgi``).

Runtimes are programs with their own tokens, not browsers: their route is not origin-checked. A route a
browser opens with its session cookie must be wrapped in ``AllowedHostsOriginValidator``.
"""

from __future__ import annotations

from channels.auth import AuthMiddlewareStack
from channels.security.websocket import AllowedHostsOriginValidator
from django.urls import URLPattern, path

from dashboard.consumers.evaluation import EvaluationConsumer
from dashboard.consumers.fleet import FleetConsumer
from dashboard.consumers.runtime import RuntimeConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/runtime/", RuntimeConsumer.as_asgi()),
    path("ws/fleet/", AllowedHostsOriginValidator(AuthMiddlewareStack(FleetConsumer.as_asgi()))),
    path(
        "ws/evaluations/<int:evaluation_id>/",
        AllowedHostsOriginValidator(AuthMiddlewareStack(EvaluationConsumer.as_asgi())),
    ),
]
