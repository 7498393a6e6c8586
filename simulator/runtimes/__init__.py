"""Each reproduced runtime's own code, one package per runtime, mirrored function by function from upstream.

``zeroclaw/``, ``ai_profile/`` and ``openclaw/`` hold the trimming and pruning functions with their
upstream shapes and names, checked by the conformance vectors; module docstrings name the upstream
source and every deliberate divergence. What Trimscope adds around a runtime (its config keys, knobs,
budget explanation, replay) lives in ``simulator/specs/<runtime>/`` and ``simulator/replay/``.

Who may import: the simulator's own modules (specs, replay, conformance adapters, estimates) and
tests. The dashboard never does; it uses the facade (``simulator``).
"""

from __future__ import annotations
