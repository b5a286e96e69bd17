"""Settings read from the environment with safe defaults.

Only `SECRET_KEY` is mandatory, and only outside debug mode: a production server
must never run on a key that sits in the repository.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import dj_database_url
from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured

# No model hub is reachable: make a missing local file fail at once instead of after
# a network timeout.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Weights are read from local files in a moment: a "Loading weights" bar in the server's
# start log tells its reader nothing.
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {value!r}")


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def owner_only(path: Path) -> None:
    """Create `path` readable by its owner alone, or make it so.

    The database and the embedded broker hold answers, facts and sessions; SQLite would
    create them with the umask (usually 0644, world-readable), and it gives the -wal and
    -journal files beside them the database file's own mode. A path that cannot be
    created or changed (a read-only `var/`) is left for the database to report.
    """
    try:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
    except OSError:
        pass


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    try:
        return int(value) if value else default
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from exc


DEBUG = env_bool("DJANGO_DEBUG")

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY is required unless DJANGO_DEBUG=1")
    SECRET_KEY = "insecure-development-key-only-for-DJANGO_DEBUG=1"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")

INSTALLED_APPS = [
    # Django's admin, opened by the admin role too (accounts/admin_site.py).
    "grounding_app.accounts.admin_apps.WorkbenchAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "grounding_app.api",
    "grounding_app.accounts",
    "grounding_app.reviews",
    "grounding_app.annotations",
    "grounding_app.retention",
    "grounding_app.policies",
    "grounding_app.batch",
    "grounding_app.traces",
    "grounding_app.monitoring",
    "grounding_app.counters",
    "grounding_app.active_verifier",
    "grounding_app.calibration",
    "grounding_app.verifiers",
    "grounding_app.llm_judge",
    "django_htmx",
    "template_partials",
    "csp",
]
# The lab beside this package (grounding_lab: training, evaluation and benchmark
# commands) is installed by name where it is present, so `manage.py grounding_eval` and
# the other lab commands work in a checkout, and the app runs without it.
if importlib.util.find_spec("grounding_lab") is not None:
    INSTALLED_APPS.append("grounding_lab")

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Static files are answered here, before sessions and the database are touched:
    # gunicorn alone serves a complete site (compressed, cache-busted names).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Google's JSON error envelope for every error under /v1 and the other API versions,
    # whatever middleware or view raised it (grounding_app/api/middleware.py).
    "grounding_app.api.middleware.ApiErrorMiddleware",
    "grounding_app.retention.expiry.PeriodsPerRequestMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Cache-Control: private, no-store for signed-in people and API keys.
    "grounding_app.accounts.middleware.PrivateNoStoreMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # OTLP's own 413 (a google.rpc.Status) for /otlp/ before the page or envelope below.
    "grounding_app.traces.middleware.OtlpSizeLimitMiddleware",
    "grounding_app.api.middleware.RequestSizeLimitMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "grounding_app.urls"
WSGI_APPLICATION = "grounding_app.wsgi.application"

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
                "grounding_app.accounts.views.roles",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'var' / 'db.sqlite3'}"),
        conn_max_age=60,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    (BASE_DIR / "var").mkdir(mode=0o700, exist_ok=True)
    if str(DATABASES["default"]["NAME"]) not in ("", ":memory:"):
        owner_only(Path(DATABASES["default"]["NAME"]))
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        # WAL lets readers run beside one writer; IMMEDIATE takes the write lock at
        # BEGIN so concurrent saves wait (busy timeout) instead of failing mid-way.
        # secure_delete zeroes what is deleted, so purged text leaves the file too.
        "init_command": (
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA secure_delete=ON;"
        ),
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    # The admin role's permissions, declared in code (accounts/backends.py).
    "grounding_app.accounts.backends.RolePermissionBackend",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# `manage.py collectstatic` (scripts/serve runs it) copies the files here with hashed,
# pre-compressed names; WhiteNoise serves them with far-future cache headers. In debug
# mode templates link the unhashed names and runserver serves them from STATICFILES_DIRS.
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", "") or BASE_DIR / "var" / "static")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# The API accepts requests up to 16 MiB (200 facts of 10,000 characters fit easily);
# anything larger is answered with 413 before it is read.
DATA_UPLOAD_MAX_MEMORY_SIZE = 16 * 1024 * 1024
# Whole requests above this, uploads included, are refused (413) before they are read
# (grounding_app.limits, grounding_app.api.middleware): the payload limit plus room for
# form fields and framing.
MAX_REQUEST_BYTES = env_int("MAX_REQUEST_BYTES", DATA_UPLOAD_MAX_MEMORY_SIZE + 1024 * 1024)
# A refused body up to this size is read and dropped before the 413 goes out, so the
# client, still sending, reads the answer instead of a reset (grounding_app/wsgi.py).
MAX_DRAIN_BYTES = env_int("MAX_DRAIN_BYTES", 64 * 1024 * 1024)

LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "accounts:login"

# Pages load scripts only from our own static files (vendored htmx included), with a
# per-request nonce; nothing may frame them. The search-suggestions document sets its
# own sandboxing policy (grounding_app.reviews.views.SUGGESTIONS_CSP).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        "frame-src": [SELF],
    }
}

SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
SESSION_COOKIE_HTTPONLY = True
# htmx sends the token from the page (hx-headers in base.html), so no script needs the
# cookie.
CSRF_COOKIE_HTTPONLY = True

# HTTPS. Production defaults are strict; DJANGO_DEBUG=1 (scripts/run) turns them off so
# the local server works over http. Behind a TLS-terminating proxy, set
# SECURE_PROXY_SSL_HEADER (e.g. "HTTP_X_FORWARDED_PROTO,https") or redirects loop.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
# Probes and the metrics scraper may speak plain http.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 365 * 24 * 3600)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
_proxy_ssl_header = env_list("SECURE_PROXY_SSL_HEADER", "")
if _proxy_ssl_header and len(_proxy_ssl_header) != 2:
    raise ImproperlyConfigured(
        "SECURE_PROXY_SSL_HEADER must be HEADER,VALUE, e.g. HTTP_X_FORWARDED_PROTO,https"
    )
SECURE_PROXY_SSL_HEADER = tuple(_proxy_ssl_header) or None
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"

# Caches. "default" (what may be recomputed: second opinions) is Redis when REDIS_URL is
# set, else each process's memory. "limits" holds the rate-limit counters
# (grounding_app.limits), which every gunicorn worker and machine must share: Redis when
# set, else a table in the database (grounding_app.counters), never a process's memory.
REDIS_URL = os.environ.get("REDIS_URL", "")
_REDIS_CACHE = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
CACHES = {
    "default": (
        _REDIS_CACHE if REDIS_URL else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    ),
    "limits": (
        dict(_REDIS_CACHE)
        if REDIS_URL
        else {"BACKEND": "grounding_app.counters.cache.DatabaseCounterCache"}
    ),
}
API_RATE_LIMIT = env_int("API_RATE_LIMIT", 600)  # requests per key and window; 0: off
API_RATE_WINDOW = env_int("API_RATE_WINDOW", 60)  # seconds
LOGIN_RATE_LIMIT = env_int("LOGIN_RATE_LIMIT", 10)  # failed sign-ins per IP and window
LOGIN_RATE_WINDOW = env_int("LOGIN_RATE_WINDOW", 300)
# request.META key holding the client's address when a proxy sets one (e.g.
# HTTP_X_REAL_IP); empty: REMOTE_ADDR.
CLIENT_IP_HEADER = os.environ.get("CLIENT_IP_HEADER", "")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

# Grounding engine. The active verifier's engine is loaded lazily, on first use, and
# again when another verifier is chosen (grounding_app/active_verifier/checker.py).
GROUNDING_PRELOAD = env_bool("GROUNDING_PRELOAD")
# The judge: "verifier" (the active verifier, trained) or "features" (the zero-shot
# feature judge; tests of serving that need no verdicts).
GROUNDING_JUDGE = os.environ.get("GROUNDING_JUDGE", "") or "verifier"
# The verifier: the bundled one, or a Hugging Face sequence-classification directory
# packaged by `manage.py package_verifier` (docs/verifier.md, "Bring your own verifier").
# A path that is no directory stops every process at start-up; what the directory
# lacks, the engine names when it loads.
GROUNDING_VERIFIER_DIR = Path(
    os.environ.get("GROUNDING_VERIFIER_DIR", "")
    or BASE_DIR / "grounding_app" / "engine" / "data" / "verifier"
)
if not GROUNDING_VERIFIER_DIR.is_dir():
    raise ImproperlyConfigured(
        f"GROUNDING_VERIFIER_DIR={GROUNDING_VERIFIER_DIR} is not a directory"
    )
# Where the Verifier page looks for verifiers (each directory holding a verifier.json)
# and writes the ones it adapts (grounding_app/verifiers, docs/verifier.md).
GROUNDING_VERIFIERS_ROOT = Path(
    os.environ.get("GROUNDING_VERIFIERS_ROOT", "") or BASE_DIR / "var" / "verifiers"
)

# The LLM judge (grounding_app/llm_judge, docs/llm-judge.md): an OpenAI-compatible
# chat-completions endpoint judges the claims whose local score lies in LLM_JUDGE_BAND
# ("LOW,HIGH" or "all"), and with LLM_JUDGE_UNREAD_LANGUAGES, every claim in a language
# no verifier here reads (Hebrew), instead of word matching. Off while LLM_JUDGE_URL is
# unset. An admin may set another on the Verifier page: saved there, it wins over these.
LLM_JUDGE_URL = os.environ.get("LLM_JUDGE_URL", "")
LLM_JUDGE_MODEL = os.environ.get("LLM_JUDGE_MODEL", "")
LLM_JUDGE_KEY = os.environ.get("LLM_JUDGE_KEY", "")
LLM_JUDGE_BAND = os.environ.get("LLM_JUDGE_BAND", "") or "0.35,0.75"
LLM_JUDGE_TIMEOUT = env_int("LLM_JUDGE_TIMEOUT", 30)
LLM_JUDGE_CONCURRENCY = env_int("LLM_JUDGE_CONCURRENCY", 2)
LLM_JUDGE_DAILY_TOKENS = env_int("LLM_JUDGE_DAILY_TOKENS", 0)  # 0: no cap
LLM_JUDGE_UNREAD_LANGUAGES = env_bool("LLM_JUDGE_UNREAD_LANGUAGES")
# The internal hosts and networks the judge may reach, as MONITORING_WEBHOOK_ALLOW (e.g.
# "ollama,10.20.0.0/16"); a URL naming the loopback (localhost, 127.0.0.1) needs no entry,
# and a cloud metadata address is never reached.
LLM_JUDGE_ALLOW = env_list("LLM_JUDGE_ALLOW", "")

# Retention (grounding_app.retention): the period until an admin sets one, and how often
# the server process itself purges (0: never; production uses cron or a systemd timer).
RETENTION_DAYS = env_int("RETENTION_DAYS", 30)
if RETENTION_DAYS < 1:
    raise ImproperlyConfigured(f"RETENTION_DAYS must be at least 1, got {RETENTION_DAYS}")
RETENTION_PURGE_INTERVAL = env_int("RETENTION_PURGE_INTERVAL", 0)

# Batch jobs (grounding_app.batch, grounding_app/celery.py): Celery on Redis when
# REDIS_URL is set, else kombu's SQLAlchemy transport on a SQLite file under var/ (no
# server). The database holds the work; see celery.py for why a killed worker loses
# nothing. BATCH_QUEUE names the queue (tests give each run its own).
CELERY_BROKER_URL = (
    os.environ.get("CELERY_BROKER_URL", "")
    or REDIS_URL
    or f"sqla+sqlite:///{BASE_DIR / 'var' / 'celery-broker.sqlite3'}"
)
if CELERY_BROKER_URL.startswith("sqla+sqlite:///"):
    owner_only(Path(CELERY_BROKER_URL.removeprefix("sqla+sqlite:///")))
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("BATCH_QUEUE", "") or "batch"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Redis hands an unacknowledged message out again after this many seconds. (The
# SQLAlchemy transport passes its options on to create_engine, so it gets none.)
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {"visibility_timeout": 3600} if CELERY_BROKER_URL.startswith("redis") else {}
)
BATCH_CHUNK_LINES = env_int("BATCH_CHUNK_LINES", 20)  # lines per task
# A running chunk's worker pushes its lease after every line; past it, the chunk is sent
# again. It must outlast the slowest single line.
BATCH_LEASE_SECONDS = env_int("BATCH_LEASE_SECONDS", 120)
# A queued chunk is sent again after this long, but only while no worker has written a
# line for a lease period (its message went with a dead worker).
BATCH_QUEUED_TIMEOUT = env_int("BATCH_QUEUED_TIMEOUT", 3600)
BATCH_SWEEP_SECONDS = env_int("BATCH_SWEEP_SECONDS", 15)  # how often each worker sweeps
# Lines one API key may have waiting in its active jobs (one full-size job); 0: no bound.
# An upload of more lines is stored whole and split into lines by a worker, so the
# request is answered in about a second whatever its size (grounding_app.batch.intake).
BATCH_SPLIT_INLINE_LINES = env_int("BATCH_SPLIT_INLINE_LINES", 2_000)
BATCH_KEY_WAITING_LINES = env_int("BATCH_KEY_WAITING_LINES", 100_000)
# A Label Studio export larger than this is stored and read by a worker, the page showing
# its progress; a smaller one is read within the request (a few hundred tasks, seconds).
LABEL_STUDIO_INLINE_BYTES = env_int("LABEL_STUDIO_INLINE_BYTES", 512 * 1024)
# JSONL items of a labeling project beyond this many are checked by a worker, the page
# showing the progress: the engine checks each (2,000 items take minutes on a CPU).
LABELING_IMPORT_INLINE_ITEMS = env_int("LABELING_IMPORT_INLINE_ITEMS", 100)

# The OTLP/HTTP traces receiver (docs/traces.md). A trace is checked once it has an LLM
# span with a completion and its root span, or when no span of it came for
# TRACES_QUIET_SECONDS; after TRACES_MAX_WAIT_SECONDS it is checked or dropped whatever
# came. Each worker assembles due traces every TRACES_SWEEP_SECONDS.
TRACES_QUIET_SECONDS = env_int("TRACES_QUIET_SECONDS", 10)
TRACES_MAX_WAIT_SECONDS = env_int("TRACES_MAX_WAIT_SECONDS", 300)
TRACES_SWEEP_SECONDS = env_int("TRACES_SWEEP_SECONDS", 1)
# Decompressed export bodies up to this size; traces waiting per source before 429.
TRACES_MAX_EXPORT_BYTES = env_int("TRACES_MAX_EXPORT_BYTES", 16 * 1024 * 1024)
TRACES_MAX_OPEN_TRACES = env_int("TRACES_MAX_OPEN_TRACES", 50_000)
TRACES_MAX_TRACE_SPANS = env_int("TRACES_MAX_TRACE_SPANS", 2_000)
# Spans read from one export: the rest are refused in its partial success, so one large
# export holds a web worker for seconds, not until it is killed.
TRACES_MAX_EXPORT_SPANS = env_int("TRACES_MAX_EXPORT_SPANS", 20_000)
# Services one export stores, and sources it may create: each service costs statements
# and a new one a permanent source; the rest are refused in its partial success.
TRACES_MAX_EXPORT_SERVICES = env_int("TRACES_MAX_EXPORT_SERVICES", 50)
TRACES_MAX_NEW_SOURCES = env_int("TRACES_MAX_NEW_SOURCES", 10)
# Distinct unknown attribute keys kept per source (its page lists them); spans' keys
# past it are only counted, so an exporter inventing keys cannot grow a row unbounded.
TRACES_MAX_UNKNOWN_KEYS = env_int("TRACES_MAX_UNKNOWN_KEYS", 500)

# Alerts (docs/monitoring.md): each worker evaluates the rules every
# MONITORING_ALERT_SECONDS; a failed webhook is tried again after each delay of
# MONITORING_WEBHOOK_BACKOFF (seconds, comma-separated; then it gives up), every attempt
# bounded by MONITORING_WEBHOOK_TIMEOUT seconds.
MONITORING_ALERT_SECONDS = env_int("MONITORING_ALERT_SECONDS", 60)
try:
    MONITORING_WEBHOOK_BACKOFF = tuple(
        float(part) for part in env_list("MONITORING_WEBHOOK_BACKOFF", "10,30,60,120,300,600")
    )
except ValueError as _exc:
    raise ImproperlyConfigured(
        "MONITORING_WEBHOOK_BACKOFF must list seconds, e.g. 10,30,60"
    ) from _exc
MONITORING_WEBHOOK_TIMEOUT = env_int("MONITORING_WEBHOOK_TIMEOUT", 5)
# A webhook is never posted to an internal address (loopback, private, link-local, ...;
# server-side request forgery) unless listed here: host names, addresses or networks,
# comma-separated, e.g. "mattermost.internal,10.20.0.0/16".
MONITORING_WEBHOOK_ALLOW = env_list("MONITORING_WEBHOOK_ALLOW", "")
# Sampling rules (run daily by the batch workers, monitoring/tasks.py) look at lines checked in
# the last SAMPLING_LOOKBACK_DAYS days. The Verifier page offers adaptation once the
# team's labels on the active verifier's scores reach VERIFIER_ADAPT_MIN_LABELS.
SAMPLING_LOOKBACK_DAYS = env_int("SAMPLING_LOOKBACK_DAYS", 7)
# How often each batch worker looks whether the day's sampling run is done (it runs once
# a UTC day between all workers: monitoring/tasks.py).
SAMPLING_CHECK_SECONDS = env_int("SAMPLING_CHECK_SECONDS", 300)
# A batch or trace line may give its answer's own time (trends count it then): one up to
# this many seconds ahead of this server's clock is accepted, for clocks that differ.
ANSWER_TIME_SKEW_SECONDS = env_int("ANSWER_TIME_SKEW_SECONDS", 300)
VERIFIER_ADAPT_MIN_LABELS = env_int("VERIFIER_ADAPT_MIN_LABELS", 200)
