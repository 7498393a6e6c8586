"""Trimscope settings: one module, driven by environment variables with safe local defaults.

Embedded defaults need no service: SQLite and the in-memory channel layer. Scale-out: set
``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` (channels-redis) for several daphne workers.

Safe by default: debug mode only when ``TRIMSCOPE_HOST`` (``make run``'s bind address) is loopback, a
secret key generated once per install into the data dir unless ``DJANGO_SECRET_KEY`` is set, and the
HTTPS settings of the README's "Deploying" section pass ``manage.py check --deploy``.
"""

from __future__ import annotations

import os
import secrets
import socket
import time
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from limits import parse as parse_rate

from dashboard.env import (
    EnvironmentValueError,
    env_bool,
    env_checked,
    env_float,
    env_int,
    env_url,
    redacted_url,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("TRIMSCOPE_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(
    parents=True, exist_ok=True
)  # the embedded SQLite database and collected static files live here


def _env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# The address daphne is bound to, as `make run` passes it (HOST). Unknown (plain `daphne`, a process
# manager) counts as "not loopback": debug mode must be asked for by a local bind, never assumed.
BIND_HOST = os.environ.get("TRIMSCOPE_HOST", "").strip()
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
BIND_IS_LOOPBACK = BIND_HOST in {*LOOPBACK_HOSTS, "::1"} or BIND_HOST.startswith("127.")
WILDCARD_BINDS = {"0.0.0.0", "::", "[::]"}

# Debug pages show code, settings and request data: only ever for a server that listens on loopback.
# DJANGO_DEBUG can switch it off there; it cannot switch it on anywhere else.
DEBUG = BIND_IS_LOOPBACK and env_bool("DJANGO_DEBUG", True)


def _secret_key() -> str:
    """DJANGO_SECRET_KEY, or one generated at the first start and kept in the data dir (mode 0600)."""
    from_env = os.environ.get("DJANGO_SECRET_KEY", "").strip()
    if from_env:
        return from_env
    key_file = VAR_DIR / "secret_key"
    try:
        # O_EXCL: of several workers starting together exactly one writes the key; the others read it.
        fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_urlsafe(64))
    for _ in range(50):
        key = key_file.read_text().strip()
        if key:
            return key
        time.sleep(0.02)  # another worker created the file and is writing it
    raise ImproperlyConfigured(f"{key_file} is empty: delete it (or set DJANGO_SECRET_KEY)")


SECRET_KEY = _secret_key()

ALLOWED_HOSTS = _env_list("DJANGO_ALLOWED_HOSTS", ",".join(LOOPBACK_HOSTS))
if BIND_HOST in WILDCARD_BINDS:
    # Every interface: the machine's own name is the one host known here; others go in DJANGO_ALLOWED_HOSTS.
    ALLOWED_HOSTS.append(socket.gethostname())
elif BIND_HOST and not BIND_IS_LOOPBACK:
    ALLOWED_HOSTS.append(f"[{BIND_HOST}]" if ":" in BIND_HOST else BIND_HOST)
CSRF_TRUSTED_ORIGINS = _env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "daphne",  # first, so `runserver` is the ASGI one
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "channels",
    "ninja",  # serves the /api/docs Swagger UI from its own static files, not a CDN
    "django_htmx",
    "template_partials",
    "django_tasks",
    "django_tasks_db",
    "dashboard",
]

MIDDLEWARE = [
    # First: in debug mode a request for a name other than loopback (DNS rebinding) never reaches a
    # debug page.
    "dashboard.middleware.LoopbackOnlyWhileDebugMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "dashboard.middleware.ContentSecurityPolicyMiddleware",
    # 400 for a NUL character in any field, before the session or a view queries the database with it.
    "dashboard.input_guard.RefuseNulMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Everything needs a signed-in operator; the login view and the runtime endpoints opt out.
    "dashboard.middleware.SignInRequiredMiddleware",
]

ROOT_URLCONF = "dashboard.urls"
ASGI_APPLICATION = "dashboard.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    }
]

_sqlite_path = VAR_DIR / "trimscope.sqlite3"


def _database() -> dj_database_url.DBConfig:
    """DATABASE_URL (unset: the embedded SQLite database). Set but empty, or of a scheme no backend
    reads, it stops the start: a secret that failed to arrive must not leave the site writing to a local
    SQLite file instead. An error shows the URL's scheme alone (the rest may hold a password)."""
    raw = os.environ.get("DATABASE_URL")
    expected = "a database URL such as postgres://user@host:5432/name (unset: the embedded SQLite database)"
    if raw is not None and not raw.strip():
        raise EnvironmentValueError("DATABASE_URL", raw, expected)
    try:
        found = dj_database_url.config(
            default=f"sqlite:///{_sqlite_path}",
            conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0, minimum=0, meaning="seconds"),
        )
    except ValueError:
        raise EnvironmentValueError("DATABASE_URL", redacted_url(raw or ""), expected) from None
    return found


DATABASES = {"default": _database()}
if DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
    # Named explicitly: forked test servers (channels.testing.live) switch to TEST["NAME"].
    DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}"}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file-backed test database: browser tests talk to a daphne process that must see the rows.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-trimscope.sqlite3")}
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 20,
            # WAL lets the live pages read while events are written. NORMAL skips the fsync per commit:
            # a killed process loses nothing committed, a power cut may lose the last commits.
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )

# Unset or empty: the in-memory channel layer and per-process throttle counts.
REDIS_URL = env_url(
    "REDIS_URL", frozenset({"redis", "rediss", "unix"}), "a Redis URL such as redis://127.0.0.1:6379/0"
)
if REDIS_URL:
    # redis-py 8 defaults socket_timeout to 5 s, which kills channels-redis' idle blocking receive.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # A burst of events must not overflow a watcher's channel (default capacity 100 drops).
            "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": None}], "capacity": 5000},
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 5000}}
    }
# The runtime ingestion sockets' own layer: process-local on purpose, so storing events never waits on
# (or dies with) Redis. See dashboard/consumers/runtime.py.
CHANNEL_LAYERS["runtime"] = {"BACKEND": "channels.layers.InMemoryChannelLayer"}

# OWASP ASVS 2.1: at least 12 characters, no common or breached-list password, no composition rules.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 12},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "transcript-list"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
USE_THOUSAND_SEPARATOR = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Uploads: transcripts are untrusted and size-limited before parsing. The default fits a
# 100,000-message session (about 90 MB of JSON lines) with room to spare; a body over the limit is
# answered 413 before it is read (dashboard.body_limit, dashboard.daphne_patches).
TRIMSCOPE_MAX_UPLOAD_BYTES = env_int(
    "TRIMSCOPE_MAX_UPLOAD_BYTES", 200 * 1024 * 1024, minimum=1, meaning="bytes"
)
DATA_UPLOAD_MAX_MEMORY_SIZE = TRIMSCOPE_MAX_UPLOAD_BYTES + 1024 * 1024
# A transcript of at least this many messages is finished by the task worker after its upload: its parsed
# form pickled and stored (seconds of the upload at 100,000 messages) and every message counted with o200k
# (its first cost panel then reads the counts instead of counting: seconds for 100,000 messages).
TRIMSCOPE_COUNT_AFTER_UPLOAD_MESSAGES = env_int(
    "TRIMSCOPE_COUNT_AFTER_UPLOAD_MESSAGES", 2000, minimum=0, meaning="messages"
)
# Counting a whole session with o200k (the worker's after an upload, a cost panel's before those are stored)
# runs in up to this many threads: the tokenizer lets go of the interpreter lock while it encodes.
TRIMSCOPE_COUNT_THREADS = env_int(
    "TRIMSCOPE_COUNT_THREADS", min(os.cpu_count() or 1, 4), minimum=1, meaning="threads"
)
# A file over this streams to a temporary file as it arrives, not to memory (Django's
# TemporaryFileUploadHandler); the transcript is then decoded from that file.
FILE_UPLOAD_MAX_MEMORY_SIZE = env_int("TRIMSCOPE_UPLOAD_MEMORY_BYTES", 2_621_440, minimum=0, meaning="bytes")
FILE_UPLOAD_TEMP_DIR = VAR_DIR / "uploads"
FILE_UPLOAD_TEMP_DIR.mkdir(exist_ok=True)

# Sessions longer than this are not priced: pricing is linear in the session but holds about 10 kB per
# message for a profile that trims often (about 1 GB at 100,000 messages); their pages say so.
TRIMSCOPE_COST_MAX_MESSAGES = env_int("TRIMSCOPE_COST_MAX_MESSAGES", 100_000, minimum=0, meaning="messages")

# Runtime ingestion (/ws/runtime/): a bigger text frame closes the socket with 1009; a socket with more
# frames waiting to be stored than this closes with 1013 ("try again later") instead of buffering more.
TRIMSCOPE_MAX_FRAME_BYTES = env_int("TRIMSCOPE_MAX_FRAME_BYTES", 64 * 1024, minimum=1, meaning="bytes")
TRIMSCOPE_INGEST_QUEUE = env_int("TRIMSCOPE_INGEST_QUEUE", 1000, minimum=1, meaning="frames")
# Per runtime, all its sockets and POST /api/events together (dashboard/services/throttle.py): more than
# LIMIT events within a WINDOW of seconds closes the socket with 1013 / answers 429. LIMIT 0: off.
TRIMSCOPE_INGEST_LIMIT = env_int("TRIMSCOPE_INGEST_LIMIT", 5000, minimum=0, meaning="events (0: off)")
TRIMSCOPE_INGEST_WINDOW = env_int("TRIMSCOPE_INGEST_WINDOW", 10, minimum=1, meaning="seconds")

# Fleet alert rules (the fleet page strip and GET /api/fleet/alerts), the defaults until an operator
# edits them on the fleet page (then the stored thresholds win):
# - session_trims: a session trimmed MORE than `count` times within `minutes` (minute-aligned windows);
# - overflow_failed_minutes: how far back the API's alerts look (the page uses its time range);
# - runtime_silent_minutes: a runtime seen before and silent this long (an open socket beats every 20 s).
TRIMSCOPE_ALERTS = {
    "session_trims": {"count": 5, "minutes": 10},
    "overflow_failed_minutes": 60,
    "runtime_silent_minutes": 15,
    # Provider-reported input at least `ratio` times the runtime's estimate (envelope events).
    "estimate_drift": {"ratio": 2},
}

# Retention (the fleet_prune task, scheduled by `manage.py fleet_prune --schedule`, which `make run`
# runs; or `manage.py fleet_prune` from cron): trim events older than this many
# days are deleted; the per-minute rollups that feed the sparklines, top sessions and /metrics are kept
# longer.
# A retention of 0 days would have the prune delete everything (as `fleet_prune --days 0` is refused), and
# rollups kept shorter than the events would leave the sparklines blank over events still stored.
TRIMSCOPE_EVENT_RETENTION_DAYS = env_int("TRIMSCOPE_EVENT_RETENTION_DAYS", 30, minimum=1, meaning="days")
TRIMSCOPE_ROLLUP_RETENTION_DAYS = env_int(
    "TRIMSCOPE_ROLLUP_RETENTION_DAYS",
    max(400, TRIMSCOPE_EVENT_RETENTION_DAYS),
    minimum=TRIMSCOPE_EVENT_RETENTION_DAYS,
    meaning="days, no fewer than TRIMSCOPE_EVENT_RETENTION_DAYS",
)
# The prune task (django-tasks, run by `manage.py db_worker`) re-enqueues itself this often.
TRIMSCOPE_PRUNE_EVERY_SECONDS = env_int("TRIMSCOPE_PRUNE_EVERY_SECONDS", 3600, minimum=1, meaning="seconds")

# GET /metrics (Prometheus text format) answers only a request with `Authorization: Bearer <this>`;
# unset or empty, /metrics answers 404.
TRIMSCOPE_METRICS_TOKEN = os.environ.get("TRIMSCOPE_METRICS_TOKEN", "")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"django.request": {"handlers": ["console"], "level": "ERROR"}},
}

# -- HTTPS and browser hardening: Django's deployment checklist and OWASP ASVS level 1 -------------------
# TRIMSCOPE_HTTPS=1 when browsers reach the server over HTTPS (directly or through a TLS proxy).
HTTPS = env_bool("TRIMSCOPE_HTTPS", False)
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_SSL_REDIRECT = HTTPS
SECURE_HSTS_SECONDS = (
    env_int("TRIMSCOPE_HSTS_SECONDS", 365 * 24 * 3600, minimum=0, meaning="seconds") if HTTPS else 0
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS and env_bool("TRIMSCOPE_HSTS_SUBDOMAINS", True)
# Preloading is a promise about the whole domain that only its owner can make (and hard to take back):
# opt-in, and Django's reminder about it (security.W021) is silenced until then.
SECURE_HSTS_PRELOAD = HTTPS and env_bool("TRIMSCOPE_HSTS_PRELOAD", False)
SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]
if env_bool("TRIMSCOPE_BEHIND_PROXY", False):
    # Only behind a proxy that sets (and strips incoming) X-Forwarded-Proto; run daphne --proxy-headers
    # so throttling sees the client's address instead of the proxy's.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_AGE = env_int("TRIMSCOPE_SESSION_SECONDS", 14 * 24 * 3600, minimum=1, meaning="seconds")
# Pages hand the CSRF token to htmx in hx-headers; no script reads the cookie.
CSRF_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
# Debug pages (loopback only) still never show a URL's credentials (REDIS_URL, DATABASE_URL).
DEFAULT_EXCEPTION_REPORTER_FILTER = "dashboard.middleware.CredentialsHiddenReporterFilter"


# Throttles (dashboard/throttle.py, moving windows): failed sign-ins per username and per client address,
# requests per API token, and requests with a bearer token that opens nothing, per client address.
# Over a limit: 429 with Retry-After. Counted in Redis when REDIS_URL is set, else per process.
def _rate(text: str) -> None:
    """A rate ``limits`` reads (``10/15minutes``, ``600 per minute``) of at least one hit: a bad one would
    fail every sign-in when it is first read, a zero one let none through."""
    if parse_rate(text).amount < 1:
        raise ValueError(text)


_RATE = "a rate such as 10/15minutes or 600/minute (at least 1 per period)"
TRIMSCOPE_THROTTLE = {
    "login_username": env_checked("TRIMSCOPE_THROTTLE_LOGIN_USERNAME", "10/15minutes", _rate, _RATE),
    "login_address": env_checked("TRIMSCOPE_THROTTLE_LOGIN_ADDRESS", "50/15minutes", _rate, _RATE),
    "api_token": env_checked("TRIMSCOPE_THROTTLE_API_TOKEN", "600/minute", _rate, _RATE),
    "api_bad_token": env_checked("TRIMSCOPE_THROTTLE_API_BAD_TOKEN", "30/minute", _rate, _RATE),
}
TRIMSCOPE_THROTTLE_KEY_PREFIX = "trimscope-throttle"  # Redis keys; tests give each server its own

# A /ws/fleet/ socket re-checks its session this often (sign-out closes it at once; expiry, deletion or a
# password change within this many seconds).
TRIMSCOPE_SESSION_CHECK_SECONDS = env_float(
    "TRIMSCOPE_SESSION_CHECK_SECONDS", 15.0, above=0, meaning="seconds"
)

# Corpus evaluations run as tasks (django-tasks, the backport of Django 6's django.tasks) stored in the
# database (django-tasks-db); `manage.py db_worker` runs them, on any machine that shares the database.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
# A chunk's lease: a chunk still running this long after its worker last reported is enqueued again.
TRIMSCOPE_EVALUATION_LEASE_SECONDS = env_float(
    "TRIMSCOPE_EVALUATION_LEASE_SECONDS", 60.0, above=0, meaning="seconds"
)
# Work per chunk, in transcript messages × profiles: big enough that a task's own cost (claiming the row,
# storing its result, the worker's poll) stays under 5 % of the work.
TRIMSCOPE_EVALUATION_CHUNK_MESSAGES = env_int(
    "TRIMSCOPE_EVALUATION_CHUNK_MESSAGES", 20_000, minimum=1, meaning="messages"
)
TRIMSCOPE_CORPUS_ARCHIVE_MAX_FILES = env_int(
    "TRIMSCOPE_CORPUS_ARCHIVE_MAX_FILES", 10_000, minimum=1, meaning="files"
)
TRIMSCOPE_CORPUS_ARCHIVE_MAX_BYTES = env_int(
    "TRIMSCOPE_CORPUS_ARCHIVE_MAX_BYTES", 500 * 1024 * 1024, minimum=1, meaning="bytes"
)
