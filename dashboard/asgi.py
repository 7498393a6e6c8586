"""ASGI entry point served by daphne: HTTP through Django, WebSockets through Channels."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dashboard.settings")

from django.core.asgi import get_asgi_application  # noqa: E402

from dashboard.env import EnvironmentValueError, env_bool, refuse_start  # noqa: E402

# Django must be set up before anything imports models (consumers, routing).
try:
    django_asgi_app = get_asgi_application()
    serve_static = env_bool("TRIMSCOPE_SERVE_STATIC", False)
except EnvironmentValueError as exc:
    refuse_start(exc)  # a setting's environment variable holds a value it cannot take

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from dashboard.body_limit import BodySizeLimit  # noqa: E402
from dashboard.routing import websocket_urlpatterns  # noqa: E402

http_app = django_asgi_app
if settings.DEBUG or serve_static:
    # Plain daphne does not serve static files; the embedded install serves them itself.
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    http_app = ASGIStaticFilesHandler(django_asgi_app)

application = ProtocolTypeRouter(
    {
        # Oversized bodies are refused (413) before Django reads them.
        "http": BodySizeLimit(http_app),
        # Browser sockets are origin-checked per route in dashboard.routing; runtimes use their own tokens.
        "websocket": URLRouter(websocket_urlpatterns),
    }
)
