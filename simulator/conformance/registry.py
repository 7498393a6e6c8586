"""Maps ``(system, function)`` as named in the vectors to the adapter that runs our implementation.

Each runtime spec names its ``system`` and adapter module (``simulator/registry.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from simulator.jsonvalue import JSON
from simulator.registry import conformance_modules

Adapter = Callable[[Mapping[str, JSON]], JSON]


def adapters() -> Mapping[str, Mapping[str, Adapter]]:
    """All adapters by system, imported lazily so a broken runtime module only fails its own cases."""
    # Each system registers its own table; importing inside keeps the runner importable while one of
    # them is being worked on.
    table: dict[str, Mapping[str, Adapter]] = {}
    for system, module_name in conformance_modules().items():
        try:
            module = __import__(module_name, fromlist=["ADAPTERS"])
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            table[system] = {}
            continue
        table[system] = module.ADAPTERS
    return table
