"""Management commands (``commands/``): ``bootstrap_demo``, ``demo_fleet``, ``follow``, ``import_corpus``.

Commands are edges like views: thin over services and selectors, the simulator through its facade; the
fleet commands send through ``dashboard.runtime_client``. Nothing imports them but Django's command
loader (and tests).
"""
