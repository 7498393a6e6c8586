"""Trimscope's Django project and app: settings, ASGI, models, services, selectors, views, API, consumers.

Layers: views (``views/``), the API (``api*.py``), WebSocket consumers (``consumers/``) and management
commands stay thin over ``services/`` (writes) and ``selectors/`` (reads). Every part of the dashboard
reaches the simulator only through its facade (``import simulator``); an import-linter contract in
``pyproject.toml`` forbids its submodules here.
"""
