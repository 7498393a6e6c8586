"""Compiles the replay's hot modules with mypyc (``make compile``; see ``simulator/replay/compiled.py``).

``python tools/compile_hot.py`` builds ``simulator.replay.compiled.HOT_MODULES`` into one shared library
and their extension modules, in a scratch directory, then moves them to
``simulator/replay/_compiled/<cache tag>/`` with the manifest written last: the package never sees a
half-built directory, and a build of sources edited meanwhile does not match them (so is not used).

Exit 0 when built. When the build fails (no C compiler, say) it says why and exits 1, unless
``--optional``: then the package runs as Python and the command exits 0 (``make run`` on a machine without
a compiler still serves).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simulator.replay.compiled import (  # noqa: E402 - the project's root first on sys.path
    GROUP,
    HOT_MODULES,
    MANIFEST,
    build_directory,
    manifest_of,
)

LEFT_OUT = frozenset({"plugins", "exclude", "overrides"})
"""Keys of the project's ``[tool.mypy]`` a compiled build does not take: the Django plugin (it needs
django-stubs and the settings, and no compiled module imports Django), the paths ``make typecheck`` skips
(a build names its modules) and the per-module overrides (for tests, benchmarks and third-party packages
without stubs: the build makes every such import optional)."""


def mypy_config(pyproject: Path = ROOT / "pyproject.toml") -> str:
    """The project's own mypy settings (``[tool.mypy]``, read, never restated) as the build's ``mypy.ini``,
    but for :data:`LEFT_OUT` and with third-party stubs optional: ``make run`` installs no stubs (the test
    extra does), and an import without them is typed ``Any`` in a compiled module, which reads none."""
    settings = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["mypy"]
    lines = ["[mypy]"]
    for key, value in settings.items():
        if key in LEFT_OUT:
            continue
        if isinstance(value, bool):
            value = "True" if value else "False"
        elif isinstance(value, list):
            value = ", ".join(value)
        lines.append(f"{key} = {value}")
    lines.append("ignore_missing_imports = True")
    return "\n".join(lines) + "\n"


def build(scratch: Path) -> Path:
    """The extension modules built in ``scratch``; gives the directory holding them."""
    from mypyc.build import mypycify
    from setuptools import setup  # type: ignore[import-untyped]

    config = scratch / "mypy.ini"
    config.write_text(mypy_config(), encoding="utf-8")
    paths = [str(Path(*name.split(".")).with_suffix(".py")) for name in HOT_MODULES]
    modules = mypycify(
        [f"--config-file={config}", *paths], opt_level="3", group_name=GROUP, target_dir=str(scratch / "c")
    )
    setup(
        name="trimscope-hot",
        ext_modules=modules,
        script_args=[
            "--quiet",
            "build_ext",
            "--build-lib",
            str(scratch / "lib"),
            "--build-temp",
            str(scratch / "temp"),
        ],
    )
    return scratch / "lib" / "simulator" / "replay"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--optional", action="store_true", help="a failed build is not an error")
    args = parser.parse_args(argv)
    import mypy.version

    package_dir = ROOT / "simulator" / "replay"
    target = build_directory(package_dir)
    # The digest of the sources as compiled: read before the build, so an edit during it shows as stale.
    manifest = manifest_of(ROOT / "simulator", f"mypyc {mypy.version.__version__}")
    os.chdir(ROOT)  # mypyc names the modules by their paths from here
    log = io.StringIO()
    with tempfile.TemporaryDirectory(prefix="trimscope-compile-") as tmp:
        scratch = Path(tmp)
        try:
            with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
                built = build(scratch)
        except (Exception, SystemExit) as exc:  # setup() exits on a compiler error
            print(log.getvalue()[-4000:], file=sys.stderr)
            print(f"compile_hot: not compiled ({exc}); the hot modules run as Python", file=sys.stderr)
            return 0 if args.optional else 1
        staging = target.with_name(target.name + ".new")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        for library in built.glob("*.so"):
            shutil.copy2(library, staging / library.name)
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    libraries = len(list(target.glob("*.so")))
    print(f"compile_hot: {len(HOT_MODULES)} modules into {target.relative_to(ROOT)} ({libraries} libraries)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
