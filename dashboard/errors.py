"""The dashboard's one application error: a refusal with a message for people, ``extra`` for machines and
the HTTP status it is answered with.

Services raise it (or a subclass) when a request cannot be done as asked; the API maps it, in one handler
(``dashboard.api.errors``), to the one error shape ``{"message", "extra"}`` with ``status``. Errors of the
simulator (``simulator.SimulatorError``) keep their own hierarchy; a dashboard error that is also one (a
name already taken is a ``ProfileError`` too, so the profile form shows it by its field) inherits from both.
Anything may import this module; it imports only the simulator's facade.
"""

from __future__ import annotations

from collections.abc import Mapping

from simulator import JSON


class ApplicationError(Exception):
    """A request the dashboard refuses; ``status`` is the HTTP status the API answers it with."""

    status: int = 400

    def __init__(
        self, message: str, extra: Mapping[str, JSON] | None = None, status: int | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.extra: dict[str, JSON] = dict(extra or {})
        if status is not None:
            self.status = status
