"""The replay's hot modules run compiled only from a build of the sources on disk (replay/compiled.py).

``.ci/pytest-all.sh`` runs the suite once with the build (``TRIMSCOPE_EXPECT_COMPILED=1``: a missing or stale
build fails here rather than passing as Python) and once as Python (``TRIMSCOPE_COMPILED=0``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import simulator.replay as replay
from simulator.replay import compiled
from simulator.replay.compiled import HOT_MODULES, MANIFEST, activate, manifest_of, unusable_reason

ROOT = Path(__file__).resolve().parents[2]


def _package(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the simulator's sources (no build) and its replay package directory."""
    copy = tmp_path / "simulator"
    shutil.copytree(ROOT / "simulator", copy, ignore=shutil.ignore_patterns("_compiled", "__pycache__"))
    return copy, copy / "replay"


def _built(simulator_dir: Path, package_dir: Path) -> Path:
    """A build directory with a manifest of the sources as they are (libraries not needed to judge it)."""
    directory = compiled.build_directory(package_dir)
    directory.mkdir(parents=True)
    (directory / MANIFEST).write_text(json.dumps(manifest_of(simulator_dir, "mypyc test")))
    return directory


def test_a_build_of_the_sources_on_disk_goes_first_on_the_path(tmp_path, monkeypatch):
    monkeypatch.delenv(compiled.SWITCH, raising=False)
    simulator_dir, package_dir = _package(tmp_path)
    directory = _built(simulator_dir, package_dir)
    path = [str(package_dir)]
    state = activate(path, package_dir)
    assert state.active and path == [str(directory), str(package_dir)]


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        ("runtimes/openclaw/estimate.py", "sources changed since the build"),  # not a compiled module itself
        ("replay/openclaw_transforms_2026_9.py", "sources changed since the build"),
        ("new_module.py", "sources changed since the build"),
    ],
)
def test_an_edit_anywhere_in_the_package_leaves_the_build_unused(tmp_path, monkeypatch, edit, reason):
    monkeypatch.delenv(compiled.SWITCH, raising=False)
    simulator_dir, package_dir = _package(tmp_path)
    _built(simulator_dir, package_dir)
    with (simulator_dir / edit).open("a") as source:
        source.write("\n# edited\n")
    path = [str(package_dir)]
    state = activate(path, package_dir)
    assert not state.active and reason in state.reason and path == [str(package_dir)]


def test_a_build_without_its_manifest_or_of_another_list_is_not_used(tmp_path, monkeypatch):
    monkeypatch.delenv(compiled.SWITCH, raising=False)
    simulator_dir, package_dir = _package(tmp_path)
    assert "not built" in unusable_reason(compiled.build_directory(package_dir), simulator_dir)
    directory = _built(simulator_dir, package_dir)
    manifest = json.loads((directory / MANIFEST).read_text())
    (directory / MANIFEST).write_text(json.dumps({**manifest, "modules": list(HOT_MODULES[:1])}))
    assert "another module list" in unusable_reason(directory, simulator_dir)
    (directory / MANIFEST).write_text(json.dumps({**manifest, "python": "2.7.18"}))
    assert "another Python" in unusable_reason(directory, simulator_dir)
    (directory / MANIFEST).write_text("{half written")
    assert "unreadable manifest" in unusable_reason(directory, simulator_dir)


@pytest.mark.parametrize("word", ["0", "off", "false", "NO"])
def test_the_switch_runs_the_package_as_python(tmp_path, monkeypatch, word):
    simulator_dir, package_dir = _package(tmp_path)
    _built(simulator_dir, package_dir)
    monkeypatch.setenv(compiled.SWITCH, word)
    path = [str(package_dir)]
    assert not activate(path, package_dir).active and path == [str(package_dir)]


def test_this_run_tests_the_build_it_says_it_tests():
    """Under ``make test``'s first pass the hot modules are the compiled ones; under its Python pass, none."""
    for name in HOT_MODULES:
        __import__(name)
    running = compiled.running_compiled(replay.COMPILED)
    if os.environ.get("TRIMSCOPE_EXPECT_COMPILED") == "1":
        assert replay.COMPILED.active, replay.COMPILED.reason
        assert running == HOT_MODULES
    if compiled.switched_off(os.environ):
        assert not replay.COMPILED.active and running == ()
    if not replay.COMPILED.active:
        assert running == ()
        assert all(sys.modules[name].__file__.endswith(".py") for name in HOT_MODULES)


def test_a_fresh_process_runs_the_build_only_while_it_matches(tmp_path):
    """In a child process: the real build (when there is one) is used, then an edited copy is not."""
    if not replay.COMPILED.active:
        pytest.skip(f"no compiled build in this run ({replay.COMPILED.reason})")
    probe = (
        "import sys, simulator.replay as r, simulator.replay.openclaw_transforms_2026_9 as m;"
        "print(r.COMPILED.active, m.__file__.endswith('.py'))"
    )
    env = {k: v for k, v in os.environ.items() if k != compiled.SWITCH}
    ran = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True)
    assert ran.stdout.split() == ["True", "False"], ran.stderr
    copy = tmp_path / "tree"
    shutil.copytree(ROOT / "simulator", copy / "simulator", ignore=shutil.ignore_patterns("__pycache__"))
    with (copy / "simulator" / "replay" / "openclaw_facts_2026_9.py").open("a") as source:
        source.write("\n# edited after the build\n")
    env["PYTHONPATH"] = str(copy)
    ran = subprocess.run([sys.executable, "-c", probe], cwd=copy, env=env, capture_output=True, text=True)
    assert ran.stdout.split() == ["False", "True"], ran.stderr


def test_the_digest_reads_every_source_wherever_the_checkout_sits(tmp_path):
    """A folder named like the build's above the package does not hide its sources from the digest."""
    under = tmp_path / "_compiled"
    under.mkdir()
    simulator_dir, _ = _package(under)
    before = compiled.sources_digest(simulator_dir)
    with (simulator_dir / "replay" / "openclaw_stores.py").open("a") as source:
        source.write("\n# edited\n")
    assert compiled.sources_digest(simulator_dir) != before
