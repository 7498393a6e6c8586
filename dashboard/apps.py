"""The dashboard app's configuration; its ``ready()`` applies the daphne patches once per process."""

from __future__ import annotations

from django.apps import AppConfig


class DashboardConfig(AppConfig):
    name = "dashboard"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Here rather than at import time inside a module: every process that serves the project sets
        # Django up (daphne through dashboard.asgi, runserver, test servers forked after setup).
        from dashboard import daphne_patches

        daphne_patches.apply()
