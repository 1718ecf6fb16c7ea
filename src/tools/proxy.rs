//! Routing of requests to services that do not allow browser requests: the CORS proxy
//! template, the same-origin dev proxy and how to tell that it is missing.

use super::*;

pub(super) const ARXIV_API: &str = "https://export.arxiv.org";
pub(super) const DDG_API: &str = "https://api.duckduckgo.com";
/// Same-origin paths that `trunk serve` forwards (the [[proxy]] entries in Trunk.toml).
/// Relative, so they resolve against the page wherever it is served.
pub(super) const DEV_PROXY_ARXIV: (&str, &str) = ("https://export.arxiv.org/api/", "proxy/arxiv/");
pub(super) const DEV_PROXY_DDG: (&str, &str) = ("https://api.duckduckgo.com/", "proxy/ddg/");

/// The dev-proxy address of a request meant for `api_root`.
pub(super) fn via_dev_proxy(url: &str, (api_root, proxy_path): (&str, &str)) -> String {
    format!("{proxy_path}{}", url.strip_prefix(api_root).unwrap_or(url))
}

/// Fills a proxy template with the encoded target URL.
pub fn proxied(template: &str, url: &str) -> String {
    let encoded = text::encode_component(url);
    if template.contains("{url}") {
        template.replace("{url}", &encoded)
    } else {
        format!("{template}{encoded}")
    }
}

/// Whether a same-origin dev-proxy answer means "there is no proxy here" (a static host's 404
/// page) rather than an answer from the service.
pub(super) fn no_dev_proxy(resp: &HttpResponse) -> bool {
    resp.status == 404 || (resp.status == 200 && text::looks_like_html(&resp.body) && !resp.body.contains("<feed"))
}

/// Where a request to a service that blocks browser requests got to.
pub(super) enum Routed {
    /// The service's answer, through the CORS proxy or the dev proxy.
    Answer(HttpResponse),
    /// The CORS proxy set in Settings could not be reached.
    ProxyFailed(FetchFailed),
    /// No way through: no CORS proxy is set, and there is no dev proxy (a static deployment).
    NoRoute,
}

/// The ladder for a service that blocks browser requests: the CORS proxy when one is set,
/// else the dev proxy unless it already turned out to be absent (remembered in
/// `dev_proxy_missing`, so a static deployment asks only once). `get` fetches one address.
pub(super) async fn route_around_cors<F, Fut>(direct_url: &str, cors_proxy: &str, dev_proxy: (&str, &str), dev_proxy_missing: &Cell<bool>, get: F) -> Routed
where
    F: Fn(String) -> Fut,
    Fut: std::future::Future<Output = Result<HttpResponse, FetchFailed>>,
{
    if !cors_proxy.trim().is_empty() {
        return match get(proxied(cors_proxy.trim(), direct_url)).await {
            Ok(resp) => Routed::Answer(resp),
            Err(e) => Routed::ProxyFailed(e),
        };
    }
    if !dev_proxy_missing.get() {
        match get(via_dev_proxy(direct_url, dev_proxy)).await {
            Ok(resp) if !no_dev_proxy(&resp) => return Routed::Answer(resp),
            _ => dev_proxy_missing.set(true),
        }
    }
    Routed::NoRoute
}
