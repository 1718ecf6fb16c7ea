"""Reads OTLP/HTTP JSON trace files with OpenTelemetry's own protobuf definitions
(the `opentelemetry-proto` package), not with Thoughtline's code, and checks what every trace
must hold. Usage: python read.py FILE... ; exits non-zero naming the first file that fails.

OTLP's JSON differs from protobuf's standard JSON mapping in one way: trace and span ids are
hex, not base64. They are turned into bytes here, then the whole request goes through
`json_format.ParseDict`, which refuses unknown fields, wrong types and bad enum values.
"""
import json
import sys

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status


def hex_ids_as_base64(request):
    import base64

    for resource in request.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        raw = bytes.fromhex(span[key])
                        span[key] = base64.b64encode(raw).decode()
    return request


def attributes(items):
    out = {}
    for kv in items:
        value = kv.value
        kind = value.WhichOneof("value")
        if kind == "array_value":
            out[kv.key] = [v.string_value for v in value.array_value.values]
        else:
            out[kv.key] = getattr(value, kind)
    return out


def check(path):
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    request = ExportTraceServiceRequest()
    json_format.ParseDict(hex_ids_as_base64(raw), request, ignore_unknown_fields=False)
    spans = [s for r in request.resource_spans for ss in r.scope_spans for s in ss.spans]
    if not spans:
        return f"{path}: no spans"
    by_id = {s.span_id: s for s in spans}
    roots = [s for s in spans if not s.parent_span_id]
    if len(roots) != len({s.trace_id for s in spans}):
        return f"{path}: {len(roots)} roots for {len({s.trace_id for s in spans})} traces"
    for s in spans:
        if len(s.trace_id) != 16 or len(s.span_id) != 8:
            return f"{path}: span {s.name!r} has ids of {len(s.trace_id)} and {len(s.span_id)} bytes"
        if s.start_time_unix_nano > s.end_time_unix_nano or s.start_time_unix_nano < 1_600_000_000 * 10**9:
            return f"{path}: span {s.name!r} has times {s.start_time_unix_nano}..{s.end_time_unix_nano}"
        a = attributes(s.attributes)
        op = a.get("gen_ai.operation.name")
        if s.parent_span_id:
            parent = by_id.get(s.parent_span_id)
            if parent is None or parent.trace_id != s.trace_id:
                return f"{path}: span {s.name!r} has no parent in its trace"
            if not (parent.start_time_unix_nano <= s.start_time_unix_nano and s.end_time_unix_nano <= parent.end_time_unix_nano):
                return f"{path}: span {s.name!r} is not inside {parent.name!r}"
        elif op != "invoke_agent" or s.kind != Span.SPAN_KIND_INTERNAL:
            return f"{path}: the root {s.name!r} is not an internal invoke_agent span"
        if op == "chat":
            if s.kind != Span.SPAN_KIND_CLIENT or not s.name.startswith("chat"):
                return f"{path}: model call {s.name!r} is not a CLIENT chat span"
            if s.status.code != Status.STATUS_CODE_ERROR and "gen_ai.usage.input_tokens" in a and not isinstance(a["gen_ai.usage.input_tokens"], int):
                return f"{path}: {s.name!r} has token usage that is not an integer"
        if op == "execute_tool" and (s.name != f"execute_tool {a.get('gen_ai.tool.name')}" or not a.get("gen_ai.tool.call.id")):
            return f"{path}: tool span {s.name!r} lacks its tool name or call id"
    return None


def main():
    paths = sys.argv[1:]
    if not paths:
        print("usage: read.py FILE...", file=sys.stderr)
        return 2
    for path in paths:
        problem = check(path)
        if problem:
            print(problem, file=sys.stderr)
            return 1
        print(f"read {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
