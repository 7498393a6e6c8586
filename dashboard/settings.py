"""Trimscope settings: one module, driven by environment variables with safe local defaults.

Embedded defaults need no service: SQLite and the in-memory channel layer. Scale-out: set
``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` (channels-redis) for several daphne workers.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("TRIMSCOPE_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(
    parents=True, exist_ok=True
)  # the embedded SQLite database and collected static files live here


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    return default if raw is None else raw.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = _env_bool("DJANGO_DEBUG", True)
# The dev key is only for a local embedded install; any deployment sets DJANGO_SECRET_KEY.
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "trimscope-local-development-key-change-me-in-deployments")
ALLOWED_HOSTS = [
    h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]").split(",") if h
]
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o]

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
    "dashboard",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
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
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{_sqlite_path}",
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "0")),
    )
}
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

REDIS_URL = os.environ.get("REDIS_URL")
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

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
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

# Uploads: transcripts are untrusted and size-limited before parsing.
TRIMSCOPE_MAX_UPLOAD_BYTES = int(os.environ.get("TRIMSCOPE_MAX_UPLOAD_BYTES", str(20 * 1024 * 1024)))
DATA_UPLOAD_MAX_MEMORY_SIZE = TRIMSCOPE_MAX_UPLOAD_BYTES + 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = TRIMSCOPE_MAX_UPLOAD_BYTES

# Runtime ingestion (/ws/runtime/): a bigger text frame closes the socket with 1009; a socket with more
# frames waiting to be stored than this closes with 1013 ("try again later") instead of buffering more.
TRIMSCOPE_MAX_FRAME_BYTES = int(os.environ.get("TRIMSCOPE_MAX_FRAME_BYTES", str(64 * 1024)))
TRIMSCOPE_INGEST_QUEUE = int(os.environ.get("TRIMSCOPE_INGEST_QUEUE", "1000"))

# Fleet alert rules (the fleet page strip and GET /api/fleet/alerts), the defaults until an operator
# edits them on the fleet page (then the stored thresholds win):
# - session_trims: a session trimmed MORE than `count` times within `minutes` (minute-aligned windows);
# - overflow_failed_minutes: how far back the API's alerts look (the page uses its time range);
# - runtime_silent_minutes: a runtime seen before, with no open socket, silent for at least this long.
TRIMSCOPE_ALERTS = {
    "session_trims": {"count": 5, "minutes": 10},
    "overflow_failed_minutes": 60,
    "runtime_silent_minutes": 15,
}

# Retention (manage.py fleet_prune, run periodically by `make run`): trim events older than this many
# days are deleted; the per-minute rollups that feed the sparklines, top sessions and /metrics are kept
# longer.
TRIMSCOPE_EVENT_RETENTION_DAYS = int(os.environ.get("TRIMSCOPE_EVENT_RETENTION_DAYS", "30"))
TRIMSCOPE_ROLLUP_RETENTION_DAYS = int(os.environ.get("TRIMSCOPE_ROLLUP_RETENTION_DAYS", "400"))

# GET /metrics (Prometheus text format) answers only a request with `Authorization: Bearer <this>`;
# unset or empty, /metrics answers 404.
TRIMSCOPE_METRICS_TOKEN = os.environ.get("TRIMSCOPE_METRICS_TOKEN", "")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"django.request": {"handlers": ["console"], "level": "ERROR"}},
}
