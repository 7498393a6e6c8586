"""The simulator's shape rules, read from its source with ``ast``: replay functions stay short, and only the
registry and the specs look at which settings type a value is."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SIMULATOR = Path(__file__).resolve().parents[2] / "simulator"
REPLAY_MAX_LINES = 80
# The registry and the specs are where a settings value's type is looked at (``RuntimeSpec.own``).
SETTINGS_DISPATCH_ALLOWED = ("registry.py", "specs/")


def _long_functions(source: str, limit: int) -> Iterator[tuple[str, int]]:
    """Every function (nested ones too) whose definition spans more than ``limit`` lines."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            length = (node.end_lineno or node.lineno) - first + 1
            if length > limit:
                yield node.name, length


def _type_names(node: ast.expr) -> Iterator[str]:
    """The class names an ``isinstance`` second argument names: ``A``, ``m.A``, ``(A, B)``, ``A | B``."""
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Attribute):
        yield node.attr
    elif isinstance(node, ast.Tuple):
        for element in node.elts:
            yield from _type_names(element)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        yield from _type_names(node.left)
        yield from _type_names(node.right)


def _settings_checks(source: str) -> Iterator[tuple[int, str]]:
    """Every ``isinstance(x, ...Settings)`` call: its line and the settings type it checks for."""
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and len(node.args) == 2
        ):
            for name in _type_names(node.args[1]):
                if name.endswith("Settings"):
                    yield node.lineno, name


def test_the_length_check_finds_a_function_over_the_limit() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(81))
    source = f"def outer():\n    def inner():\n{body.replace('    ', '        ')}\n    return 1\n"
    assert [name for name, _ in _long_functions(source, REPLAY_MAX_LINES)] == ["outer", "inner"]
    assert list(_long_functions("def short():\n    return 1\n", REPLAY_MAX_LINES)) == []


def test_no_function_in_the_replay_is_longer_than_80_lines() -> None:
    files = sorted((SIMULATOR / "replay").glob("*.py"))
    assert files, "the replay package has no modules"
    too_long = [
        f"{path.name}:{name} ({length} lines)"
        for path in files
        for name, length in _long_functions(path.read_text(encoding="utf-8"), REPLAY_MAX_LINES)
    ]
    assert too_long == []


def test_the_dispatch_check_finds_isinstance_on_a_settings_type_in_every_form() -> None:
    source = (
        "isinstance(s, OpenClawSettings)\n"
        "isinstance(s, settings.ZeroClawSettings)\n"
        "isinstance(s, (int, AiProfileSettings))\n"
        "isinstance(s, str | EffectivePruningSettings)\n"
        "isinstance(s, Settingsish)\n"
    )
    assert list(_settings_checks(source)) == [
        (1, "OpenClawSettings"),
        (2, "ZeroClawSettings"),
        (3, "AiProfileSettings"),
        (4, "EffectivePruningSettings"),
    ]


def test_isinstance_on_settings_types_appears_only_in_the_registry_and_the_specs() -> None:
    found = []
    for path in sorted(SIMULATOR.rglob("*.py")):
        where = path.relative_to(SIMULATOR).as_posix()
        if where == SETTINGS_DISPATCH_ALLOWED[0] or where.startswith(SETTINGS_DISPATCH_ALLOWED[1]):
            continue
        found += [
            f"{where}:{line} {name}" for line, name in _settings_checks(path.read_text(encoding="utf-8"))
        ]
    assert found == []
