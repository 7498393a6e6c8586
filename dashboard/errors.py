"""The dashboard's one application error: a refusal with a message for people, ``extra`` for machines and
the HTTP status it is answered with.

Services raise it (or a subclass) when a request cannot be done as asked; the API maps it, in one handler
(``dashboard.api.errors``), to the one error shape ``{"message", "extra"}`` with ``status``. Errors of the
simulator (``simulator.SimulatorError``) keep their own hierarchy; a dashboard error that is also one (a
name already taken is a ``ProfileError`` too, so the profile form shows it by its field) inherits from both.
:func:`get_or_404` is the one "a selector found nothing" answer, for the API and the pages alike.
Anything may import this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from django.http import Http404

from simulator import JSON

T = TypeVar("T")


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


def get_or_404(found: T | None, what: str, ident: int) -> T:
    """``found``, or a 404 ``no <what> with id <ident>`` when the selector found nothing."""
    if found is None:
        raise Http404(f"no {what} with id {ident}")
    return found
