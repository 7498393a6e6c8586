"""The runtime registry: every reproduced runtime version, one line each, and the lookups over them.

To add a runtime or a version: write its spec (a package under ``simulator/specs/`` whose ``spec.py``
defines a :class:`~simulator.runtime_spec.RuntimeSpec`) and add it to :data:`SPECS` below. Profiles,
presets, the replay, the CLI, the conformance runner and the dashboard (through the facade) all find
runtimes here, so nothing else needs an edit.

Who may import: any simulator module; the dashboard imports the facade (``simulator``) instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from simulator.errors import ProfileError
from simulator.jsonvalue import JSON
from simulator.runtime_spec import AnyRuntimeSpec
from simulator.specs._fields import obj
from simulator.specs.ai_profile import spec as ai_profile
from simulator.specs.as_recorded import spec as as_recorded
from simulator.specs.openclaw import spec as openclaw
from simulator.specs.zeroclaw import spec as zeroclaw

# Order matters twice: a runtime's first spec is its default version, and an untagged document is
# offered to the runtimes in this order (ZeroClaw, then OpenClaw, then ai-profile keys).
SPECS: tuple[AnyRuntimeSpec, ...] = (
    zeroclaw.PROPOSED,
    zeroclaw.RELEASED,
    openclaw.V2026_7_1,
    openclaw.V2026_9_6,
    ai_profile.V0_1_7,
    # The no-management baseline last: it is never detected from an untagged document.
    as_recorded.AS_RECORDED,
)


def runtimes() -> tuple[str, ...]:
    """Every runtime key, in registry order (each once)."""
    return tuple(dict.fromkeys(s.runtime for s in SPECS))


def runtime_label(runtime: str) -> str:
    """A runtime's name as shown ("ZeroClaw")."""
    return versions(runtime)[0].runtime_label


def versions(runtime: str) -> tuple[AnyRuntimeSpec, ...]:
    """The specs of one runtime, default version first.

    Raises:
        ProfileError: for an unknown runtime key.
    """
    found = tuple(s for s in SPECS if s.runtime == runtime)
    if not found:
        raise ProfileError("trimscope.runtime", f"unknown runtime {runtime!r}", allowed=", ".join(runtimes()))
    return found


def spec_get(runtime: str, version: str) -> AnyRuntimeSpec | None:
    """The spec of ``runtime`` at ``version``, or ``None``."""
    return next((s for s in SPECS if s.runtime == runtime and s.version == version), None)


def spec_for_settings(runtime: str, settings: object) -> AnyRuntimeSpec:
    """The spec whose settings type and version ``settings`` is.

    Raises:
        TypeError: when no spec of ``runtime`` owns ``settings`` (a programming error).
    """
    for spec in versions(runtime):
        if spec.owns(settings):
            return spec
    raise TypeError(f"no {runtime} spec owns {type(settings).__name__}")


def detect_runtime(doc: Mapping[str, JSON]) -> str:
    """The runtime a profile document is for: ``trimscope.runtime``, else told from its config keys.

    Raises:
        ProfileError: for an unknown ``trimscope.runtime`` or a document no runtime recognises.
    """
    meta = obj(doc.get("trimscope"), "trimscope")
    explicit = meta.get("runtime")
    if explicit is not None:
        if not isinstance(explicit, str) or explicit not in runtimes():
            raise ProfileError(
                "trimscope.runtime", f"unknown runtime {json.dumps(explicit)}", allowed=", ".join(runtimes())
            )
        return explicit
    for runtime in runtimes():
        if versions(runtime)[0].detect(doc):
            return runtime
    raise ProfileError(
        "trimscope.runtime",
        "cannot tell which runtime this profile is for",
        allowed="a runtime_profiles, contextPruning or limits block, or trimscope.runtime",
    )


def conformance_modules() -> Mapping[str, str]:
    """The adapter module of each conformance ``system`` the vectors name."""
    return {s.conformance_system: s.conformance_module for s in SPECS}
