"""File downloads the pages offer (exports of reviews, labels and batch jobs): one place
that names the attachment, so every export streams and is saved the same way."""

from __future__ import annotations

from collections.abc import Iterable

from django.http import StreamingHttpResponse


def download(lines: Iterable[str], filename: str, content_type: str) -> StreamingHttpResponse:
    """`lines` streamed as a file the browser saves as `filename`."""
    response = StreamingHttpResponse(lines, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
