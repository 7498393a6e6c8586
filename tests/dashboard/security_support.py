"""Shared pieces of the security tests: a real daphne with chosen settings, and signing in over HTTP.

``daphne_with`` forks a daphne process (as tests/conftest.py's ``daphne_url`` does) after applying
settings overrides, so the server runs with them (a short session check, tight throttles, a Redis that
is down) while the suite-wide server keeps the defaults. Clients are real: httpx over TCP with CSRF
enforced by the server, websockets for the sockets.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import closing, contextmanager
from functools import partial
from pathlib import Path

import httpx
from django.test import override_settings

from tests.conftest import _child_setup, reset_after_fork

# MD5 only in tests: every wrong password is hashed, and the throttle tests send dozens.
FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


REPO = Path(__file__).resolve().parents[2]


def settings_in_fresh_process(probe: str, env: dict[str, str]) -> dict[str, object]:
    """What ``probe`` (Python that sets Django up and prints a JSON object of settings) prints in a fresh
    interpreter with ``env``: settings are read once, at start-up."""
    out = subprocess.run([sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    loaded: dict[str, object] = json.loads(out.stdout)
    return loaded


def free_port() -> int:
    with closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def daphne_with(django_db_blocker, **overrides: object) -> Iterator[str]:
    """A daphne process serving the project with ``overrides`` applied; yields its base URL."""
    from channels.testing.live import make_application
    from daphne.testing import DaphneProcess
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
    from django.db import connections

    # Its own throttle counts: with REDIS_URL set they would otherwise carry over between runs.
    overrides.setdefault("TRIMSCOPE_THROTTLE_KEY_PREFIX", f"test-throttle-{uuid.uuid4().hex}")
    reset_after_fork()
    proc = DaphneProcess(
        "127.0.0.1", partial(make_application, static_wrapper=ASGIStaticFilesHandler), setup=_child_setup
    )
    with override_settings(**overrides), django_db_blocker.unblock():
        connections.close_all()  # no database handle across fork (see tests/conftest.py)
        proc.start()
    try:
        if not proc.ready.wait(timeout=30):
            raise RuntimeError("daphne did not start within 30 s")
        yield f"http://127.0.0.1:{proc.port.value}"
    finally:
        proc.terminate()
        proc.join(timeout=10)


def csrf_token(client: httpx.Client) -> str:
    """Load the sign-in page: sets the CSRF cookie on ``client`` and returns the form's token."""
    page = client.get("/login/")
    assert page.status_code == 200
    match = CSRF_INPUT.search(page.text)
    assert match is not None, "the sign-in form has no CSRF token"
    return match[1]


def sign_in(client: httpx.Client, username: str, password: str, token: str | None = None) -> httpx.Response:
    """Post the sign-in form as a browser would (CSRF cookie + form token); no redirect is followed."""
    token = token or csrf_token(client)
    return client.post(
        "/login/",
        data={"username": username, "password": password, "csrfmiddlewaretoken": token},
        headers={"Referer": f"{client.base_url}/login/"},
    )


def cookie_header(client: httpx.Client) -> str:
    return "; ".join(f"{name}={value}" for name, value in client.cookies.items())
