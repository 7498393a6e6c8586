"""Maps ``(system, function)`` as named in the vectors to the adapter that runs our implementation."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from simulator.jsonvalue import JSON

Adapter = Callable[[Mapping[str, JSON]], JSON]


def adapters() -> Mapping[str, Mapping[str, Adapter]]:
    """All adapters by system, imported lazily so a broken runtime module only fails its own cases."""
    # Each system registers its own table; importing inside keeps the runner importable while one of
    # them is being worked on.
    table: dict[str, Mapping[str, Adapter]] = {}
    for system, module_name in (
        ("zeroclaw", "simulator.conformance.zeroclaw_adapters"),
        ("ai_profile", "simulator.conformance.ai_profile_adapters"),
        ("openclaw", "simulator.conformance.openclaw_adapters"),
    ):
        try:
            module = __import__(module_name, fromlist=["ADAPTERS"])
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            table[system] = {}
            continue
        table[system] = module.ADAPTERS
    return table
