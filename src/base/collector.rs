//! Where finished runs go: an OpenTelemetry collector's endpoint and the one header that
//! authorises it (`otel::send` posts to it; storage keeps it with the settings). The header's
//! value is a secret like an API key and belongs to the endpoint's origin.

use serde::Serialize;

use super::url::origin;

/// Where finished runs go. An empty endpoint sends nothing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Collector {
    /// The traces endpoint, e.g. `http://localhost:4318/v1/traces`; an address with no path
    /// gets `/v1/traces`.
    pub endpoint: String,
    /// E.g. `Authorization`; empty sends no header.
    pub header_name: String,
    /// E.g. `Basic …` for Langfuse. Secret.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub header_value: String,
}

impl Default for Collector {
    fn default() -> Self {
        Collector { endpoint: String::new(), header_name: "Authorization".into(), header_value: String::new() }
    }
}

impl Collector {
    pub fn is_on(&self) -> bool {
        !self.endpoint.trim().is_empty()
    }

    /// Points the endpoint at `url`. The header was entered for the old endpoint's origin: it
    /// does not follow to another one.
    pub fn set_endpoint(&mut self, url: &str) {
        if origin(url) != origin(&self.endpoint) {
            self.header_value.clear();
        }
        self.endpoint = url.trim().to_string();
    }

    /// The URL posted to: the endpoint as given, `/v1/traces` added to a bare address.
    pub fn url(&self) -> String {
        let url = self.endpoint.trim();
        let path_start = url.find("://").map_or(0, |i| i + 3);
        match url[path_start..].find('/') {
            None => format!("{url}/v1/traces"),
            Some(i) if url[path_start + i..] == *"/" => format!("{url}v1/traces"),
            Some(_) => url.to_string(),
        }
    }

    pub fn headers(&self) -> Vec<(String, String)> {
        let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
        if !self.header_name.trim().is_empty() && !self.header_value.is_empty() {
            headers.push((self.header_name.trim().to_string(), self.header_value.clone()));
        }
        headers
    }
}
