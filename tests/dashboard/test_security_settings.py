"""Safe defaults: debug mode only on a loopback bind, a secret key per install, the bind host allowed,
``check --deploy`` clean under the documented production settings, no debug page for a foreign Host
and no credentials on a debug page. Settings are read at start-up, so each case is a fresh process."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import httpx
import pytest
from django.test import override_settings

from dashboard.middleware import CredentialsHiddenReporterFilter, host_is_loopback
from tests.dashboard.security_support import free_port, settings_in_fresh_process

REPO = Path(__file__).resolve().parents[2]
SETTINGS_ENV = (
    "DJANGO_DEBUG",
    "DJANGO_SECRET_KEY",
    "DJANGO_ALLOWED_HOSTS",
    "DJANGO_CSRF_TRUSTED_ORIGINS",
    "TRIMSCOPE_HOST",
    "TRIMSCOPE_HTTPS",
    "TRIMSCOPE_BEHIND_PROXY",
    "TRIMSCOPE_HSTS_PRELOAD",
    "REDIS_URL",
    "DATABASE_URL",
    "DJANGO_ALLOW_ASYNC_UNSAFE",  # set by tests/conftest.py for Playwright; never in a deployment
)
PROBE = (
    "import json, django; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({'debug': s.DEBUG, 'hosts': s.ALLOWED_HOSTS, 'key': s.SECRET_KEY}))"
)


def _env(var_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS_ENV}
    return {**env, "DJANGO_SETTINGS_MODULE": "dashboard.settings", "TRIMSCOPE_VAR_DIR": str(var_dir), **extra}


def _settings(var_dir: Path, **extra: str) -> dict[str, object]:
    return settings_in_fresh_process(PROBE, _env(var_dir, **extra))


def _manage(var_dir: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=_env(var_dir, **extra),
        capture_output=True,
        text=True,
    )


# -- debug mode and hosts -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bind", "debug"),
    [
        ("127.0.0.1", True),
        ("localhost", True),
        ("::1", True),
        ("0.0.0.0", False),
        ("192.0.2.7", False),
        ("", False),
    ],
)
def test_debug_mode_is_on_only_for_a_loopback_bind(tmp_path, bind, debug):
    assert _settings(tmp_path, TRIMSCOPE_HOST=bind)["debug"] is debug


def test_django_debug_can_turn_debug_off_but_never_on_for_a_public_bind(tmp_path):
    assert _settings(tmp_path, TRIMSCOPE_HOST="127.0.0.1", DJANGO_DEBUG="false")["debug"] is False
    assert _settings(tmp_path, TRIMSCOPE_HOST="0.0.0.0", DJANGO_DEBUG="true")["debug"] is False


def test_the_bind_host_is_an_allowed_host(tmp_path):
    assert "192.0.2.7" in _settings(tmp_path, TRIMSCOPE_HOST="192.0.2.7")["hosts"]  # type: ignore[operator]
    assert "[2001:db8::7]" in _settings(tmp_path, TRIMSCOPE_HOST="2001:db8::7")["hosts"]  # type: ignore[operator]
    everywhere = _settings(tmp_path, TRIMSCOPE_HOST="0.0.0.0")["hosts"]
    assert socket.gethostname() in everywhere  # type: ignore[operator]
    assert "0.0.0.0" not in everywhere  # type: ignore[operator]


# -- the secret key -------------------------------------------------------------------------------------


def test_a_secret_key_is_generated_once_per_install_and_kept_private(tmp_path):
    first = _settings(tmp_path)["key"]
    second = _settings(tmp_path)["key"]
    key_file = tmp_path / "secret_key"
    assert first == second == key_file.read_text().strip()
    assert len(str(first)) >= 50
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert _settings(tmp_path / "other-install")["key"] != first


def test_the_environment_secret_key_wins_and_writes_no_file(tmp_path):
    key = secrets.token_urlsafe(50)
    assert _settings(tmp_path, DJANGO_SECRET_KEY=key)["key"] == key
    assert not (tmp_path / "secret_key").exists()


# -- check --deploy -------------------------------------------------------------------------------------

PRODUCTION = {
    # The README's "Deploying" settings, verbatim in kind.
    "TRIMSCOPE_HOST": "0.0.0.0",
    "DJANGO_ALLOWED_HOSTS": "trimscope.example.org",
    "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
    "TRIMSCOPE_HTTPS": "1",
    "TRIMSCOPE_BEHIND_PROXY": "1",
}


def test_check_deploy_is_clean_under_the_documented_production_settings(tmp_path):
    result = _manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_flags_a_plain_http_deployment(tmp_path):
    plain = {k: v for k, v in PRODUCTION.items() if k not in {"TRIMSCOPE_HTTPS", "TRIMSCOPE_BEHIND_PROXY"}}
    result = _manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING", **plain)
    assert result.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in result.stderr + result.stdout


def test_the_https_settings_set_secure_cookies_hsts_and_the_proxy_header(tmp_path):
    probe = (
        "import json, django; django.setup(); from django.conf import settings as s; print(json.dumps(["
        "s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS, "
        "s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SECURE_PROXY_SSL_HEADER, s.SESSION_COOKIE_HTTPONLY, "
        "s.X_FRAME_OPTIONS]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO,
        env=_env(tmp_path, **PRODUCTION),
        capture_output=True,
        text=True,
    )
    assert json.loads(out.stdout) == [
        True,
        True,
        True,
        31536000,
        True,
        ["HTTP_X_FORWARDED_PROTO", "https"],
        True,
        "DENY",
    ]


# -- no debug page for a foreign Host, no credentials on any ----------------------------------------------


def _serve(var_dir: Path, port: int, **extra: str) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "dashboard.asgi:application"],
        cwd=REPO,
        env=_env(var_dir, **extra),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with closing(socket.socket()) as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("daphne did not start")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.mark.parametrize("bind", ["127.0.0.1", ""])
def test_a_request_for_a_foreign_host_never_gets_a_debug_page(tmp_path, bind):
    """DNS rebinding: another site's name resolving to 127.0.0.1 reaches the loopback server."""
    port = free_port()
    redis_url = f"redis://:hunter2-redis-password@127.0.0.1:{free_port()}/0"
    server = _serve(tmp_path, port, TRIMSCOPE_HOST=bind, REDIS_URL=redis_url)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=20) as http:
            foreign = http.get("/", headers={"Host": f"rebind.example:{port}"})
            local_404 = http.get("/no-such-page/", headers={"Host": f"127.0.0.1:{port}"})
    finally:
        _stop(server)
    assert foreign.status_code == 400
    assert len(foreign.content) < 500
    assert (
        "hunter2" not in foreign.text and "Traceback" not in foreign.text and "REDIS_URL" not in foreign.text
    )
    # Debug mode is really on for the loopback bind (its 404 page lists the URL patterns), off otherwise.
    assert ("Using the URLconf" in local_404.text) is (bind == "127.0.0.1")


def test_debug_pages_hide_credentials_in_connection_urls():
    redis_url = "redis://:hunter2-redis-password@cache.internal:6379/0"
    layers = {"default": {"BACKEND": "x", "CONFIG": {"hosts": [{"address": redis_url}]}}}
    with override_settings(REDIS_URL=redis_url, CHANNEL_LAYERS=layers, TRIMSCOPE_NOTE=f"see {redis_url}"):
        shown = repr(CredentialsHiddenReporterFilter().get_safe_settings())
    assert "hunter2" not in shown
    assert "TRIMSCOPE_NOTE" in shown and "cache.internal" in shown  # only the credentials are cut


@pytest.mark.parametrize(
    ("host", "local"),
    [
        ("localhost:8000", True),
        ("127.0.0.1", True),
        ("127.1.2.3:80", True),
        ("[::1]:8000", True),
        ("rebind.example", False),
        ("127.0.0.1.rebind.example", False),
        ("", False),
    ],
)
def test_loopback_host_names(host, local):
    assert host_is_loopback(host) is local
