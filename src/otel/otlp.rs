//! Spans as OTLP/HTTP JSON (`ExportTraceServiceRequest`), the protobuf messages in their JSON
//! form with OTLP's own rules: trace and span ids in hex (not base64), 64-bit integers and
//! Unix nanoseconds as strings, enums as numbers, field names in lowerCamelCase.

use serde_json::{json, Value};

use super::{Attr, RunTrace, Span};

/// The request body a collector's `/v1/traces` takes, and the file Jaeger's upload opens:
/// every run given is one trace.
pub fn otlp_json(runs: &[RunTrace]) -> String {
    let spans: Vec<Value> = runs.iter().flat_map(|run| run.spans.iter().map(move |s| span_json(&run.trace_id, s))).collect();
    json!({
        "resourceSpans": [{
            "resource": {"attributes": [
                attribute("service.name", &Attr::Str("thoughtline".into())),
                attribute("service.version", &Attr::Str(env!("CARGO_PKG_VERSION").into())),
            ]},
            "scopeSpans": [{
                "scope": {"name": "thoughtline", "version": env!("CARGO_PKG_VERSION")},
                "spans": spans,
            }],
        }],
    })
    .to_string()
}

/// One run's trace, or the empty request when there is none.
pub fn otlp_json_of(run: Option<&RunTrace>) -> String {
    otlp_json(run.map(std::slice::from_ref).unwrap_or_default())
}

fn span_json(trace_id: &[u8; 16], s: &Span) -> Value {
    let mut span = json!({
        "traceId": hex(trace_id),
        "spanId": hex(&s.id),
        "name": s.name,
        "kind": s.kind as u8,
        "startTimeUnixNano": s.start_ns.to_string(),
        "endTimeUnixNano": s.end_ns.to_string(),
        "attributes": s.attributes.iter().map(|(k, v)| attribute(k, v)).collect::<Vec<_>>(),
    });
    if let Some(parent) = &s.parent {
        span["parentSpanId"] = json!(hex(parent));
    }
    if !s.events.is_empty() {
        span["events"] = s
            .events
            .iter()
            .map(|e| json!({"timeUnixNano": e.unix_ns.to_string(), "name": e.name, "attributes": e.attributes.iter().map(|(k, v)| attribute(k, v)).collect::<Vec<_>>()}))
            .collect();
    }
    if !s.links.is_empty() {
        span["links"] = s
            .links
            .iter()
            .map(|l| json!({"traceId": hex(&l.trace_id), "spanId": hex(&l.span_id), "attributes": l.attributes.iter().map(|(k, v)| attribute(k, v)).collect::<Vec<_>>()}))
            .collect();
    }
    // Status codes: 0 unset, 1 ok, 2 error.
    if let Some(message) = &s.error {
        span["status"] = json!({"code": 2, "message": message});
    }
    span
}

fn attribute(key: &str, value: &Attr) -> Value {
    json!({"key": key, "value": any_value(value)})
}

fn any_value(value: &Attr) -> Value {
    match value {
        Attr::Str(s) => json!({"stringValue": s}),
        Attr::Int(n) => json!({"intValue": n.to_string()}),
        // JSON has no NaN or infinity; a value that is neither is written as 0.
        Attr::Float(f) => json!({"doubleValue": if f.is_finite() { *f } else { 0.0 }}),
        Attr::Bool(b) => json!({"boolValue": b}),
        Attr::Strs(items) => json!({"arrayValue": {"values": items.iter().map(|s| json!({"stringValue": s})).collect::<Vec<_>>()}}),
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 15) as usize] as char);
    }
    out
}
