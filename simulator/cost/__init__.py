"""What a profile costs: a price table, a prompt-cache model priced per call, and adapters from replays.

* :mod:`simulator.cost.pricing` -- the versioned price table (``prices.toml``) and lookup by key.
* :mod:`simulator.cost.cache` -- the cache model: per call, uncached / cache-write / cache-read tokens.
* :mod:`simulator.cost.breakpoints` -- where each runtime places Anthropic ``cache_control`` breakpoints.
* :mod:`simulator.cost.from_replay` -- requests from a replay, the ``as-recorded`` baseline, and the
  comparison with the usage a transcript recorded.
* :mod:`simulator.cost.shapes` -- the JSON objects ``simulate --json`` gives (``cost``, ``pricing``).
"""

from __future__ import annotations
