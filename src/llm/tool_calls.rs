//! Native tool calls as they stream in, for both stream readers (`stream.rs` for
//! OpenAI-compatible chunks, `anthropic/events.rs`): each call is kept under the provider's
//! index, takes its id and name from the fragment that starts it, grows by argument fragments,
//! and comes out as `ToolCall`s in index order.

use crate::agent::model::ToolCall;

#[derive(Debug, Default)]
pub struct PartialCall {
    pub index: u64,
    pub id: String,
    pub name: String,
    /// The arguments' JSON text, fragment by fragment.
    pub arguments: String,
    /// What the arguments are when the fragments add up to nothing but white space (Anthropic
    /// sends the input with the block start, normally `{}`). Empty: what arrived stands.
    pub arguments_if_none: String,
}

#[derive(Debug, Default)]
pub struct StreamedCalls(Vec<PartialCall>);

impl StreamedCalls {
    pub fn get_mut(&mut self, index: u64) -> Option<&mut PartialCall> {
        self.0.iter_mut().find(|c| c.index == index)
    }

    /// The call under `index`, started empty if there is none yet.
    pub fn entry(&mut self, index: u64) -> &mut PartialCall {
        let slot = match self.0.iter().position(|c| c.index == index) {
            Some(slot) => slot,
            None => {
                self.0.push(PartialCall { index, ..PartialCall::default() });
                self.0.len() - 1
            }
        };
        &mut self.0[slot]
    }

    pub fn push(&mut self, call: PartialCall) {
        self.0.push(call);
    }

    /// An index no call has yet.
    pub fn unused_index(&self) -> u64 {
        self.0.iter().map(|c| c.index.saturating_add(1)).max().unwrap_or(0)
    }

    /// The calls in index order. A call the server sent without an id gets `call_{index}`, so
    /// tool results can still be matched to it.
    pub fn to_calls(&self) -> Vec<ToolCall> {
        let mut calls: Vec<&PartialCall> = self.0.iter().collect();
        crate::sort::sort_by_key(&mut calls, |c| c.index);
        calls
            .into_iter()
            .map(|c| {
                let id = if c.id.is_empty() { format!("call_{}", c.index) } else { c.id.clone() };
                let none = c.arguments.trim().is_empty() && !c.arguments_if_none.is_empty();
                let arguments = if none { c.arguments_if_none.clone() } else { c.arguments.clone() };
                ToolCall { id, name: c.name.clone(), arguments }
            })
            .collect()
    }
}
