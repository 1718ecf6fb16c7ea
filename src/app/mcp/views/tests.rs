use serde_json::json;

use super::*;

fn call() -> ViewCall {
    ViewCall::read(&json!({
        "server": "http://127.0.0.1:9/mcp",
        "uri": "ui://get-time/mcp-app.html",
        "tool": {"name": "get-time", "description": "The time."},
        "arguments": {"zone": "UTC"},
        "result": {"content": [{"type": "text", "text": "12:00"}], "structuredContent": {"time": "12:00"}},
    }))
    .unwrap()
}

fn host(ask: bool) -> Host {
    let tool = |name: &str| McpToolInfo { name: name.into(), ask, ..McpToolInfo::default() };
    let tools = vec![tool("get-time"), McpToolInfo { for_views: false, ..tool("secret-admin") }, McpToolInfo { enabled: false, ..tool("switched-off") }];
    Host { theme: "dark".into(), locale: "en-GB".into(), time_zone: "Europe/London".into(), tools }
}

fn shown(views: &mut Views) -> u64 {
    views.handle(Msg::Shown { chat: "c1".into(), run: 2, step: 1, call: call() }, &host(false));
    let id = views.last_id();
    views.handle(Msg::Loaded { view: id }, &host(false));
    id
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn posted(todo: &[Do]) -> Vec<Value> {
    todo.iter().filter_map(|d| if let Do::Post { message, .. } = d { Some(message.clone()) } else { None }).collect()
}

#[test]
fn initialize_is_answered_and_the_input_and_result_wait_for_initialized() {
    let mut views = Views::default();
    let view = shown(&mut views);
    assert_eq!(views.of("c1", 2).len(), 1);
    let answer = posted(&views.handle(Msg::FromView { view, message: request(1, "ui/initialize", json!({"protocolVersion": PROTOCOL})) }, &host(false)));
    let result = &answer[0]["result"];
    assert_eq!((result["protocolVersion"].as_str(), result["hostContext"]["theme"].as_str()), (Some(PROTOCOL), Some("dark")));
    assert_eq!(result["hostContext"]["toolInfo"]["tool"]["name"], "get-time");
    assert!(result["hostCapabilities"]["serverTools"].is_object());
    let sent = posted(&views.handle(Msg::FromView { view, message: json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}) }, &host(false)));
    assert_eq!(sent[0], json!({"jsonrpc": "2.0", "method": "ui/notifications/tool-input", "params": {"arguments": {"zone": "UTC"}}}));
    assert_eq!(sent[1]["method"], "ui/notifications/tool-result");
    assert_eq!(sent[1]["params"]["structuredContent"]["time"], "12:00");
    assert!(posted(&views.handle(Msg::FromView { view, message: json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}) }, &host(false))).is_empty(), "sent once");
    views.handle(Msg::FromView { view, message: json!({"jsonrpc": "2.0", "method": "ui/notifications/size-changed", "params": {"height": 99999}}) }, &host(false));
    assert_eq!(views.get(view).unwrap().height, 2000);
}

#[test]
fn a_views_tool_call_goes_through_the_page_asking_first_where_the_tool_asks() {
    let mut views = Views::default();
    let view = shown(&mut views);
    // The tool runs unasked: straight through, and its answer goes back as the view's.
    let todo = views.handle(Msg::FromView { view, message: request(5, "tools/call", json!({"name": "get-time", "arguments": {}})) }, &host(false));
    assert_eq!(todo, vec![Do::Call { view, id: json!(5), name: "get-time".into(), arguments: json!({}) }]);
    let back = posted(&views.handle(Msg::Called { view, id: json!(5), outcome: Ok(json!({"content": []})) }, &host(false)));
    assert_eq!(back[0], json!({"jsonrpc": "2.0", "id": 5, "result": {"content": []}}));
    // The tool asks: the person is asked; Deny answers the view with an error.
    assert!(views.handle(Msg::FromView { view, message: request(6, "tools/call", json!({"name": "get-time"})) }, &host(true)).is_empty());
    assert!(matches!(views.get(view).unwrap().asking.front(), Some(Ask::Call { name, .. }) if name == "get-time"));
    let denied = posted(&views.handle(Msg::Answer { view, allow: false }, &host(true)));
    assert!(denied[0]["error"]["message"].as_str().unwrap().contains("did not allow"));
    views.handle(Msg::FromView { view, message: request(7, "tools/call", json!({"name": "get-time"})) }, &host(true));
    assert_eq!(views.handle(Msg::Answer { view, allow: true }, &host(true)), vec![Do::Call { view, id: json!(7), name: "get-time".into(), arguments: json!({}) }]);
    // Tools not for views, tools switched off in Settings, and tools the server does not list,
    // are refused.
    for name in ["secret-admin", "switched-off", "rm-rf"] {
        let refused = posted(&views.handle(Msg::FromView { view, message: request(8, "tools/call", json!({"name": name})) }, &host(false)));
        assert_eq!(refused[0]["error"]["code"], -32602, "{name}");
    }
}

#[test]
fn links_open_only_when_the_person_agrees_and_messages_go_to_the_composer() {
    let mut views = Views::default();
    let view = shown(&mut views);
    assert!(views.handle(Msg::FromView { view, message: request(1, "ui/open-link", json!({"url": "https://example.com/docs"})) }, &host(false)).is_empty());
    let opened = views.handle(Msg::Answer { view, allow: true }, &host(false));
    assert_eq!(opened[0], Do::Open { url: "https://example.com/docs".into() });
    let bad = posted(&views.handle(Msg::FromView { view, message: request(2, "ui/open-link", json!({"url": "javascript:alert(1)"})) }, &host(false)));
    assert_eq!(bad[0]["result"]["isError"], true);
    let said = views.handle(Msg::FromView { view, message: request(3, "ui/message", json!({"role": "user", "content": [{"type": "text", "text": "What time is it in Tokyo?"}]})) }, &host(false));
    assert_eq!(said[0], Do::Compose { text: "What time is it in Tokyo?".into() });
    views.handle(Msg::FromView { view, message: request(4, "ui/update-model-context", json!({"content": [{"type": "text", "text": "The person picked Tokyo."}]})) }, &host(false));
    assert_eq!(views.context("c1"), vec![("get-time".to_string(), "The person picked Tokyo.".to_string())]);
    let unknown = posted(&views.handle(Msg::FromView { view, message: request(5, "ui/download-file", json!({})) }, &host(false)));
    assert_eq!(unknown[0]["error"]["code"], -32601);
}

#[test]
fn a_closed_view_is_told_first_and_a_failed_one_says_why() {
    let mut views = Views::default();
    let view = shown(&mut views);
    let closing = views.handle(Msg::Close { view }, &host(false));
    let told = posted(&closing);
    assert_eq!(told[0]["method"], "ui/resource-teardown");
    assert!(closing.contains(&Do::Closing { view }));
    assert_eq!(views.get(view).unwrap().stage, Stage::Closing, "kept until it answers or its time is up");
    assert!(views.handle(Msg::Close { view }, &host(false)).is_empty(), "told once");
    // Its answer: it goes, and the page takes its frame away.
    let answered = views.handle(Msg::FromView { view, message: json!({"jsonrpc": "2.0", "id": "teardown", "result": {}}) }, &host(false));
    assert_eq!(answered, vec![Do::Remove { view }]);
    assert!(views.get(view).is_none());
    assert!(views.handle(Msg::Gone { view }, &host(false)).is_empty(), "its time up after it went: nothing more");
    // A view that never answers goes when its time is up.
    let other = shown(&mut views);
    views.handle(Msg::Close { view: other }, &host(false));
    assert_eq!(views.handle(Msg::Gone { view: other }, &host(false)), vec![Do::Remove { view: other }]);
    views.handle(Msg::Shown { chat: "c1".into(), run: 3, step: 1, call: call() }, &host(false));
    let second = views.last_id();
    views.handle(Msg::Failed { view: second, why: "the server sent no view".into() }, &host(false));
    assert_eq!(views.get(second).unwrap().stage, Stage::Failed("the server sent no view".into()));
    assert_eq!(views.handle(Msg::Close { view: second }, &host(false)), vec![Do::Remove { view: second }], "nothing to tell a view never shown");
    assert!(views.get(second).is_none());
}
