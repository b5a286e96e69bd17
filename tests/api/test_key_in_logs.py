"""Issue 10 item 7: an API key sent as `?key=` (accepted, as Google does) is never logged."""

from __future__ import annotations

import json
import logging
import os
import runpy
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.db.utils import OperationalError
from django.test import Client
from gunicorn.config import Config
from gunicorn.http.errors import InvalidRequestLine

from grounding_app.api.models import ApiKey
from grounding_app.engine import CheckRequest
from tests.conftest import check_with

ROOT = Path(__file__).resolve().parents[2]
URL = "/v1/projects/p/locations/global/groundingConfigs/default_grounding_config:check"
BODY = json.dumps({"answerCandidate": "T is O.", "facts": [{"factText": "T is O"}]})
SECRET = "gwk_SECRETSECRETSECRET"


def gunicorn_config(monkeypatch: pytest.MonkeyPatch, **env: str) -> Config:
    """gunicorn.conf.py as gunicorn reads it: each module-level setting applied in turn."""
    for name in ("BIND", "WEB_CONCURRENCY", "FORWARDED_ALLOW_IPS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    namespace = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    config = Config()
    for name, value in namespace.items():
        if name in config.settings:
            config.set(name, value)
    return config


def test_the_access_log_shows_the_path_without_the_query(monkeypatch) -> None:
    config = gunicorn_config(monkeypatch)
    environ = {
        "REQUEST_METHOD": "POST",
        "RAW_URI": f"{URL}?key={SECRET}",
        "PATH_INFO": URL,
        "QUERY_STRING": f"key={SECRET}",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "203.0.113.7",
        "HTTP_REFERER": f"https://example.com/page?key={SECRET}",
        "HTTP_USER_AGENT": "curl/8",
    }
    response = SimpleNamespace(status="200 OK", sent=123, headers=[])
    request = SimpleNamespace(headers=[("X-GOOG-API-KEY", SECRET)])
    logger = config.logger_class(config)
    atoms = logger.atoms_wrapper_class(logger.atoms(response, request, environ, timedelta(0, 1)))
    line = config.access_log_format % atoms
    assert SECRET not in line
    assert f'"POST {URL} HTTP/1.1" 200 123' in line
    assert config.accesslog == "-"


def test_the_error_log_blanks_keys_in_the_request_lines_it_quotes(monkeypatch, caplog) -> None:
    """What gunicorn's worker logs for a malformed request line and for a crash outside
    Django (gunicorn.workers.base.Worker.handle_error)."""
    config = gunicorn_config(monkeypatch)
    logger = config.logger_class(config)
    logger.error_log.addHandler(caplog.handler)
    malformed = InvalidRequestLine(f"POST {URL}?alt=json&key={SECRET} HTTP/1.1 junk")
    logger.warning(f"Invalid request from ip=203.0.113.7: {malformed}")
    try:
        raise RuntimeError("the WSGI app failed")
    except RuntimeError:
        logger.exception("Error handling request %s %s", "POST", f"{URL}?KEY={SECRET}&alt=json")
    text = logged(caplog.records)
    assert SECRET not in text
    assert "?alt=json&key=(hidden) HTTP/1.1" in text
    assert "?KEY=(hidden)&alt=json" in text


def test_the_server_settings_come_from_the_environment(monkeypatch) -> None:
    default = gunicorn_config(monkeypatch)
    assert (default.bind, default.workers, default.timeout) == (["127.0.0.1:8000"], 2, 60)
    assert default.preload_app is False
    deployed = gunicorn_config(
        monkeypatch, BIND="0.0.0.0:9000", WEB_CONCURRENCY="4", FORWARDED_ALLOW_IPS="10.0.0.1"
    )
    assert (deployed.bind, deployed.workers) == (["0.0.0.0:9000"], 4)
    assert deployed.forwarded_allow_ips == ["10.0.0.1"]


def test_the_workers_share_the_cores_among_their_torch_threads(monkeypatch) -> None:
    config = gunicorn_config(monkeypatch, WEB_CONCURRENCY="4")
    monkeypatch.setenv("OMP_NUM_THREADS", "")  # so that undoing restores the original
    monkeypatch.delenv("OMP_NUM_THREADS")
    monkeypatch.setattr("os.cpu_count", lambda: 16)
    config.on_starting(SimpleNamespace(cfg=config))
    assert os.environ["OMP_NUM_THREADS"] == "4"
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    config.on_starting(SimpleNamespace(cfg=config))
    assert os.environ["OMP_NUM_THREADS"] == "1"


def logged(records: list[logging.LogRecord]) -> str:
    """Every record as a handler would write it, traceback included."""
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    return "\n".join(formatter.format(record) for record in records)


@pytest.mark.django_db
def test_django_never_logs_the_query_key(monkeypatch, caplog) -> None:
    """Django logs request.path (never the query) for 4xx and 5xx; so does the API."""
    client = Client(raise_request_exception=False)
    valid = ApiKey.issue("k")[1]

    def crash(request: CheckRequest) -> None:
        raise RuntimeError("the engine broke")

    def locked(raw: str) -> None:
        raise OperationalError("database is locked")

    check_with(monkeypatch, crash)
    with caplog.at_level(logging.DEBUG):
        wrong = client.post(f"{URL}?key={SECRET}", BODY, content_type="application/json")
        missing = client.get(f"/v1/nowhere?key={SECRET}")
        crashed = client.post(f"{URL}?key={valid}", BODY, content_type="application/json")
        monkeypatch.setattr(ApiKey, "authenticate", locked)
        unavailable = client.post(f"{URL}?key={valid}", BODY, content_type="application/json")
    assert [r.status_code for r in (wrong, missing, crashed, unavailable)] == [401, 404, 500, 503]
    text = logged(caplog.records)
    assert "Unauthorized: /v1/" in text and "RuntimeError: the engine broke" in text
    assert "database is locked" in text
    assert SECRET not in text and valid not in text
