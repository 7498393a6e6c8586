"""htmx page views, one module per area; each calls selectors (reads) or services (writes) and renders.

Who may import: ``dashboard.urls``. Views import the simulator only through its facade.
"""

from __future__ import annotations
