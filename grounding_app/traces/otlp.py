"""OTLP/HTTP trace exports on the wire: bodies in, spans out, and OTLP's own responses.

No Django here. A body is decompressed (gzip or deflate, bounded: a small body must
not expand into gigabytes), decoded as an `ExportTraceServiceRequest` in either OTLP
encoding, and its spans turned into plain `attributes.Span`s with their resource's
`service.name`. OTLP's JSON encoding differs from protobuf's canonical JSON in one way
that matters: trace and span ids are hex strings, not base64, so they are converted
before `json_format` reads the message; lowerCamelCase and snake_case names are both
read, and unknown fields ignored, as the specification asks of receivers.

Reading is bounded and never loses an export to one span: spans past `max_spans` are
cut before they are read (the caller refuses them in a partial success), and text that
PostgreSQL cannot store (a NUL character, in any name, key or value) or JSON cannot
hold (a NaN or infinite double) is replaced in the span that has it, so one such span
never costs the others their place.

Responses follow the OTLP/HTTP specification: 200 with an `ExportTraceServiceResponse`
(`partial_success` naming the rejected spans), and a `google.rpc.Status` body for every
4xx and 5xx, both in the encoding the request used.
"""

from __future__ import annotations

import base64
import json
import math
import zlib
from collections import Counter
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import DecodeError
from google.rpc import code_pb2, status_pb2
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from grounding_app.formats.check_grounding import json_int
from grounding_app.traces.attributes import Event, Span

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
ENCODINGS = (PROTOBUF, JSON)
UNKNOWN_SERVICE = "unknown_service"
MAX_ATTRIBUTE_DEPTH = 8
INVALID_ID = "an invalid trace or span id"
OVER_EXPORT_LIMIT = "past TRACES_MAX_EXPORT_SPANS in one export; send smaller batches"
# What stands in for a NUL: PostgreSQL's text and jsonb refuse U+0000.
NUL_REPLACEMENT = "\ufffd"

CODES = {
    400: code_pb2.INVALID_ARGUMENT,
    401: code_pb2.UNAUTHENTICATED,
    403: code_pb2.PERMISSION_DENIED,
    405: code_pb2.UNIMPLEMENTED,
    413: code_pb2.RESOURCE_EXHAUSTED,
    415: code_pb2.INVALID_ARGUMENT,
    429: code_pb2.RESOURCE_EXHAUSTED,
    500: code_pb2.INTERNAL,
    503: code_pb2.UNAVAILABLE,
}


class Malformed(ValueError):
    """The body is not an export request in the encoding it claims (400)."""


class TooLarge(ValueError):
    """The body, once decompressed, is over the limit (413)."""


def encoding_of(content_type: str) -> str | None:
    """PROTOBUF or JSON for a Content-Type header (parameters ignored), else None."""
    media = content_type.split(";", 1)[0].strip().lower()
    return media if media in ENCODINGS else None


def decompress(body: bytes, content_encoding: str, limit: int) -> bytes:
    """The body without its Content-Encoding (gzip, deflate or none), at most `limit`
    bytes; raises TooLarge past it, Malformed for a broken stream or an unknown coding."""
    coding = content_encoding.strip().lower()
    if coding in ("", "identity"):
        if len(body) > limit:
            raise TooLarge(f"the body is {len(body):,} bytes; at most {limit:,}.")
        return body
    if coding == "gzip":
        wbits = 16 + zlib.MAX_WBITS
    elif coding == "deflate":  # zlib-wrapped as HTTP means it; raw deflate read too
        wbits = zlib.MAX_WBITS if body[:1] == b"\x78" else -zlib.MAX_WBITS
    else:
        raise Malformed(f"Content-Encoding {coding!r} is not supported: use gzip or none.")
    stream = zlib.decompressobj(wbits)
    try:
        out = stream.decompress(body, limit + 1)
    except zlib.error as exc:
        raise Malformed(f"the {coding} body cannot be decompressed ({exc}).") from exc
    if len(out) > limit:
        raise TooLarge(f"the body decompresses to more than {limit:,} bytes.")
    if not stream.eof:
        raise Malformed(f"the {coding} body ends before its stream does.")
    return out


_ID_FIELDS = ("traceId", "trace_id", "spanId", "span_id", "parentSpanId", "parent_span_id")


def _hex_ids_to_base64(item: dict[str, Any]) -> None:
    for key in _ID_FIELDS:
        value = item.get(key)
        if isinstance(value, str) and value:
            try:
                item[key] = base64.b64encode(bytes.fromhex(value)).decode()
            except ValueError as exc:
                raise Malformed(f"{key} {value[:40]!r} is not a hex string.") from exc


def _children(data: Any, *names: str) -> list[dict[str, Any]]:
    """The objects listed under the first of `names` that `data` has (JSON may name a
    field in lowerCamelCase or as in the .proto)."""
    if not isinstance(data, dict):
        return []
    for name in names:
        value = data.get(name)
        if isinstance(value, list):
            return [item for item in value if isinstance(item, dict)]
    return []


@dataclass(frozen=True)
class Parsed:
    request: ExportTraceServiceRequest
    over: int  # spans cut past max_spans, unread


def _cut(lists: list[Any], max_spans: int) -> int:
    """Delete the spans past the first `max_spans` from each list (protobuf repeated
    fields or JSON lists, in order); returns how many were deleted."""
    room, cut = max_spans, 0
    for spans in lists:
        if len(spans) > room:
            cut += len(spans) - room
            del spans[room:]
        room -= len(spans)
    return cut


def parse(body: bytes, encoding: str, max_spans: int) -> Parsed:
    """The export request in `body`, cut to its first `max_spans` spans (a JSON body is
    cut before protobuf reads it, the slow part); raises Malformed saying why it is not
    one."""
    request = ExportTraceServiceRequest()
    if encoding == PROTOBUF:
        try:
            request.ParseFromString(body)
        except (DecodeError, RecursionError) as exc:
            raise Malformed(f"the body is not an ExportTraceServiceRequest ({exc}).") from exc
        lists = [scope.spans for rs in request.resource_spans for scope in rs.scope_spans]
        return Parsed(request, _cut(lists, max_spans))
    try:
        data = json.loads(body, parse_int=json_int)
    except (ValueError, RecursionError) as exc:
        raise Malformed(f"the body is not JSON ({exc}).") from exc
    if not isinstance(data, dict):
        raise Malformed("the body is not a JSON object.")
    lists = [
        scope["spans"]
        for resource in _children(data, "resourceSpans", "resource_spans")
        for scope in _children(resource, "scopeSpans", "scope_spans")
        if isinstance(scope.get("spans"), list)
    ]
    over = _cut(lists, max_spans)
    for found in lists:
        for span in found:
            if isinstance(span, dict):
                _hex_ids_to_base64(span)
                for link in _children(span, "links"):
                    _hex_ids_to_base64(link)
    try:
        json_format.ParseDict(data, request, ignore_unknown_fields=True)
    except (json_format.ParseError, OverflowError, RecursionError, TypeError, ValueError) as exc:
        # OverflowError: a double field given an integer past any double (10**4000)
        raise Malformed(f"the body is not an ExportTraceServiceRequest ({exc}).") from exc
    except SystemError as exc:  # upb's enum lookup of a name holding a lone surrogate
        raise Malformed(
            "the body is not an ExportTraceServiceRequest (an enum name that is not UTF-8)."
        ) from exc
    return Parsed(request, over)


def clean(text: str) -> str:
    """`text` with each NUL replaced (PostgreSQL stores no U+0000 in text or jsonb)."""
    return text.replace("\x00", NUL_REPLACEMENT) if "\x00" in text else text


def value_of(value: AnyValue, depth: int = 0) -> Any:
    """An OTLP AnyValue as plain Python (bytes as hex; nesting bounded)."""
    which = value.WhichOneof("value")
    if which is None or depth > MAX_ATTRIBUTE_DEPTH:
        return None
    if which == "array_value":
        return [value_of(v, depth + 1) for v in value.array_value.values]
    if which == "kvlist_value":
        return {clean(kv.key): value_of(kv.value, depth + 1) for kv in value.kvlist_value.values}
    if which == "bytes_value":
        return value.bytes_value.hex()
    if which == "string_value":
        return clean(value.string_value)
    if which == "double_value" and not math.isfinite(value.double_value):
        return str(value.double_value)  # "nan", "inf": JSON, and jsonb, have no such number
    return getattr(value, which)


def attributes_of(pairs: Any) -> dict[str, Any]:
    return {clean(kv.key): value_of(kv.value) for kv in pairs if isinstance(kv, KeyValue)}


@dataclass(frozen=True)
class Received:
    service: str
    span: Span


def spans(request: ExportTraceServiceRequest) -> tuple[list[Received], Counter[str]]:
    """Every span with a valid trace and span id, with its service's name, and per
    service the spans rejected for an invalid id (OTLP: 16 and 8 bytes, not all zero)."""
    out: list[Received] = []
    invalid: Counter[str] = Counter()
    for resource_spans in request.resource_spans:
        resource = attributes_of(resource_spans.resource.attributes)
        service = str(resource.get("service.name") or UNKNOWN_SERVICE)[:200]
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                if (
                    len(span.trace_id) != 16
                    or len(span.span_id) != 8
                    or not any(span.trace_id)
                    or not any(span.span_id)
                ):
                    invalid[service] += 1
                    continue
                out.append(Received(service, _span(span)))
    return out, invalid


def _span(span: Any) -> Span:
    return Span(
        trace_id=span.trace_id.hex(),
        span_id=span.span_id.hex(),
        parent_id=span.parent_span_id.hex() if any(span.parent_span_id) else "",
        name=clean(span.name),
        start_ns=int(span.start_time_unix_nano),
        end_ns=int(span.end_time_unix_nano),
        attributes=attributes_of(span.attributes),
        events=tuple(Event(clean(e.name), attributes_of(e.attributes)) for e in span.events),
    )


def _encode(message: Any, encoding: str) -> bytes:
    if encoding == JSON:
        return json_format.MessageToJson(message, indent=None).encode()
    return bytes(message.SerializeToString())


def export_response(encoding: str, rejected: int = 0, message: str = "") -> bytes:
    """A 200's body: empty success, or partial success naming the rejected spans."""
    response = ExportTraceServiceResponse()
    if rejected or message:
        response.partial_success.rejected_spans = rejected
        response.partial_success.error_message = message.encode("utf-8", "replace").decode()
    return _encode(response, encoding)


def status_response(encoding: str, http_status: int, message: str) -> bytes:
    """A 4xx or 5xx body: google.rpc.Status with the code that fits the HTTP status.
    A message quoting the export may hold a lone surrogate, which protobuf refuses."""
    message = message.encode("utf-8", "replace").decode("utf-8")
    status = status_pb2.Status(code=CODES.get(http_status, code_pb2.UNKNOWN), message=message)
    return _encode(status, encoding)
