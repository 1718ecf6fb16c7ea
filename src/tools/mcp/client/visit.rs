//! A server that answers a request with "visit these addresses first" (URL elicitation
//! required, error -32042 of protocol 2025-11-25): the addresses it lists are read like a
//! URL-mode question (`elicit::read`), and the person is asked about each as about any
//! question, nothing opening before they agree. The caller sends the request once more when
//! they went (`McpTool`), and only once.

use super::{McpClient, RpcError};
use crate::tools::mcp::elicit::{self, Answer, Asked};
use crate::tools::mcp::jsonrpc;

/// Addresses one such error may list: with more, none is visited and the call fails as
/// refused.
const VISITS_LIMIT: usize = 3;

impl McpClient {
    /// The addresses a -32042 error asks the person to visit, when there is someone to ask and
    /// it lists one to three, each read as a URL-mode question (else it is a plain refusal).
    pub(super) fn visits_first(&self, error: &RpcError) -> Option<Vec<Asked>> {
        if error.code != jsonrpc::URL_ELICITATION_REQUIRED || self.asker.borrow().is_none() {
            return None;
        }
        let listed = error.data.as_ref()?.get("elicitations")?.as_array()?;
        if listed.len() > VISITS_LIMIT {
            return None;
        }
        let visits: Vec<Asked> = listed.iter().filter_map(|e| elicit::read(e).ok()).filter(|a| matches!(a, Asked::Url { .. })).collect();
        (visits.len() == listed.len() && !visits.is_empty()).then_some(visits)
    }

    /// Asks the person about one address the server wants visited first: their answer, and
    /// the exchange, for the trace.
    pub async fn ask_to_visit(&self, asked: Asked) -> (Answer, crate::agent::AskedYou) {
        let asker = self.asker.borrow().clone();
        let answer = match asker {
            Some(asker) => asker.ask(&self.label, asked.clone()).await,
            None => Answer::Decline,
        };
        let exchange = elicit::exchange(&self.label, &asked, &answer);
        (answer, exchange)
    }
}
