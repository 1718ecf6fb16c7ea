use serde_json::json;

use super::*;

#[test]
fn a_tool_names_its_view_and_who_may_call_it() {
    let t = tool_view(&json!({"name": "get-time", "_meta": {"ui": {"resourceUri": "ui://get-time/mcp-app.html"}}}));
    assert_eq!(t, ToolView { uri: "ui://get-time/mcp-app.html".into(), model: true, app: true });
    let legacy = tool_view(&json!({"_meta": {"ui/resourceUri": "ui://old/view.html"}}));
    assert_eq!(legacy.uri, "ui://old/view.html");
    let app_only = tool_view(&json!({"_meta": {"ui": {"resourceUri": "ui://x/v", "visibility": ["app"]}}}));
    assert_eq!((app_only.model, app_only.app), (false, true));
    assert_eq!(tool_view(&json!({"_meta": {"ui": {"resourceUri": "https://elsewhere.example/v.html"}}})).uri, "", "only ui:// resources");
    assert_eq!(tool_view(&json!({"name": "plain"})), ToolView { uri: String::new(), model: true, app: true });
}

#[test]
fn a_view_is_read_with_the_origins_it_declared_and_nothing_else() {
    let result = json!({"contents": [
        {"uri": "ui://a/icon", "mimeType": "image/png", "blob": "AAAA"},
        {"uri": "ui://a/view", "mimeType": "text/html;profile=mcp-app", "text": "<!doctype html><p>hi</p>",
         "_meta": {"ui": {"prefersBorder": true, "csp": {
            "connectDomains": ["https://api.example.com", "https://x.example.com/path", "'unsafe-eval'", "https://a.example.com; script-src *"],
            "resourceDomains": ["https://*.cdn.example.com", "wss://nope.example.com:8443", "javascript:alert(1)"]}}}}
    ]});
    let view = read_view(&result).unwrap();
    assert_eq!(view.html, "<!doctype html><p>hi</p>");
    assert_eq!(view.prefers_border, Some(true));
    assert_eq!(view.csp.connect, vec!["https://api.example.com".to_string()], "paths, keywords and injections are left out");
    assert_eq!(view.csp.resources, vec!["https://*.cdn.example.com".to_string(), "wss://nope.example.com:8443".to_string()]);
    let policy = view.csp.policy();
    assert!(policy.contains("connect-src https://api.example.com;"), "{policy}");
    assert!(policy.contains("frame-src 'none'") && policy.contains("base-uri 'none'") && policy.starts_with("default-src 'none'"), "{policy}");
    // Declared nothing: no network at all.
    let bare = Csp::default().policy();
    assert!(bare.contains("connect-src 'none'") && bare.contains("img-src blob: data:;"), "{bare}");
    // Base64, and the failures.
    let b64 = json!({"contents": [{"mimeType": "text/html;profile=mcp-app", "blob": "PHA+aGk8L3A+"}]});
    assert_eq!(read_view(&b64).unwrap().html, "<p>hi</p>");
    assert!(read_view(&json!({"contents": [{"mimeType": "text/html", "text": "x"}]})).unwrap_err().contains("sent text/html"));
    let huge = json!({"contents": [{"mimeType": MIME, "text": "x".repeat(VIEW_LIMIT + 1)}]});
    assert!(read_view(&huge).unwrap_err().contains("more than"));
}

#[test]
fn the_policy_comes_before_anything_of_the_servers() {
    let policy = "default-src 'none'";
    assert_eq!(with_policy("<!DOCTYPE html>\n<html><script>x()</script>", policy), "<!DOCTYPE html><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\">\n<html><script>x()</script>");
    assert_eq!(with_policy("\u{feff} <script>x()</script>", policy), "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\"><script>x()</script>");
}
