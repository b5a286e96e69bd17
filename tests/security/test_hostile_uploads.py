"""Hostile whole files at every upload endpoint, the API's and the pages' (issue 32,
item 14): UTF-16 and UTF-32 text, NULs, bytes that are not UTF-8, a byte-order mark
alone, deep nesting, formula cells, a gzip header without gzip. Each is refused or read
line by line, never a 500. The form endpoints are the upload forms of the hostile-form
walk (tests/security/test_hostile_forms.py), found by their file fields, so an upload
form added there is walked here too."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from grounding_app.api.models import ApiKey
from tests.security.conftest import World
from tests.security.test_hostile_forms import WALKED, _forms

pytestmark = pytest.mark.django_db

LINE = '{"id": "h", "claim": "Paris is in France.", "facts": [{"text": "Paris is in France."}]}'
CSV = "question,contexts,answer\nWhere?,['Paris is in France.'],=HYPERLINK(\"x\")\n"
HOSTILE_FILES: dict[str, bytes] = {
    "utf-16 jsonl": LINE.encode("utf-16"),
    "utf-16-le csv, no bom": CSV.encode("utf-16-le"),
    "utf-32 csv": CSV.encode("utf-32"),
    "nul bytes": LINE.encode() + b"\x00\x00\n" + b"\x00",
    "not utf-8": b"\xff\xfe\xfd\n\xc3\x28\n" + LINE.encode(),
    "bom alone": b"\xef\xbb\xbf",
    "empty": b"",
    "deep nesting": b"[" * 100_000 + b"]" * 100_000,
    "formula csv": CSV.encode(),
    "gzip magic, not gzip": b"\x1f\x8b\x08\x00not gzip at all",
    "lone surrogate escape": b'{"claim": "\\ud800", "facts": [{"text": "\\udfff"}]}',
}
CHECK = "/v1/projects/p/locations/global/groundingConfigs/default_grounding_config:check"
API_UPLOADS = {
    "/v1/batchJobs": ("application/x-ndjson",),
    CHECK: ("application/json",),
    "/otlp/v1/traces": ("application/json", "application/x-protobuf"),
}
FORM_UPLOADS = tuple(
    name for name in WALKED if name.startswith(("batch:", "reviews:", "annotations:"))
)


@pytest.mark.parametrize("what", HOSTILE_FILES)
def test_no_hostile_file_gives_a_500_on_the_api(client: Client, what: str) -> None:
    key = ApiKey.issue("hostile-uploads")[1]
    for path, types in API_UPLOADS.items():
        for content_type in types:
            for encoding in ("", "gzip"):
                headers = {"x-goog-api-key": key}
                if encoding:
                    headers["Content-Encoding"] = encoding
                response = client.post(
                    path, HOSTILE_FILES[what], content_type=content_type, headers=headers
                )
                assert response.status_code < 500, (path, content_type, encoding)


def test_no_hostile_file_gives_a_500_on_the_upload_forms(world: World) -> None:
    forms = _forms(world)
    walked = []
    for name in FORM_UPLOADS:
        form = forms[name]()
        if not form.uploads:
            continue
        walked.append(name)
        for what, data in HOSTILE_FILES.items():
            for upload in form.uploads:
                rest: dict[str, Any] = {
                    k: v
                    for k, v in form.baseline.items()
                    if k not in form.uploads and k not in form.apart.get(upload, ())
                }
                file = SimpleUploadedFile("upload.jsonl", data, "application/octet-stream")
                status = form.client().post(form.url, {**rest, upload: file}).status_code
                assert status < 500, (name, what)
    assert {"batch:jobs", "reviews:import", "annotations:new_project"} <= set(walked)
