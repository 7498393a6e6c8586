"""htmx page views, one module per area; each calls selectors (reads), forms or services (writes) and
renders a template.

Who may import: ``dashboard.urls``. Views import the simulator only through its facade.
"""

from __future__ import annotations
