"""The replay's hot modules, compiled with mypyc when a build of these very sources is at hand.

A long session's replay is a loop of small Python steps (about 110 calls per model call of a browser-heavy
OpenClaw 2026.9.6 session, none above a sixth of the time): what costs is the interpreter, not one step.
mypyc compiles the typed modules below to C extension modules with the same behaviour (they pass
``mypy --strict``, which is what mypyc needs): a browser-heavy 100,000-message session's 2026.9.6 replay
takes about 1.6× less CPU time, a plain one's about 1.15× less (``docs/benchmarks.md``).

``make compile`` (``tools/compile_hot.py``, run by ``make run``, ``make test`` and ``make bench``) builds
them into ``_compiled/<cache tag>/`` beside this file, with a manifest holding a digest of every source of
the ``simulator`` package at build time. :func:`activate` puts that directory first on
``simulator.replay``'s ``__path__`` only when the manifest is whole and its digest is that of the sources
now on disk, so an edited source is never shadowed by a stale build: the package then runs as the Python
it is. ``TRIMSCOPE_COMPILED=0`` runs it as Python whatever was built (mutation runs, debugging, the test
pass that checks the pure package).

The Python sources stay the definition: the compiled modules are these sources, and the test suite runs
both ways (``.ci/pytest-all.sh``).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Mapping, MutableSequence
from dataclasses import dataclass
from pathlib import Path

HOT_MODULES = (
    "simulator.replay.openclaw_stores",
    "simulator.replay.openclaw_attempt_memos",
    "simulator.replay.openclaw_natives_fast",
    "simulator.replay.openclaw_facts_2026_9",
    "simulator.replay.openclaw_transforms_2026_9",
)
"""What is compiled: the OpenClaw replay's per-call path (the slowest replay of a long session). A module
here keeps to what mypyc compiles faithfully: no class with an ``abc`` base (a compiled class shares its
base's ``isinstance`` cache), no slot descriptors read off its own classes, every float a float. A
compiled module calls its own functions and classes directly, so a test cannot swap them: the record
builders (``openclaw.py``, whose seams the tests replace) stay Python, and a compiled class the tests
subclass says so (``allow_interpreted_subclasses``). The call plan (``openclaw_session.py``) stays Python
too: its clock keeps a transcript's whole-millisecond times as ints (a compiled ``float`` would not)."""

GROUP = "simulator.replay.hot"
"""The compiled modules' shared library (``hot__mypyc``), one for all: calls between them are C calls."""

SWITCH = "TRIMSCOPE_COMPILED"
"""``0`` (or ``off``, ``false``, ``no``) runs the package as Python even when a matching build exists."""

MANIFEST = "manifest.json"


@dataclass(frozen=True, slots=True)
class CompiledState:
    """Whether the hot modules run compiled, and if not, why (for the test header and the benchmarks)."""

    active: bool
    reason: str
    directory: Path


def build_directory(package_dir: Path) -> Path:
    """Where a build for this interpreter lives (``.so`` names carry the ABI, the directory the cache tag)."""
    return package_dir / "_compiled" / (sys.implementation.cache_tag or "unknown")


def sources_digest(simulator_dir: Path) -> str:
    """sha256 over every ``.py`` of the ``simulator`` package, path and bytes, in path order.

    The whole package, not just the compiled modules: mypyc bakes what it reads of the modules they import
    (``Final`` constants, signatures) into the build, so any source edit makes a build stale.
    """
    digest = hashlib.sha256()
    for path in sorted(simulator_dir.rglob("*.py")):
        relative = path.relative_to(simulator_dir)
        if "_compiled" in relative.parts:  # within the package only (a checkout may sit in any folder)
            continue
        digest.update(relative.as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def manifest_of(simulator_dir: Path, compiler: str) -> dict[str, object]:
    """The manifest a build writes last (a build without one is never used)."""
    return {
        "digest": sources_digest(simulator_dir),
        "python": sys.version,
        "compiler": compiler,
        "modules": list(HOT_MODULES),
    }


def unusable_reason(directory: Path, simulator_dir: Path) -> str:
    """Why the build in ``directory`` must not be used, or ``""`` when it matches the sources on disk."""
    try:
        manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return "not built (make compile)"
    except (OSError, ValueError) as exc:
        return f"unreadable manifest ({exc})"
    if not isinstance(manifest, dict):
        return "unreadable manifest"
    if manifest.get("python") != sys.version:
        return f"built for another Python ({manifest.get('python')})"
    if manifest.get("modules") != list(HOT_MODULES):
        return "built for another module list (make compile)"
    if manifest.get("digest") != sources_digest(simulator_dir):
        return "sources changed since the build (make compile)"
    return ""


def switched_off(environ: Mapping[str, str]) -> bool:
    """Whether the switch asks for the package as Python."""
    return environ.get(SWITCH, "").strip().lower() in {"0", "off", "false", "no"}


def activate(package_path: MutableSequence[str], package_dir: Path) -> CompiledState:
    """Puts a matching build first on the package's ``__path__`` (before any hot module is imported)."""
    directory = build_directory(package_dir)
    if switched_off(os.environ):
        return CompiledState(False, f"{SWITCH}=0", directory)
    reason = unusable_reason(directory, package_dir.parent)
    if reason:
        return CompiledState(False, reason, directory)
    package_path.insert(0, str(directory))
    return CompiledState(True, "built from these sources", directory)


def running_compiled(state: CompiledState) -> tuple[str, ...]:
    """The hot modules imported from the build (all of them once imported, when the state is active)."""
    found = []
    for name in HOT_MODULES:
        module = sys.modules.get(name)
        origin = getattr(module, "__file__", None) or ""
        if origin.startswith(str(state.directory)) and not origin.endswith(".py"):
            found.append(name)
    return tuple(found)
