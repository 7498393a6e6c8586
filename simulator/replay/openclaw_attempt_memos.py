"""What an OpenClaw replay remembers from attempt to attempt: each route's setup, and each route's last
cache touch among the markers so far.

Both are asked at every attempt of a replay (half the model calls of a tool-using session), by the
2026.7.1 and the 2026.9.6 fast transforms alike, so they are compiled with the per-call path
(:mod:`simulator.replay.compiled`): called from the compiled transforms, a Python ``__call__`` was a tenth
of a browser-heavy replay's time outside its records.
"""

from __future__ import annotations

from collections.abc import Sequence

from simulator.runtimes.openclaw.attempt import (
    AttemptConfig,
    AttemptSetup,
    CacheTtlMarker,
    attempt_setup,
    marker_time,
    read_last_cache_ttl_timestamp,
)
from simulator.runtimes.openclaw.route import ModelRoute, OpenClawVersion


class SetupMemo:
    """An attempt's setup per route and version, made once for the replay's one config.

    The setup is a function of the three alone, and a session's attempts mostly share their route:
    resolving the settings again at every attempt was a good part of a long replay's time.
    """

    __slots__ = ("_config", "_last", "_setups")

    def __init__(self) -> None:
        self._config: AttemptConfig | None = None
        self._setups: dict[tuple[ModelRoute, OpenClawVersion], AttemptSetup] = {}
        self._last: tuple[ModelRoute, OpenClawVersion, AttemptSetup] | None = None
        """The last answer, by the route's identity: the replay's planned calls share their route objects,
        and hashing a route (all its fields) at every attempt cost more than the rest of the lookup."""

    def __call__(self, config: AttemptConfig, route: ModelRoute, version: OpenClawVersion) -> AttemptSetup:
        last = self._last
        if config is self._config and last is not None and last[0] is route and last[1] == version:
            return last[2]
        if config is not self._config:
            self._config, self._setups = config, {}
        found = self._setups.get((route, version))
        if found is None:
            found = self._setups[(route, version)] = attempt_setup(config, route, version)
        self._last = (route, version, found)
        return found


class LastTouches:
    """``read_last_cache_ttl_timestamp`` over a replay's markers, each marker read once per route.

    A replay's markers are one list that only grows (each attempt appends its marker): the newest marker of a
    route among them all is the newest among those added since it was last asked, else the one found then.
    Whether a provider and model are a route's is asked once per pair of strings. Any other sequence, or a
    list that shrank, is read whole.
    """

    __slots__ = ("_matches", "_seen")

    def __init__(self) -> None:
        self._seen: dict[int, tuple[ModelRoute, Sequence[CacheTtlMarker], int, float | None]] = {}
        self._matches: dict[tuple[str, str, int], bool] = {}
        """By the route's identity (``_seen`` keeps it alive)."""

    def __call__(self, markers: Sequence[CacheTtlMarker], route: ModelRoute) -> float | None:
        hit = self._seen.get(id(route))
        count = len(markers)
        if hit is None or hit[1] is not markers or hit[2] > count:
            found = read_last_cache_ttl_timestamp(markers, route)
        else:
            found = hit[3]
            matches = self._matches
            for k in range(count - 1, hit[2] - 1, -1):  # the new markers, newest first
                marker = markers[k]
                provider, model_id = marker.provider, marker.model_id
                # _of_route's cached answer, looked up here (one attempt asks for one new marker or so).
                match = (
                    matches.get((provider, model_id, id(route)))
                    if type(provider) is str and type(model_id) is str
                    else None
                )
                if match is None:
                    match = self._of_route(marker, route)
                if match:
                    ts = marker.timestamp
                    # marker_time, inline for a plain number (a parsed transcript's timestamps).
                    if type(ts) is int or type(ts) is float:
                        ts = float(ts) if ts else None
                    else:
                        ts = marker_time(marker)
                    if ts is not None:
                        found = ts
                        break
        # The entry keeps the route alive, so its id is not reused while kept.
        self._seen[id(route)] = (route, markers, count, found)
        return found

    def _of_route(self, marker: CacheTtlMarker, route: ModelRoute) -> bool:
        provider, model_id = marker.provider, marker.model_id
        if type(provider) is not str or type(model_id) is not str:
            return bool(read_last_cache_ttl_timestamp((CacheTtlMarker(1, provider, model_id),), route))
        key = (provider, model_id, id(route))
        found = self._matches.get(key)
        if found is None:
            # The route's own rule, on a marker that differs from this one only in a valid timestamp.
            found = self._matches[key] = bool(
                read_last_cache_ttl_timestamp((CacheTtlMarker(1, provider, model_id),), route)
            )
        return found
