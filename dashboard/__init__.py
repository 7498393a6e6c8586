"""Trimscope's Django project and app: the pages, the JSON API and the fleet sockets over the simulator.

Packages and what may import them (import-linter contracts in ``pyproject.toml`` hold the marked ones):

- ``views/`` (htmx pages), ``api/`` (django-ninja, one router per area), ``consumers/`` (WebSockets)
  and ``management/commands/``: the edges. Only ``urls``/``routing`` import views, the API and
  consumers. They stay thin over the layers below.
- ``forms/``: what a submitted page form describes, drawn again with its errors. Imported by views.
- ``services/``: writes and their side effects. Imported by the edges (and by tasks).
- ``selectors/``: reads, one module per area. They never import services, forms or the edges [contract].
- ``presenters/``: how read values are shown (view models, SVG geometry, wording), pure functions.
  They import no selectors, services, forms or edges [contract].
- ``memo`` (the one in-process cache, with ``clear()``), ``errors`` (``ApplicationError``),
  ``models``/``corpus_models``, ``schemas`` (API In/Out), ``fleet_schemas`` (the fleet's wire frames),
  and the HTTP plumbing (``auth``, ``middleware``, ``body_limit``, ``input_guard``, ``throttle``,
  ``daphne_patches`` applied by ``apps.DashboardConfig.ready()``).
- ``runtime_client/``: the sending side of ``/ws/runtime/`` for management commands and tests; nothing
  else in the dashboard imports it [contract].

Everything reaches the simulator only through its facade (``import simulator``) [contract].
"""
