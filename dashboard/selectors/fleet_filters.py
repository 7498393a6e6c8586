"""The fleet page's filters and time range, as they travel in the URL (and a fleet socket's query)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import urlencode

from django.db.models import QuerySet

from dashboard.presenters.fleet import fleet_session_url

FILTER_MAX = 200

__all__ = [
    "DEFAULT_RANGE",
    "FILTER_MAX",
    "RANGES",
    "FleetFilters",
    "TimeRange",
    "epoch_minute",
    "fleet_filters",
    "fleet_session_url",
]


def epoch_minute(at: datetime) -> int:
    """Whole minutes since 1970-01-01 UTC: the rollups' time key."""
    return int(at.timestamp()) // 60


_Rows = TypeVar("_Rows", bound="QuerySet[Any]")


@dataclass(frozen=True, slots=True)
class TimeRange:
    key: str
    label: str
    minutes: int
    bar_minutes: int  # one sparkline bar covers this many minutes

    @property
    def bars(self) -> int:
        return self.minutes // self.bar_minutes

    @property
    def hourly(self) -> bool:
        """Whether this range is counted from the hourly rollups (in whole hours)."""
        return self.bar_minutes % 60 == 0

    def first_minute(self, now: datetime) -> int:
        """The first epoch minute inside the range ending with the minute (or hour) of ``now``."""
        if self.hourly:
            this_hour = epoch_minute(now) // 60 * 60
            return this_hour - self.minutes + 60
        return epoch_minute(now) - self.minutes + 1


RANGES: dict[str, TimeRange] = {
    r.key: r
    for r in (
        TimeRange("15m", "15 min", 15, 1),
        TimeRange("1h", "1 h", 60, 2),
        TimeRange("24h", "24 h", 24 * 60, 60),
        TimeRange("7d", "7 d", 7 * 24 * 60, 240),
    )
}
DEFAULT_RANGE = "1h"


@dataclass(frozen=True, slots=True)
class FleetFilters:
    runtime: str = ""
    session: str = ""
    reason: str = ""
    range: str = DEFAULT_RANGE

    @property
    def active(self) -> bool:
        """Whether any filter narrows the events (the time range is not a filter)."""
        return bool(self.runtime or self.session or self.reason)

    def narrow(self, rows: _Rows) -> _Rows:
        """``rows`` (events or rollups: ``runtime``, ``session_id``, ``reason``) with the filters applied."""
        if self.runtime:
            rows = rows.filter(runtime__name=self.runtime)
        if self.session:
            rows = rows.filter(session_id=self.session)
        if self.reason:
            rows = rows.filter(reason=self.reason)
        return rows

    @property
    def time_range(self) -> TimeRange:
        return RANGES.get(self.range, RANGES[DEFAULT_RANGE])

    def _pairs(self, range_key: str) -> list[tuple[str, str]]:
        pairs = [("runtime", self.runtime), ("session", self.session), ("reason", self.reason)]
        if range_key != DEFAULT_RANGE:
            pairs.append(("range", range_key))
        return [(k, v) for k, v in pairs if v]

    @property
    def query(self) -> str:
        """The filters as a query string (empty ones and the default range left out)."""
        return urlencode(self._pairs(self.range))

    @property
    def range_links(self) -> list[tuple[TimeRange, str, bool]]:
        """Each range with the query string that selects it (the other filters kept) and whether chosen."""
        return [(r, urlencode(self._pairs(r.key)), r.key == self.range) for r in RANGES.values()]


def fleet_filters(params: Mapping[str, str]) -> FleetFilters:
    """Filters from GET parameters (or a socket's query string); blanks mean "any", an unknown range
    the default one."""

    def one(name: str) -> str:
        value = params.get(name) or ""
        return value.strip()[:FILTER_MAX]

    chosen = one("range")
    return FleetFilters(
        runtime=one("runtime"),
        session=one("session"),
        reason=one("reason"),
        range=chosen if chosen in RANGES else DEFAULT_RANGE,
    )
