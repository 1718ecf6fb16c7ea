//! The `python` tool: the model writes a few lines of Python and gets back what they printed,
//! the value of the last expression, or the error with its traceback. The code runs in an
//! interpreter of this page (Pyodide in a worker with no network, `ui/services/python.rs`,
//! given out by `app::python`); here is only what the agent sees: the input read, the call
//! handed to the run's `Interpreter`, and the answer written as an observation.

use std::rc::Rc;

use serde_json::{json, Value};

use crate::agent::tool::{code_input, CODE_TOOL};
use crate::agent::{LocalBoxFuture, Tool, ToolContext, ToolError};

use super::PythonSettings;

/// At most this much of each of stdout and stderr reaches the model; the interpreter keeps a
/// little more (`OUTPUT_KEPT`) so what was cut can be said.
pub const OUTPUT_SHOWN: usize = 8_000;
/// What the worker keeps of each stream per call, in bytes.
pub const OUTPUT_KEPT: usize = 64 * 1024;
/// A value's `repr` is cut at this many characters.
pub const VALUE_SHOWN: usize = 2_000;
/// Code longer than this is not run (a model that pastes a book into the tool).
pub const CODE_MOST: usize = 100_000;

/// What one call of code gave.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ran {
    pub stdout: String,
    pub stderr: String,
    /// Bytes of each stream the interpreter dropped past what it keeps.
    pub stdout_cut: u64,
    pub stderr_cut: u64,
    /// The `repr` of the last expression, when there was one and it was not `None`.
    pub value: Option<String>,
    /// An exception the code raised.
    pub error: Option<Raised>,
    /// Time the code took, in ms.
    pub ms: f64,
    /// Something the person and the model should know (the interpreter was ended after the
    /// call, for its memory).
    pub note: Option<String>,
    /// Each request the code made to install packages ("GET <url> → 200"), when allowed.
    pub network: Vec<String>,
}

/// Where a worker may go to install packages (micropip): the index and the hosts its files
/// come from. Nowhere else, ever.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Install {
    pub index_urls: Vec<String>,
    pub hosts: Vec<String>,
}

/// An exception, with its traceback from the first line of the person's code on.
#[derive(Debug, Clone, PartialEq)]
pub struct Raised {
    pub name: String,
    pub traceback: String,
}

/// The interpreter one run uses: calls go to the same one, so what one call defines the next
/// can use. `progress` hears how its start goes (download, waiting for a free interpreter).
/// An `Err` is a sentence saying why the code did not run or was stopped.
pub trait Interpreter {
    fn run<'a>(&'a self, code: &'a str, progress: &'a dyn Fn(&str)) -> LocalBoxFuture<'a, Result<Ran, String>>;
}

pub struct Python {
    interpreter: Rc<dyn Interpreter>,
    settings: PythonSettings,
    description: String,
}

impl Python {
    pub fn new(interpreter: Rc<dyn Interpreter>, settings: PythonSettings) -> Python {
        let packages = if settings.install().is_some() {
            "There is no network, except that pure-Python packages can be installed from the package index with `import micropip; await micropip.install(\"name\")`."
        } else {
            "There is no network and nothing can be installed."
        };
        let description = format!("{DESCRIPTION} {packages} The person's documents, if any, are files under /documents/ (read-only).");
        Python { interpreter, settings, description }
    }
}

const DESCRIPTION: &str = "Runs Python 3 code in a sandbox in this page and returns what it printed, the value of its last line, or the error. Use it for arithmetic on many numbers, tables, dates, unit conversions, counting, sorting, regular expressions, parsing CSV or JSON text, and anything you would otherwise work out by hand. print() every result you need. Variables and functions stay defined for the next python call of this run. The standard library is there.";

impl Tool for Python {
    fn name(&self) -> &str {
        CODE_TOOL
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn input_schema(&self) -> Option<Value> {
        Some(json!({
            "type": "object",
            "properties": { "code": { "type": "string", "description": "Python code to run. print() what you need to see." } },
            "required": ["code"]
        }))
    }
    fn input_hint(&self) -> Option<&str> {
        Some("{\"code\": \"Python code, with print() for each result\"}")
    }
    fn needs_approval(&self) -> bool {
        self.settings.approve
    }
    fn return_direct(&self) -> bool {
        self.settings.common.return_direct
    }
    /// The code's own limit is kept by the interpreter (`timeout_s`, wall time); this is the
    /// silence limit around it, which the download of the runtime and a wait for a free
    /// interpreter restart with their progress.
    fn timeout_ms(&self) -> Option<f64> {
        Some(self.settings.common.timeout_s * 1000.0 + 60_000.0)
    }
    fn call<'a>(&'a self, input: &'a Value, cx: &'a ToolContext<'a>) -> LocalBoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move {
            let code = code_input(input);
            if code.trim().is_empty() {
                return Err(ToolError::new("No code was given: send {\"code\": \"…\"} with the Python to run."));
            }
            if code.len() > CODE_MOST {
                return Err(ToolError::new(format!("The code is {} characters long, over the {CODE_MOST} this tool runs: send less.", code.len())));
            }
            let progress = |text: &str| cx.progress(text);
            match self.interpreter.run(&code, &progress).await {
                Ok(ran) => Ok(observation(&ran)),
                Err(why) => Err(ToolError::new(why)),
            }
        })
    }
}

/// What the model reads after a call (and the trace shows as the code's output): stdout as it
/// is, then stderr, the last expression's value and the traceback each under a short label,
/// every part bounded with what was cut said.
pub fn observation(ran: &Ran) -> String {
    let mut out = String::new();
    stream(&mut out, "", &ran.stdout, ran.stdout_cut);
    stream(&mut out, "stderr:\n", &ran.stderr, ran.stderr_cut);
    if let Some(value) = &ran.value {
        let (shown, more) = cut(value, VALUE_SHOWN);
        out.push_str("Out: ");
        out.push_str(shown);
        if more > 0 {
            out.push_str(&format!(" … ({more} more characters)"));
        }
        out.push('\n');
    }
    if let Some(error) = &ran.error {
        let (shown, more) = cut(error.traceback.trim_end(), OUTPUT_SHOWN);
        if shown.is_empty() {
            out.push_str(&error.name);
        } else {
            if more > 0 {
                out.push_str(&format!("… ({more} characters of the traceback left out)\n"));
            }
            // A long traceback keeps its end, where the error is named.
            out.push_str(if more > 0 { tail(error.traceback.trim_end(), OUTPUT_SHOWN) } else { shown });
        }
        out.push('\n');
    }
    if out.is_empty() {
        out.push_str("(The code ran and printed nothing. print() what you need to see.)\n");
    }
    if !ran.network.is_empty() {
        out.push_str("Network (installing packages is allowed in Settings):\n");
        for line in &ran.network {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }
    }
    if let Some(note) = &ran.note {
        out.push_str(note);
        out.push('\n');
    }
    out.truncate(out.trim_end().len());
    out
}

/// One stream, labelled, cut to what the model is shown, with the cut said.
fn stream(out: &mut String, label: &str, text: &str, dropped: u64) {
    if text.is_empty() && dropped == 0 {
        return;
    }
    let (shown, more) = cut(text, OUTPUT_SHOWN);
    out.push_str(label);
    out.push_str(shown.trim_end_matches('\n'));
    out.push('\n');
    let more_bytes = (text.len() - shown.len()) as u64 + dropped;
    if more > 0 || dropped > 0 {
        out.push_str(&format!("… (output cut: {} more left out)\n", bytes(more_bytes)));
    }
}

/// `text` cut to `most` characters on a character boundary, and how many characters were left.
fn cut(text: &str, most: usize) -> (&str, usize) {
    match text.char_indices().nth(most) {
        Some((at, _)) => (&text[..at], text[at..].chars().count()),
        None => (text, 0),
    }
}

/// The last `most` characters of `text`.
fn tail(text: &str, most: usize) -> &str {
    let count = text.chars().count();
    match text.char_indices().nth(count.saturating_sub(most)) {
        Some((at, _)) => &text[at..],
        None => text,
    }
}

/// A size a person reads: bytes, KB, MB or GB.
pub fn bytes(n: u64) -> String {
    if n >= 1_000_000_000 {
        format!("{:.1} GB", n as f64 / 1_000_000_000.0)
    } else if n >= 1_000_000 {
        format!("{:.1} MB", n as f64 / 1_000_000.0)
    } else if n >= 1_000 {
        format!("{:.1} KB", n as f64 / 1_000.0)
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests;
