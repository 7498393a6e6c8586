"""Suite-wide fixtures: Debian's chromium for Playwright, a real daphne process, an operator account."""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import partial

import pytest
from hypothesis import settings

# `make mutate` runs every mutant with this profile: the same examples each time and no example database,
# so a mutant's verdict does not depend on the mutants tested before it.
settings.register_profile("mutation", derandomize=True, database=None)

# pytest-playwright's sync API keeps an event loop running in the main thread; Django's ORM calls from
# browser tests are still synchronous and safe here. Test-only.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {
        **browser_type_launch_args,
        "executable_path": os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"),
        "args": CHROMIUM_ARGS,
    }


def pytest_report_header(config):
    # Which build of the replay's hot modules this run tests (simulator/replay/compiled.py).
    from simulator.replay import COMPILED

    how = "compiled" if COMPILED.active else "Python"
    return f"simulator hot modules: {how} ({COMPILED.reason})"


BROWSER_TIMEOUT = 240
"""Seconds a browser test may take (pytest-timeout) before it fails with its stack."""


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    from simulator.replay import COMPILED

    if COMPILED.active:
        # A compiled module calls its own functions, classes and constants directly and its classes take no
        # Python subclass: a test that swaps or subclasses one to show a wrong rule would be noticed cannot
        # do it there. `make test`'s Python pass runs these.
        reason = "swaps or subclasses what a compiled module defines: run by the Python pass"
        skip = pytest.mark.skip(reason=reason)
        for item in items:
            if item.get_closest_marker("python_only"):
                item.add_marker(skip)
    # Browser tests leave Playwright's loop running in the main thread; every asyncio test must run first.
    items.sort(key=lambda item: "page" in getattr(item, "fixturenames", ()))
    # The slowest browser test takes seconds; one that hangs (a browser starved on a loaded machine) fails
    # with its stack after BROWSER_TIMEOUT rather than the suite's 15 minutes.
    for item in items:
        if "page" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(BROWSER_TIMEOUT))


def reset_after_fork() -> None:
    """Give a forked daphne child its own asgiref executor thread (fork copies the object, not the thread)."""
    from concurrent.futures import ThreadPoolExecutor

    from asgiref.sync import SyncToAsync
    from channels.layers import channel_layers

    SyncToAsync.single_thread_executor = ThreadPoolExecutor(max_workers=1)
    channel_layers.backends = {}


def _child_setup() -> None:
    from channels.testing.live import set_database_connection
    from django.db import connections

    reset_after_fork()
    # A database handle must not be used across fork (SQLite in WAL mode shares lock state through
    # its -shm file): drop the parent's handles unused; the child opens its own on demand.
    for conn in connections.all(initialized_only=True):
        conn.connection = None
    set_database_connection()


@pytest.fixture(scope="session")
def daphne_url(django_db_setup, django_db_blocker) -> Iterator[str]:
    """A real daphne process serving the project (HTTP + WebSockets + static) on a free port."""
    from channels.testing.live import make_application
    from daphne.testing import DaphneProcess
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    reset_after_fork()
    proc = DaphneProcess(
        "127.0.0.1", partial(make_application, static_wrapper=ASGIStaticFilesHandler), setup=_child_setup
    )
    with django_db_blocker.unblock():
        # Fork with no database handle open: a SQLite file in WAL mode keeps shared lock state that a
        # handle carried across fork corrupts (the child then stops seeing the parent's commits).
        from django.db import connections

        connections.close_all()
        proc.start()
    if not proc.ready.wait(timeout=30):
        proc.terminate()
        raise RuntimeError("daphne did not start within 30 s")
    yield f"http://127.0.0.1:{proc.port.value}"
    proc.terminate()
    proc.join(timeout=10)


OPERATOR_PASSWORD = "operator-test-password"


@pytest.fixture
def operator(django_user_model):
    return django_user_model.objects.create_user(username="op", password=OPERATOR_PASSWORD)


@pytest.fixture
def operator_client(client, operator):
    client.force_login(operator)
    return client
