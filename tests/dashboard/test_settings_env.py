"""Settings read from the environment take only the values they can use: a switch is a yes or a no, a count
a whole number within its range, a rate one ``limits`` reads; anything else stops the start with one line
that names the variable and its value (``manage.py`` and daphne exit 2), never a misread nor a traceback.

The readers are checked directly; the start-up is checked the way it runs, in fresh processes (settings
are read once, at start-up): ``manage.py check`` and a real daphne.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dashboard.env import (
    EnvironmentValueError,
    env_bool,
    env_checked,
    env_float,
    env_int,
    env_url,
    redacted_url,
)
from tests.dashboard.security_support import free_port, settings_in_fresh_process

REPO = Path(__file__).resolve().parents[2]
NAME = "TRIMSCOPE_TEST_VALUE"


# -- the readers ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        ("1", True),
        ("true", True),
        (" YES ", True),
        ("On", True),
        ("0", False),
        ("false", False),
        ("no", False),
    ]
    + [("OFF", False), ("", False)],
)
def test_a_switch_reads_its_words_in_any_case(monkeypatch, raw, want):
    monkeypatch.setenv(NAME, raw)
    assert env_bool(NAME, not want) is want


@pytest.mark.parametrize("default", [True, False])
def test_an_unset_switch_is_its_default(monkeypatch, default):
    monkeypatch.delenv(NAME, raising=False)
    assert env_bool(NAME, default) is default


@pytest.mark.parametrize("raw", ["ture", "2", "enabled", "y e s", "-1"])
def test_a_switch_that_is_neither_stops_the_start(monkeypatch, raw):
    monkeypatch.setenv(NAME, raw)
    with pytest.raises(EnvironmentValueError) as caught:
        env_bool(NAME, False)
    assert str(caught.value).startswith(f"{NAME}={raw!r}: expected 1, true, yes or on")


@pytest.mark.parametrize(("raw", "want"), [("30", 30), (" 7 ", 7), ("1_000", 1000), ("+5", 5), ("1", 1)])
def test_a_whole_number_is_read(monkeypatch, raw, want):
    monkeypatch.setenv(NAME, raw)
    assert env_int(NAME, 99, minimum=1) == want


@pytest.mark.parametrize("raw", ["0", "-1", "200MB", "1.5", "", "1e3", "thirty"])
def test_a_number_outside_its_range_or_not_whole_stops_the_start(monkeypatch, raw):
    monkeypatch.setenv(NAME, raw)
    with pytest.raises(EnvironmentValueError) as caught:
        env_int(NAME, 30, minimum=1, meaning="days")
    assert str(caught.value) == f"{NAME}={raw!r}: expected a whole number of days, at least 1"
    assert caught.value.name == NAME and caught.value.raw == raw


def test_zero_is_taken_where_the_minimum_is_zero(monkeypatch):
    monkeypatch.setenv(NAME, "0")
    assert env_int(NAME, 5000, minimum=0) == 0
    monkeypatch.delenv(NAME)
    assert env_int(NAME, 5000, minimum=0) == 5000


@pytest.mark.parametrize(("raw", "want"), [("15", 15.0), ("0.25", 0.25), (" 2e1 ", 20.0)])
def test_a_number_of_seconds_is_read(monkeypatch, raw, want):
    monkeypatch.setenv(NAME, raw)
    assert env_float(NAME, 1.0, above=0) == want


@pytest.mark.parametrize("raw", ["0", "-3", "nan", "inf", "-inf", "soon", ""])
def test_a_number_of_seconds_must_be_finite_and_positive(monkeypatch, raw):
    monkeypatch.setenv(NAME, raw)
    with pytest.raises(EnvironmentValueError, match="greater than 0"):
        env_float(NAME, 1.0, above=0)


def test_a_checked_text_is_stripped_or_refused(monkeypatch):
    def digits(text: str) -> None:
        if not text.isdigit():
            raise ValueError(text)

    monkeypatch.setenv(NAME, " 42 ")
    assert env_checked(NAME, "7", digits, "digits") == "42"
    monkeypatch.setenv(NAME, "4x2")
    with pytest.raises(EnvironmentValueError, match="expected digits"):
        env_checked(NAME, "7", digits, "digits")
    monkeypatch.delenv(NAME)
    assert env_checked(NAME, "7", digits, "digits") == "7"


REDIS = frozenset({"redis", "rediss", "unix"})


@pytest.mark.parametrize(
    "raw", ["redis://127.0.0.1:6379/0", "rediss://:pw@cache.example:6380/1", "unix:///run/redis.sock"]
)
def test_a_redis_url_is_taken_as_given(monkeypatch, raw):
    monkeypatch.setenv(NAME, f" {raw} ")
    assert env_url(NAME, REDIS, "a Redis URL") == raw


@pytest.mark.parametrize("raw", [None, "", "  "])
def test_an_unset_or_empty_url_is_none(monkeypatch, raw):
    if raw is None:
        monkeypatch.delenv(NAME, raising=False)
    else:
        monkeypatch.setenv(NAME, raw)
    assert env_url(NAME, REDIS, "a Redis URL") is None


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("localhost:6379", "…"),
        ("http://user:hunter2@cache:6379", "http://…"),
        ("redis://", "redis://…"),
        ("127.0.0.1", "…"),
    ],
)
def test_a_url_of_another_scheme_or_nothing_stops_the_start_without_showing_a_password(
    monkeypatch, raw, shown
):
    monkeypatch.setenv(NAME, raw)
    with pytest.raises(EnvironmentValueError) as caught:
        env_url(NAME, REDIS, "a Redis URL")
    assert str(caught.value) == f"{NAME}={shown!r}: expected a Redis URL"
    assert "hunter2" not in str(caught.value)
    assert redacted_url(raw) == shown


# -- the start-up, in fresh processes -------------------------------------------------------------------


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    # The caller's own TRIMSCOPE_* values (a developer's shell) must not decide these cases.
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIMSCOPE_") or k == "TRIMSCOPE_SHARED"}
    return {
        **env,
        "DJANGO_SETTINGS_MODULE": "dashboard.settings",
        "TRIMSCOPE_VAR_DIR": str(tmp_path),
        **extra,
    }


def _check(tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=REPO,
        env=_env(tmp_path, **extra),
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("extra", "line"),
    [
        (
            {"TRIMSCOPE_EVENT_RETENTION_DAYS": "0"},
            "TRIMSCOPE_EVENT_RETENTION_DAYS='0': expected a whole number of days, at least 1",
        ),
        (
            {"TRIMSCOPE_HTTPS": "ture"},
            "TRIMSCOPE_HTTPS='ture': expected 1, true, yes or on to switch it on; 0, false, no or off to "
            "switch it off",
        ),
        (
            {"TRIMSCOPE_MAX_UPLOAD_BYTES": "200MB"},
            "TRIMSCOPE_MAX_UPLOAD_BYTES='200MB': expected a whole number of bytes, at least 1",
        ),
        (
            {"TRIMSCOPE_THROTTLE_LOGIN_USERNAME": "0/minute"},
            "TRIMSCOPE_THROTTLE_LOGIN_USERNAME='0/minute': expected a rate such as 10/15minutes or "
            "600/minute (at least 1 per period)",
        ),
        (
            {"DATABASE_URL": ""},
            "DATABASE_URL='': expected a database URL such as postgres://user@host:5432/name (unset: the "
            "embedded SQLite database)",
        ),
        (
            {"DATABASE_URL": "postgress://trimscope:s3cret@db.internal/trimscope"},
            "DATABASE_URL='postgress://…': expected a database URL such as postgres://user@host:5432/name "
            "(unset: the embedded SQLite database)",
        ),
        (
            {"REDIS_URL": "cache.internal:6379"},
            "REDIS_URL='…': expected a Redis URL such as redis://127.0.0.1:6379/0",
        ),
        (
            {"TRIMSCOPE_EVENT_RETENTION_DAYS": "90", "TRIMSCOPE_ROLLUP_RETENTION_DAYS": "30"},
            "TRIMSCOPE_ROLLUP_RETENTION_DAYS='30': expected a whole number of days, no fewer than "
            "TRIMSCOPE_EVENT_RETENTION_DAYS, at least 90",
        ),
    ],
    ids=[
        "retention-zero",
        "switch-typo",
        "bytes-with-unit",
        "rate-zero",
        "database-empty",
        "database-scheme-typo",
        "redis-without-scheme",
        "rollups-shorter",
    ],
)
def test_manage_py_names_the_bad_variable_in_one_line_and_exits_2(tmp_path, extra, line):
    out = _check(tmp_path, **extra)
    assert out.returncode == 2, out.stderr
    assert out.stderr == f"Trimscope cannot start: {line}\n"  # one line: no traceback
    assert out.stdout == ""


PROBE = (
    "import json, django; django.setup(); from django.conf import settings as s; print(json.dumps({"
    "'https': s.HTTPS, 'events': s.TRIMSCOPE_EVENT_RETENTION_DAYS, "
    "'rollups': s.TRIMSCOPE_ROLLUP_RETENTION_DAYS, "
    "'upload': s.TRIMSCOPE_MAX_UPLOAD_BYTES, 'limit': s.TRIMSCOPE_INGEST_LIMIT, "
    "'login': s.TRIMSCOPE_THROTTLE['login_username'], 'check': s.TRIMSCOPE_SESSION_CHECK_SECONDS}))"
)


def _probe(tmp_path: Path, **extra: str) -> dict[str, object]:
    return settings_in_fresh_process(PROBE, _env(tmp_path, **extra))


def test_the_defaults_and_good_values_are_read_as_given(tmp_path):
    assert _probe(tmp_path) == {
        "https": False,
        "events": 30,
        "rollups": 400,
        "upload": 200 * 1024 * 1024,
        "limit": 5000,
        "login": "10/15minutes",
        "check": 15.0,
    }
    given = _probe(
        tmp_path,
        TRIMSCOPE_HTTPS=" Yes ",
        TRIMSCOPE_HOST="0.0.0.0",
        DJANGO_ALLOWED_HOSTS="trimscope.example",
        TRIMSCOPE_EVENT_RETENTION_DAYS="7",
        TRIMSCOPE_MAX_UPLOAD_BYTES="1_000_000",
        TRIMSCOPE_INGEST_LIMIT="0",
        TRIMSCOPE_THROTTLE_LOGIN_USERNAME="5 per 10 minutes",
        TRIMSCOPE_SESSION_CHECK_SECONDS="0.5",
    )
    assert given == {
        "https": True,
        "events": 7,
        "rollups": 400,
        "upload": 1_000_000,
        "limit": 0,
        "login": "5 per 10 minutes",
        "check": 0.5,
    }


def test_rollups_default_to_no_shorter_than_the_events(tmp_path):
    """The rollups' default (400 days) follows a longer event retention: they feed the sparklines over the
    events still stored."""
    assert _probe(tmp_path, TRIMSCOPE_EVENT_RETENTION_DAYS="730")["rollups"] == 730


def test_daphne_refuses_to_start_with_a_bad_value_in_one_line(tmp_path):
    daphne = Path(sys.executable).with_name("daphne")
    out = subprocess.run(
        [str(daphne), "-b", "127.0.0.1", "-p", str(free_port()), "dashboard.asgi:application"],
        cwd=REPO,
        env=_env(tmp_path, TRIMSCOPE_INGEST_WINDOW="0"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2
    assert out.stderr.strip().splitlines()[-1] == (
        "Trimscope cannot start: TRIMSCOPE_INGEST_WINDOW='0': expected a whole number of seconds, at least 1"
    )
    assert "Traceback" not in out.stderr


# -- every variable documented --------------------------------------------------------------------------


def _read_variables() -> set[str]:
    """The environment variables the settings and the ASGI entry point read (by a reader here or
    ``os.environ``), from their source: the first argument of each such call."""
    import ast

    names: set[str] = set()
    for path in (REPO / "dashboard" / "settings.py", REPO / "dashboard" / "asgi.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
                continue
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called.startswith("env_") or called in {"get", "_env_list"}:
                value = node.args[0].value
                if isinstance(value, str) and value.isupper():
                    names.add(value)
    return names


def test_every_variable_the_settings_read_is_a_row_of_the_readmes_configuration_table():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    rows = {line.split("`")[1] for line in section.splitlines() if line.startswith("| `")}
    read = _read_variables()
    assert {"TRIMSCOPE_EVENT_RETENTION_DAYS", "DATABASE_URL", "TRIMSCOPE_SERVE_STATIC"} <= read  # found
    assert read - rows == set(), "read by the settings but not in the README's Configuration table"
