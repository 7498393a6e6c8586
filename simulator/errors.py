"""The simulator's single error hierarchy.

Every error carries structured fields so the dashboard can show *what* went wrong and *where*
(file, line, message index, field) without parsing message strings. The core raises these and never
swallows them; the edge maps them once (`dashboard/api/errors.py`, the htmx error partial, the CLI).
"""

from __future__ import annotations

from collections.abc import Mapping

from simulator.jsonvalue import JSON


class SimulatorError(Exception):
    """Base class: ``message`` for people, ``extra`` for machines."""

    def __init__(self, message: str, extra: Mapping[str, JSON] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.extra: dict[str, JSON] = dict(extra or {})


class TranscriptParseError(SimulatorError):
    """A transcript could not be read in any format tried.

    ``formats_tried`` lists every format attempted (one when ``--format`` forced it); ``line`` (1-based,
    for line-oriented formats) and ``message_index`` (0-based) locate the first offending place.
    """

    def __init__(
        self,
        reason: str,
        *,
        formats_tried: tuple[str, ...] = (),
        line: int | None = None,
        message_index: int | None = None,
        source: str | None = None,
    ) -> None:
        self.reason = reason
        self.formats_tried = formats_tried
        self.line = line
        self.message_index = message_index
        self.source = source
        place = []
        if source:
            place.append(source)
        if line is not None:
            place.append(f"line {line}")
        if message_index is not None:
            place.append(f"message {message_index}")
        where = f" at {', '.join(place)}" if place else ""
        tried = f" (formats tried: {', '.join(formats_tried)})" if formats_tried else ""
        super().__init__(
            f"{reason}{where}{tried}",
            {
                "reason": reason,
                "formats_tried": list(formats_tried),
                "line": line,
                "message_index": message_index,
                "source": source,
            },
        )


class ProfileError(SimulatorError):
    """A profile knob is missing, of the wrong type or outside its allowed range."""

    def __init__(self, field: str, problem: str, *, allowed: str | None = None) -> None:
        self.field = field
        self.problem = problem
        self.allowed = allowed
        suffix = f" (allowed: {allowed})" if allowed else ""
        super().__init__(
            f"{field}: {problem}{suffix}", {"field": field, "problem": problem, "allowed": allowed}
        )
