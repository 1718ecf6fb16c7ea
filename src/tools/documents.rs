//! The `documents` tool: finds passages in the person's own documents, which never leave the
//! page. It reads the page's index as it is when called (`Shelf`), gives the best passages with
//! numbered sources, as many as fit in a share of the model's context, and numbers them on
//! across the calls of one run, so an answer's `[n]` names one passage.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde_json::{json, Value};

use crate::agent::tool::input_as_text;
use crate::agent::{LocalBoxFuture, Tool, ToolContext, ToolError};
use crate::documents::{cited, meaning, Index, Meaning};
use crate::llm::embeddings::Embedder;

/// The page's index, shared with the tool while a run lasts.
pub type Shelf = Rc<RefCell<Index>>;

/// A quarter of the model's context goes to passages, at about three characters a token (a
/// cautious figure: English runs near four).
pub fn budget_chars(context_tokens: u32) -> usize {
    (context_tokens as usize / 4) * 3
}

/// At most this many passages per call, however large the context.
pub const MOST: usize = 8;

pub struct Documents {
    shelf: Shelf,
    budget_chars: usize,
    description: String,
    /// The number of the next passage given in this run.
    next: Cell<usize>,
    /// Meaning search, where it is turned on: the query is embedded by the same model.
    embedder: Option<Rc<Embedder>>,
    /// The only documents searched (by id), when the run is about some of them (an
    /// evaluation's case that names them); empty: all.
    only: Vec<String>,
}

impl Documents {
    /// `None` while no document is indexed: the model is not offered a tool with nothing in it.
    pub fn new(shelf: Shelf, context_tokens: u32) -> Option<Documents> {
        let names: Vec<String> = shelf.borrow().documents().map(|d| d.name.clone()).collect();
        if names.is_empty() {
            return None;
        }
        let shown: Vec<String> = names.iter().take(12).map(|n| format!("\"{}\"", n.split_whitespace().collect::<Vec<_>>().join(" "))).collect();
        let more = if names.len() > 12 { format!(" and {} more", names.len() - 12) } else { String::new() };
        let description = format!(
            "Searches the person's own documents, which they added to this page: {}{more}. Use it for any question about what these documents say. Input: what to look for, in a few words. Returns numbered passages with their document and page; cite what you use in the answer by its number, like [1].",
            shown.join(", ")
        );
        Some(Documents { shelf, budget_chars: budget_chars(context_tokens), description, next: Cell::new(1), embedder: None, only: Vec::new() })
    }

    /// Searches only the documents named (as a case of an evaluation names them); an error
    /// naming those that are not among the person's documents.
    pub fn about(mut self, names: &[String]) -> Result<Documents, String> {
        if names.is_empty() {
            return Ok(self);
        }
        let index = self.shelf.borrow();
        let mut only = Vec::new();
        let mut missing = Vec::new();
        for name in names {
            match index.documents().find(|d| d.name.eq_ignore_ascii_case(name.trim())) {
                Some(d) => only.push((d.doc.clone(), d.name.clone())),
                None => missing.push(format!("\"{}\"", name.trim())),
            }
        }
        drop(index);
        if !missing.is_empty() {
            return Err(format!("This question is about {}, which {} not among your documents: add {} under ▤ Documents, or take {} out of the case.", missing.join(", "), if missing.len() == 1 { "is" } else { "are" }, if missing.len() == 1 { "it" } else { "them" }, if missing.len() == 1 { "it" } else { "them" }));
        }
        let shown: Vec<String> = only.iter().map(|(_, n)| format!("\"{n}\"")).collect();
        self.description = format!(
            "Searches the person's own documents, which they added to this page: {}. Use it for any question about what these documents say. Input: what to look for, in a few words. Returns numbered passages with their document and page; cite what you use in the answer by its number, like [1].",
            shown.join(", ")
        );
        self.only = only.into_iter().map(|(id, _)| id).collect();
        Ok(self)
    }

    /// Searches by meaning too, with vectors from `embedder` (for the documents it has made
    /// vectors of).
    pub fn by_meaning(mut self, embedder: Option<Rc<Embedder>>) -> Documents {
        self.embedder = embedder;
        self
    }
}

impl Tool for Documents {
    fn name(&self) -> &str {
        "documents"
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn input_schema(&self) -> Option<Value> {
        Some(json!({
            "type": "object",
            "properties": {
                "query": { "type": "string", "description": "What to look for, in a few words." },
                "documents": { "type": "array", "items": { "type": "string" }, "description": "Only these documents, by name (all when left out)." }
            },
            "required": ["query"]
        }))
    }
    fn call<'a>(&'a self, input: &'a Value, _cx: &'a ToolContext<'a>) -> LocalBoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move {
            let (query, names) = match input {
                Value::Object(map) if map.contains_key("query") => (
                    map.get("query").map(input_as_text).unwrap_or_default(),
                    map.get("documents").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect::<Vec<_>>()).unwrap_or_default(),
                ),
                other => (input_as_text(other), Vec::new()),
            };
            if query.trim().is_empty() {
                return Err(ToolError::new("Say what to look for: the input is the words to search the documents for."));
            }
            let mut only = pick(&self.shelf.borrow(), &names)?;
            if !self.only.is_empty() {
                // Within the documents the run is about, whatever the model names.
                only = if only.is_empty() { self.only.clone() } else { only.into_iter().filter(|d| self.only.contains(d)).collect() };
                if only.is_empty() {
                    return Err(ToolError::new("Those documents are not among the ones this question is about: leave \"documents\" out to search those."));
                }
            }
            let mut how = String::new();
            let mut query_vector = None;
            if let Some(embedder) = self.embedder.as_ref().filter(|e| self.shelf.borrow().has_meaning(&e.model)) {
                match embedder.embed(std::slice::from_ref(&query)).await {
                    Ok(mut vectors) => {
                        query_vector = vectors.pop().map(|v| meaning::unit(&v));
                        how = format!(", found by words and by meaning ({})", embedder.model);
                    }
                    Err(why) => how = format!(", found by words only: meaning search failed ({why})"),
                }
            }
            let shelf = self.shelf.borrow();
            let found = match (&self.embedder, &query_vector) {
                (Some(embedder), Some(vector)) => shelf.search_by_meaning(&query, Meaning { model: &embedder.model, query: vector }, &only, MOST),
                _ => shelf.search(&query, &only, MOST),
            };
            let given: Vec<cited::Given> = found.iter().map(|f| cited::Given { name: &f.name, page: f.passage.page, heading: &f.passage.heading, score: f.score, text: &f.passage.text }).collect();
            let (text, count) = cited::observation(&query, &given, self.next.get(), self.budget_chars);
            self.next.set(self.next.get() + count);
            Ok(if count > 0 { text.replacen(":\n\n", &format!("{how}:\n\n"), 1) } else { text })
        })
    }
}

/// The documents named (by name, whole or in part, any case); all when none is named.
fn pick(index: &Index, names: &[String]) -> Result<Vec<String>, ToolError> {
    let mut only = Vec::new();
    for name in names.iter().map(|n| n.trim().to_lowercase()).filter(|n| !n.is_empty()) {
        let matches: Vec<String> = index.documents().filter(|d| d.name.to_lowercase() == name || d.name.to_lowercase().contains(&name)).map(|d| d.doc.clone()).collect();
        if matches.is_empty() {
            let known: Vec<String> = index.documents().map(|d| d.name.clone()).collect();
            return Err(ToolError::new(format!("No document is called \"{name}\". The documents are: {}.", known.join(", "))));
        }
        only.extend(matches);
    }
    Ok(only)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::{passages, Indexed, Kind, Page};

    fn shelf() -> Shelf {
        let mut index = Index::default();
        for (id, name, text) in [("1", "ferns.md", "# Ferns\n\nFerns grow from spores and like shade."), ("2", "roses.md", "# Roses\n\nRoses like full sun and grow from cuttings.")] {
            index.add(Indexed::new(id.into(), name.into(), passages::cut(&[Page { number: None, text: text.into() }], Kind::Markdown)));
        }
        Rc::new(RefCell::new(index))
    }

    /// The tool never asks the model.
    struct NoModel;
    impl crate::agent::ChatModel for NoModel {
        fn complete<'a>(&'a self, _: &'a crate::agent::ChatRequest, _: &'a dyn Fn(crate::agent::Progress<'_>)) -> LocalBoxFuture<'a, Result<crate::agent::ChatResponse, crate::agent::LlmError>> {
            unreachable!("the documents tool asked the model")
        }
    }

    fn call(tool: &Documents, input: Value) -> Result<String, ToolError> {
        pollster::block_on(crate::agent::tool::call_with_model(tool, &input, &NoModel))
    }

    #[test]
    fn passages_are_numbered_on_through_a_run() {
        assert!(Documents::new(Rc::new(RefCell::new(Index::default())), 4096).is_none(), "no documents, no tool");
        let tool = Documents::new(shelf(), 4096).unwrap();
        assert!(tool.description().contains("\"ferns.md\", \"roses.md\""));
        let first = call(&tool, json!("spores")).unwrap();
        assert_eq!(cited::parse(&first).iter().map(|s| (s.number, s.name.as_str())).collect::<Vec<_>>(), [(1, "ferns.md")]);
        let second = call(&tool, json!({"query": "sun", "documents": ["Roses"]})).unwrap();
        assert_eq!(cited::parse(&second)[0].number, 2, "{second}");
        assert!(call(&tool, json!({"query": "shade", "documents": ["tulips"]})).unwrap_err().message.contains("ferns.md, roses.md"));
        assert!(call(&tool, json!("")).is_err());
    }

    #[test]
    fn a_small_context_gets_fewer_passages_than_a_large_one() {
        let mut index = Index::default();
        let text: String = (0..30).map(|i| format!("## Part {i}\n\n{}\n\n", "Ferns and their spores in the shade of old trees. ".repeat(15))).collect();
        index.add(Indexed::new("1".into(), "big.md".into(), passages::cut(&[Page { number: None, text }], Kind::Markdown)));
        let shelf = Rc::new(RefCell::new(index));
        let small = call(&Documents::new(shelf.clone(), 2048).unwrap(), json!("fern spores")).unwrap();
        let large = call(&Documents::new(shelf, 131_072).unwrap(), json!("fern spores")).unwrap();
        assert!(cited::parse(&small).len() < cited::parse(&large).len(), "{} vs {}", cited::parse(&small).len(), cited::parse(&large).len());
        assert_eq!(cited::parse(&large).len(), MOST);
        assert!(small.contains("left out to fit"));
    }

    #[test]
    fn meaning_search_merges_in_and_a_failed_one_falls_back_to_words() {
        use crate::llm::embeddings::testing::{embedder, Script};
        let shelf = shelf();
        let rows: Vec<Vec<f32>> = vec![vec![1.0, 0.0]];
        assert!(shelf.borrow_mut().set_vectors("1", crate::documents::Vectors::new("m".into(), &rows).unwrap()));
        assert!(shelf.borrow_mut().set_vectors("2", crate::documents::Vectors::new("m".into(), &[vec![0.0, 1.0]]).unwrap()));
        let script = Rc::new(Script::default());
        script.answers.borrow_mut().extend([(200, r#"{"data":[{"embedding":[0.1,0.9]}]}"#.to_string()), (500, "busy".to_string())]);
        let tool = Documents::new(shelf, 4096).unwrap().by_meaning(Some(Rc::new(embedder(script.clone()))));
        // No word in common with either passage: found by meaning alone.
        let found = call(&tool, json!("blooms in bright light")).unwrap();
        assert!(found.contains("found by words and by meaning (m)"), "{found}");
        assert_eq!(cited::parse(&found)[0].name, "roses.md", "{found}");
        let fallback = call(&tool, json!("spores")).unwrap();
        assert!(fallback.contains("found by words only: meaning search failed") && fallback.contains("answered 500"), "{fallback}");
        assert_eq!(cited::parse(&fallback)[0].name, "ferns.md");
    }

    #[test]
    fn a_run_about_some_documents_searches_only_those() {
        let tool = Documents::new(shelf(), 4096).unwrap().about(&["Roses.md".into()]).unwrap();
        assert!(tool.description().contains("\"roses.md\"") && !tool.description().contains("ferns"));
        let found = call(&tool, json!("grow")).unwrap();
        assert!(cited::parse(&found).iter().all(|s| s.name == "roses.md"), "{found}");
        assert!(call(&tool, json!({"query": "grow", "documents": ["ferns.md"]})).is_err());
        let missing = Documents::new(shelf(), 4096).unwrap().about(&["tulips.md".into(), "roses.md".into()]).err().unwrap();
        assert!(missing.contains("\"tulips.md\", which is not among your documents"), "{missing}");
    }
}
