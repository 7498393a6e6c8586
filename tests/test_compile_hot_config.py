"""The compiled build type-checks its modules under the project's own mypy settings (``tools/compile_hot.py``
reads ``[tool.mypy]``; it does not restate it)."""

from __future__ import annotations

import configparser
import importlib.util
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _compile_hot():
    spec = importlib.util.spec_from_file_location("compile_hot", ROOT / "tools" / "compile_hot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_build_reads_every_mypy_setting_of_the_project_but_the_django_plugin_and_paths(tmp_path: Path):
    compile_hot = _compile_hot()
    ini = configparser.ConfigParser()
    ini.read_string(compile_hot.mypy_config())
    built = dict(ini["mypy"])
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert project["strict"] is True and "plugins" in project  # what this test is about is there
    for key, value in project.items():
        if key in compile_hot.LEFT_OUT:
            assert key not in built
        elif isinstance(value, bool):
            assert built[key] == str(value)
        elif isinstance(value, list):
            assert [v.strip() for v in built[key].split(",")] == value
        else:
            assert built[key] == str(value)
    assert built["ignore_missing_imports"] == "True"  # no stubs installed by `make run`

    # A setting added to the project reaches the build.
    pyproject = tmp_path / "pyproject.toml"
    settings = '[tool.mypy]\nstrict = true\nwarn_return_any = false\nplugins = ["x"]\n'
    pyproject.write_text(settings, encoding="utf-8")
    ini = configparser.ConfigParser()
    ini.read_string(compile_hot.mypy_config(pyproject))
    expected = {"strict": "True", "warn_return_any": "False", "ignore_missing_imports": "True"}
    assert dict(ini["mypy"]) == expected
