use std::cell::RefCell;

use super::*;
use crate::agent::LocalBoxFuture;
use crate::net::{FetchFailed, HttpResponse};

/// Answers each address it knows; 404 for the others; records what was asked.
#[derive(Default)]
struct Web {
    pages: Vec<(String, u16, String)>,
    /// Addresses that answer, but not to this page (no CORS headers).
    no_cors: Vec<String>,
    asked: RefCell<Vec<String>>,
}

impl Web {
    fn page(mut self, url: &str, status: u16, body: &str) -> Self {
        self.pages.push((url.into(), status, body.into()));
        self
    }
}

impl Fetch for Web {
    fn get<'a>(&'a self, url: &'a str, _headers: &'a [(String, String)]) -> LocalBoxFuture<'a, Result<HttpResponse, FetchFailed>> {
        self.asked.borrow_mut().push(url.to_string());
        let answer = if self.no_cors.iter().any(|u| u == url) {
            Err(FetchFailed("TypeError: Failed to fetch".into()))
        } else {
            let found = self.pages.iter().find(|(u, _, _)| u == url);
            Ok(found.map_or(HttpResponse { status: 404, body: "no".into(), retry_after: None }, |(_, status, body)| HttpResponse { status: *status, body: body.clone(), retry_after: None }))
        };
        Box::pin(async move { answer })
    }
    fn open<'a>(&'a self, request: crate::net::HttpRequest<'a>) -> LocalBoxFuture<'a, Result<Box<dyn crate::net::Streaming>, FetchFailed>> {
        Box::pin(async move { Err(FetchFailed(format!("unexpected {} {}", request.method, request.url))) })
    }
    fn reachable<'a>(&'a self, url: &'a str) -> LocalBoxFuture<'a, Option<bool>> {
        let answers = self.no_cors.iter().any(|u| u == url);
        Box::pin(async move { Some(answers) })
    }
}

const MCP: &str = "https://mcp.example.com/mcp";
const PRM: &str = r#"{"resource": "https://mcp.example.com/mcp", "authorization_servers": ["https://auth.example.com/t1"], "scopes_supported": ["mcp"]}"#;

fn issuer_metadata(issuer: &str) -> String {
    format!(r#"{{"issuer": "{issuer}", "authorization_endpoint": "{issuer}/authorize", "token_endpoint": "{issuer}/token", "code_challenge_methods_supported": ["S256"]}}"#)
}

#[test]
fn discovery_follows_the_well_known_addresses_in_order() {
    let web = Web::default()
        .page("https://mcp.example.com/.well-known/oauth-protected-resource", 200, PRM)
        .page("https://auth.example.com/t1/.well-known/openid-configuration", 200, &issuer_metadata("https://auth.example.com/t1"));
    let found = pollster::block_on(discover(&web, MCP, None)).unwrap();
    assert_eq!(found.resource, MCP);
    assert_eq!(found.server.token_endpoint, "https://auth.example.com/t1/token");
    assert_eq!(found.scope.as_deref(), Some("mcp"));
    assert_eq!(
        *web.asked.borrow(),
        [
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
            "https://mcp.example.com/.well-known/oauth-protected-resource",
            "https://auth.example.com/.well-known/oauth-authorization-server/t1",
            "https://auth.example.com/.well-known/openid-configuration/t1",
            "https://auth.example.com/t1/.well-known/openid-configuration",
        ]
    );
}

#[test]
fn the_challenge_s_metadata_address_and_scope_come_first() {
    let web = Web::default()
        .page("https://mcp.example.com/prm", 200, PRM)
        .page("https://auth.example.com/.well-known/oauth-authorization-server/t1", 200, &issuer_metadata("https://auth.example.com/t1"));
    let asked = Challenge { resource_metadata: Some("https://mcp.example.com/prm".into()), scope: Some("files".into()), ..Default::default() };
    let found = pollster::block_on(discover(&web, MCP, Some(&asked))).unwrap();
    assert_eq!(found.scope.as_deref(), Some("files"));
    assert_eq!(web.asked.borrow().len(), 2);
}

#[test]
fn what_went_wrong_is_said_with_what_the_server_must_do() {
    // Metadata the page cannot read: the server answers, without CORS headers for this page.
    let web = Web { no_cors: vec!["https://mcp.example.com/.well-known/oauth-protected-resource".into()], ..Default::default() };
    let said = pollster::block_on(discover(&web, MCP, None)).unwrap_err().0;
    assert!(said.contains("oauth-protected-resource/mcp answered HTTP 404"), "{said}");
    assert!(said.contains("must send Access-Control-Allow-Origin for this page's origin (CORS)"), "{said}");
    // The authorization server says it is another issuer.
    let web = Web::default()
        .page("https://mcp.example.com/.well-known/oauth-protected-resource/mcp", 200, PRM)
        .page("https://auth.example.com/.well-known/oauth-authorization-server/t1", 200, &issuer_metadata("https://evil.example"));
    let said = pollster::block_on(discover(&web, MCP, None)).unwrap_err().0;
    assert!(said.contains("wrong issuer"), "{said}");
    assert_eq!(web.asked.borrow().len(), 2, "a wrong answer ends the search");
    // A challenge that names metadata which is not there.
    let asked = Challenge { resource_metadata: Some("https://mcp.example.com/prm".into()), ..Default::default() };
    let said = pollster::block_on(discover(&Web::default(), MCP, Some(&asked))).unwrap_err().0;
    assert!(said.starts_with("This server asks for a sign-in, but its protected resource metadata could not be found"), "{said}");
    // No resource metadata, and an authorization server at the origin that cannot be read.
    let web = Web::default().page("https://mcp.example.com/.well-known/oauth-authorization-server", 500, "down");
    let said = pollster::block_on(discover(&web, MCP, None)).unwrap_err().0;
    assert!(said.starts_with("This server asks for a sign-in, but neither its protected resource metadata nor an authorization server at its origin could be found"), "{said}");
    assert!(said.contains("oauth-authorization-server answered HTTP 500"), "{said}");
}

#[test]
fn a_server_of_the_earlier_revision_is_its_own_authorization_server() {
    // Its metadata at its origin's well-known address, its issuer on that origin.
    let web = Web::default().page("https://mcp.example.com/.well-known/oauth-authorization-server", 200, &issuer_metadata("https://mcp.example.com/oauth"));
    let found = pollster::block_on(discover(&web, MCP, None)).unwrap();
    assert_eq!((found.resource.as_str(), found.server.token_endpoint.as_str(), found.scope), (MCP, "https://mcp.example.com/oauth/token", None));
    assert_eq!(found.server.issuer, "https://mcp.example.com/oauth");
    // An issuer on another origin is refused there as anywhere.
    let web = Web::default().page("https://mcp.example.com/.well-known/oauth-authorization-server", 200, &issuer_metadata("https://evil.example"));
    assert!(pollster::block_on(discover(&web, MCP, None)).unwrap_err().0.contains("wrong issuer"));
    // No metadata anywhere: the paths that revision set, at the origin.
    let found = pollster::block_on(discover(&Web::default(), MCP, None)).unwrap();
    assert_eq!(found.server.authorization_endpoint, "https://mcp.example.com/authorize");
    assert_eq!(found.server.token_endpoint, "https://mcp.example.com/token");
    assert_eq!(found.server.registration_endpoint.as_deref(), Some("https://mcp.example.com/register"));
}
