use super::*;
use crate::tools::mcp::{McpToolInfo, ServerInfo};

fn info(name: &str) -> ServerInfo {
    ServerInfo { name: name.into(), protocol: "2025-06-18".into(), lists_changes: false, instructions: String::new(), offers_resources: false, offers_prompts: false }
}

const URL: &str = "http://127.0.0.1:9/mcp";

#[test]
fn a_row_never_says_connected_about_a_session_the_server_forgot() {
    let mut lines = StatusLines::default();
    assert_eq!(lines.of(URL), None);
    // Connect waits for the tools too: the session alone changes nothing.
    lines.set(URL, true, CONNECTING.into());
    assert!(!lines.connection(URL, McpState::Connected(info("weather"))));
    assert_eq!(lines.of(URL), Some((true, CONNECTING.into())));
    lines.set(URL, true, "Connected to weather (MCP 2025-06-18): 3 tools.".into());
    assert!(lines.connection(URL, McpState::Reconnecting));
    assert_eq!(lines.of(URL), Some((true, RECONNECTING.into())));
    lines.connection(URL, McpState::Connected(info("")));
    assert_eq!(lines.of(URL), Some((true, "Reconnected to the server (MCP 2025-06-18) in a new session.".into())));
    lines.connection(URL, McpState::Failed("refused".into()));
    assert_eq!(lines.of(URL), Some((false, "refused".into())));
    lines.set("other", true, "x".into());
    assert_eq!(lines.of(URL), Some((false, "refused".into())), "one line per server");
}

fn server(url: &str, tools: &[&str]) -> McpServer {
    let mut s = McpServer { url: url.into(), ..Default::default() };
    s.common.enabled = true;
    s.tools = tools.iter().map(|n| McpToolInfo { name: n.to_string(), title: String::new(), description: String::new(), input_schema: serde_json::Value::Null, ask: true, ..McpToolInfo::default() }).collect();
    s
}

#[test]
fn always_allow_stops_that_tool_asking_in_the_settings_as_they_are_now() {
    let run = McpSettings { servers: vec![server(URL, &["forecast", "alerts"])] };
    // Since the run started, the person added a server above it: found by address, not place.
    let mut now = McpSettings { servers: vec![server("http://127.0.0.1:8/mcp", &["forecast"]), server(URL, &["forecast", "alerts"])] };
    assert!(allow_always(&mut now, &run, "forecast"));
    assert!(now.servers[0].tools[0].ask, "the other server's tool of the same name still asks");
    assert!(!now.servers[1].tools[0].ask);
    assert!(now.servers[1].tools[1].ask, "only that tool");
    assert!(!allow_always(&mut now, &run, "forecast"), "already allowed");
    assert!(!allow_always(&mut now, &run, "no_such_tool"));
}

#[test]
fn the_hub_is_made_once_and_nothing_is_let_go_before_it_is() {
    let mut life = HubLife::default();
    assert!(life.made().is_none());
    life.servers_now(&[]);
    life.page_gone();
    struct NoFetch;
    impl crate::net::Fetch for NoFetch {
        fn get<'a>(&'a self, _: &'a str, _: &'a [(String, String)]) -> crate::agent::LocalBoxFuture<'a, Result<crate::net::HttpResponse, crate::net::FetchFailed>> {
            Box::pin(async { Err(crate::net::FetchFailed("offline".into())) })
        }
        fn open<'a>(&'a self, _: crate::net::HttpRequest<'a>) -> crate::agent::LocalBoxFuture<'a, Result<Box<dyn crate::net::Streaming>, crate::net::FetchFailed>> {
            Box::pin(async { Err(crate::net::FetchFailed("offline".into())) })
        }
    }
    let mut made = 0;
    for _ in 0..3 {
        life.hub(|| {
            made += 1;
            McpHub::new(Rc::new(NoFetch), Rc::new(|_: &str| {}), Rc::new(|_: &str, _: McpState| {}))
        });
    }
    assert_eq!(made, 1);
    assert!(life.made().is_some());
}
