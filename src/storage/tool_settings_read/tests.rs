//! The tools' settings read back: each struct's own defaults for missing fields (the MCP
//! server's 30 s against `Common`'s 15 s), the secret never read from here, the stored names,
//! and errors. (Random values round-trip in `storage/read/tests.rs`.)

use serde_json::json;

use super::*;

fn read<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, String> {
    serde_json::from_str::<T>(json).map_err(|e| e.to_string())
}

#[test]
fn empty_objects_read_as_each_structs_default() {
    assert_eq!(read::<ToolSettings>("{}"), Ok(ToolSettings::default()));
    assert_eq!(read::<Common>("{}"), Ok(Common::default()));
    assert_eq!(read::<WikipediaSettings>("{}"), Ok(WikipediaSettings::default()));
    assert_eq!(read::<ArxivSettings>("{}"), Ok(ArxivSettings::default()));
    assert_eq!(read::<WebSearchSettings>("{}"), Ok(WebSearchSettings::default()));
    assert_eq!(read::<McpSettings>("{}"), Ok(McpSettings::default()));
    assert_eq!(read::<McpServer>("{}"), Ok(McpServer::default()));
    assert_eq!(read::<McpToolInfo>("{}"), Ok(McpToolInfo::default()));
    assert_eq!(read::<RememberedSecret>("{}"), Ok(RememberedSecret::default()));
}

#[test]
fn a_missing_part_takes_its_holders_default() {
    let server: McpServer = read(r#"{"url":"https://x.org/mcp"}"#).unwrap();
    assert_eq!(server.common.timeout_s, 30.0, "McpServer::default()'s limit");
    let server: McpServer = read(r#"{"common":{"enabled":false}}"#).unwrap();
    assert_eq!(server.common, Common { enabled: false, ..Common::default() }, "inside common: Common's own 15 s");
    let tool: McpToolInfo = read(r#"{"name":"t"}"#).unwrap();
    assert!(tool.enabled, "a listed tool starts switched on");
    assert_eq!(tool.input_schema, serde_json::Value::Null);
    let arxiv: ArxivSettings = read(r#"{"max_results":2}"#).unwrap();
    assert_eq!(arxiv.openalex_url, "https://api.openalex.org");
    let tools: ToolSettings = read(r#"{"wikipedia":{"lang":"de"},"web_search":{"backend":"searx"}}"#).unwrap();
    assert_eq!((tools.wikipedia.lang.as_str(), tools.wikipedia.results), ("de", WikipediaSettings::default().results));
    assert_eq!(tools.web_search.backend, SearchBackend::Searx);
    assert_eq!(read::<SearchBackend>(r#"{"duck_duck_go":null}"#), Ok(SearchBackend::DuckDuckGo));
}

#[test]
fn a_server_never_takes_its_secret_from_the_settings() {
    let server: McpServer = read(r#"{"url":"u","secret":"sk-in-the-settings","remember_secret":true}"#).unwrap();
    assert_eq!(server.secret, "");
    assert!(server.remember_secret);
}

#[test]
fn wrong_fields_are_errors_that_name_them_and_quote_no_secret() {
    let cases = [
        (json!({"mcp": {"servers": [{}, {"tools": [{"enabled": "yes"}]}]}}), "mcp.servers[1].tools[0].enabled: expected true or false"),
        (json!({"wikipedia": {"results": 4294967296u64}}), "wikipedia.results: expected a whole number"),
        (json!({"web_search": {"backend": "bing"}}), "web_search.backend: unknown search backend"),
        (json!({"calculator": {"timeout_s": null}}), "calculator.timeout_s: expected a number"),
        (json!({"cors_proxy": ["x"]}), "cors_proxy: expected a string"),
    ];
    for (input, want) in cases {
        let error = tool_settings(&input).unwrap_err().to_string();
        assert!(error.starts_with(want), "{input}: {error}");
    }
    let error = remembered_secret(&json!({"url": "u", "secret": ["sk-123"]})).unwrap_err().to_string();
    assert_eq!(error, "secret: expected a string");
}
