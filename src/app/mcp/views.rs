//! The views of tools' results in this page (MCP Apps): one per call whose tool has a view,
//! shown under its run's answer while the page stays open (the record keeps the text result,
//! never the view). Plain state, and the host's side of each view's bridge (JSON-RPC over
//! `postMessage`): `ui/initialize` answered, the call's input and result held until the view
//! says it is initialized, its size followed, and what it asks of the page: a tool of its
//! server called (asking the person first where that tool asks), a link opened (always after
//! the person agrees), a message put in the composer, what it tells the model kept. The page
//! service `ui::services::views` carries the messages and draws nothing; the frames are
//! `ui::widgets::views`.

use std::collections::VecDeque;

use serde_json::{json, Value};

use crate::tools::mcp::app::PROTOCOL;
use crate::tools::mcp::McpToolInfo;

/// What a view is shown with: the call, as the tool reported it (`ToolContext::show_view`).
#[derive(Debug, Clone, PartialEq)]
pub struct ViewCall {
    /// The server's address, as in Settings.
    pub server: String,
    pub uri: String,
    /// The tool as the server listed it: name, description, input schema.
    pub tool: Value,
    pub arguments: Value,
    pub result: Value,
}

impl ViewCall {
    pub fn read(view: &Value) -> Option<Self> {
        let text = |name: &str| view.get(name).and_then(Value::as_str).map(str::to_string);
        Some(ViewCall {
            server: text("server")?,
            uri: text("uri")?,
            tool: view.get("tool").cloned().unwrap_or(Value::Null),
            arguments: view.get("arguments").cloned().unwrap_or_else(|| json!({})),
            result: view.get("result").cloned().unwrap_or_else(|| json!({"content": []})),
        })
    }

    pub fn tool_name(&self) -> &str {
        self.tool.get("name").and_then(Value::as_str).unwrap_or_default()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Stage {
    /// Its page is being read from the server.
    Loading,
    Shown,
    /// It could not be shown: why (the call's text result is in the trace).
    Failed(String),
    /// Closed: told so (`ui/resource-teardown`), it goes once it answers or its time is up.
    Closing,
}

/// Something a view asks that waits for the person.
#[derive(Debug, Clone, PartialEq)]
pub enum Ask {
    /// Call `name` of the view's server with `arguments` (the tool asks before each call).
    Call { id: Value, name: String, arguments: Value },
    /// Open `url` in a new window.
    Open { id: Value, url: String },
}

/// One view in the page.
#[derive(Debug, Clone, PartialEq)]
pub struct Live {
    pub id: u64,
    /// The conversation and run it belongs to, and the step of its call.
    pub chat: String,
    pub run: usize,
    pub step: u32,
    pub call: ViewCall,
    pub stage: Stage,
    /// Its height in pixels, as it last said.
    pub height: u32,
    /// What it asks, first asked first.
    pub asking: VecDeque<Ask>,
    /// What it last told the model (`ui/update-model-context`), as text.
    pub context: Option<String>,
    initialized: bool,
    /// Notifications held until it says it is initialized.
    held: Vec<Value>,
}

/// What the page does for the views.
#[derive(Debug, Clone, PartialEq)]
pub enum Do {
    /// Send `message` to view `view`'s frame.
    Post { view: u64, message: Value },
    /// Call `name` of the view's server; the answer goes back to the view as `id`'s.
    Call { view: u64, id: Value, name: String, arguments: Value },
    /// Open `url` in a new window, with nothing of the page.
    Open { url: String },
    /// Put `text` in the composer (a message the view suggests; the person sends it).
    Compose { text: String },
    /// A closing view is told; send `Gone` when it answers or after a moment.
    Closing { view: u64 },
    /// The view is gone: its frame is taken away.
    Remove { view: u64 },
}

/// What the page knows of itself that a view is told (its host context).
#[derive(Debug, Clone, Default)]
pub struct Host {
    pub theme: String,
    pub locale: String,
    pub time_zone: String,
    /// The tools of the view's server, as listed on Connect (none while the server's tools are
    /// switched off).
    pub tools: Vec<McpToolInfo>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    /// A run's call came with a view.
    Shown { chat: String, run: usize, step: u32, call: ViewCall },
    /// Its page is in the frame, or could not be read.
    Loaded { view: u64 },
    Failed { view: u64, why: String },
    /// A message from the view's frame.
    FromView { view: u64, message: Value },
    /// The person's answer to what the view asks first.
    Answer { view: u64, allow: bool },
    /// A call the view asked for was answered: the result, or why not.
    Called { view: u64, id: Value, outcome: Result<Value, String> },
    /// The view is closed (or its run or chat goes away): told first, then removed.
    Close { view: u64 },
    /// A closing view's time to answer is up (or it answered): it goes.
    Gone { view: u64 },
}

/// The id of the page's `ui/resource-teardown` request.
const TEARDOWN: &str = "teardown";
/// Heights a view may take.
const SHORTEST: u32 = 60;
const TALLEST: u32 = 2000;
/// Characters kept of what a view tells the model or suggests as a message.
const TEXT_LIMIT: usize = 4000;

#[derive(Debug, Default)]
pub struct Views {
    live: Vec<Live>,
    last: u64,
}

fn response(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// The text of content blocks, bounded.
fn text_of(blocks: Option<&Value>) -> String {
    let text: Vec<&str> = blocks.and_then(Value::as_array).map(|b| b.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect()).unwrap_or_default();
    text.join("\n").chars().take(TEXT_LIMIT).collect()
}

impl Views {
    /// The views of `run` in `chat`, in the order shown.
    pub fn of(&self, chat: &str, run: usize) -> Vec<&Live> {
        self.live.iter().filter(|v| v.chat == chat && v.run == run).collect()
    }

    pub fn get(&self, view: u64) -> Option<&Live> {
        self.live.iter().find(|v| v.id == view)
    }

    pub fn last_id(&self) -> u64 {
        self.last
    }

    /// What the views of `chat` last told the model, for its next question.
    pub fn context(&self, chat: &str) -> Vec<(String, String)> {
        self.live.iter().filter(|v| v.chat == chat).filter_map(|v| v.context.clone().map(|c| (v.call.tool_name().to_string(), c))).collect()
    }

    pub fn handle(&mut self, msg: Msg, host: &Host) -> Vec<Do> {
        match msg {
            Msg::Shown { chat, run, step, call } => {
                self.last += 1;
                let held = vec![
                    notification("ui/notifications/tool-input", json!({"arguments": call.arguments})),
                    notification("ui/notifications/tool-result", call.result.clone()),
                ];
                self.live.push(Live { id: self.last, chat, run, step, call, stage: Stage::Loading, height: 0, asking: VecDeque::new(), context: None, initialized: false, held });
                Vec::new()
            }
            Msg::Loaded { view } => {
                self.with(view, |v| v.stage = Stage::Shown);
                Vec::new()
            }
            Msg::Failed { view, why } => {
                self.with(view, |v| v.stage = Stage::Failed(why));
                Vec::new()
            }
            Msg::FromView { view, message } => {
                // The answer to our teardown: a closing view goes now.
                let answered = message.get("method").is_none() && message.get("id").and_then(Value::as_str) == Some(TEARDOWN);
                if answered && self.get(view).is_some_and(|v| v.stage == Stage::Closing) {
                    return self.handle(Msg::Gone { view }, host);
                }
                match self.live.iter_mut().find(|v| v.id == view) {
                    Some(live) if live.stage != Stage::Closing => from_view(live, &message, host),
                    _ => Vec::new(),
                }
            }
            Msg::Answer { view, allow } => {
                let Some(live) = self.live.iter_mut().find(|v| v.id == view) else { return Vec::new() };
                match (live.asking.pop_front(), allow) {
                    (Some(Ask::Call { id, name, arguments }), true) => vec![Do::Call { view, id, name, arguments }],
                    (Some(Ask::Call { id, name, .. }), false) => {
                        vec![Do::Post { view, message: error(&id, -32001, &format!("The person did not allow the call of {name}.")) }]
                    }
                    (Some(Ask::Open { id, url }), true) => vec![Do::Open { url }, Do::Post { view, message: response(&id, json!({})) }],
                    (Some(Ask::Open { id, .. }), false) => vec![Do::Post { view, message: response(&id, json!({"isError": true})) }],
                    (None, _) => Vec::new(),
                }
            }
            Msg::Called { view, id, outcome } => {
                let message = match outcome {
                    Ok(result) => response(&id, result),
                    Err(why) => error(&id, -32603, &why),
                };
                vec![Do::Post { view, message }]
            }
            Msg::Close { view } => {
                let Some(live) = self.live.iter_mut().find(|v| v.id == view) else { return Vec::new() };
                match live.stage {
                    // Told before it goes, so it can tidy up; it goes when it answers, or soon.
                    Stage::Shown => {
                        live.stage = Stage::Closing;
                        vec![Do::Post { view, message: json!({"jsonrpc": "2.0", "id": TEARDOWN, "method": "ui/resource-teardown", "params": {}}) }, Do::Closing { view }]
                    }
                    Stage::Closing => Vec::new(),
                    _ => self.handle(Msg::Gone { view }, host),
                }
            }
            Msg::Gone { view } => match self.live.iter().position(|v| v.id == view) {
                Some(at) => {
                    self.live.remove(at);
                    vec![Do::Remove { view }]
                }
                None => Vec::new(),
            },
        }
    }

    fn with(&mut self, view: u64, change: impl FnOnce(&mut Live)) {
        if let Some(v) = self.live.iter_mut().find(|v| v.id == view) {
            change(v);
        }
    }
}

/// A message from a view: requests answered or passed on, notifications noted.
fn from_view(live: &mut Live, message: &Value, host: &Host) -> Vec<Do> {
    let view = live.id;
    let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    let Some(id) = message.get("id").filter(|_| !method.is_empty()).cloned() else {
        // A notification, or an answer (to our teardown, handled before): nothing to answer.
        return match method {
            "ui/notifications/initialized" => {
                live.initialized = true;
                live.held.drain(..).map(|message| Do::Post { view, message }).collect()
            }
            "ui/notifications/size-changed" => {
                if let Some(height) = params.get("height").and_then(Value::as_f64) {
                    live.height = (height.max(0.0) as u32).clamp(SHORTEST, TALLEST);
                }
                Vec::new()
            }
            _ => Vec::new(),
        };
    };
    let reply = |result: Value| vec![Do::Post { view, message: response(&id, result) }];
    match method {
        "ui/initialize" => reply(json!({
            "protocolVersion": PROTOCOL,
            "hostInfo": {"name": "Thoughtline", "version": env!("CARGO_PKG_VERSION")},
            "hostCapabilities": {
                "openLinks": {},
                "serverTools": {},
                "message": {"text": {}},
                "updateModelContext": {"text": {}},
                "logging": {},
            },
            "hostContext": {
                "toolInfo": {"tool": live.call.tool},
                "theme": host.theme,
                "displayMode": "inline",
                "availableDisplayModes": ["inline"],
                "platform": "web",
                "locale": host.locale,
                "timeZone": host.time_zone,
                "userAgent": "Thoughtline",
                "containerDimensions": {"maxHeight": TALLEST},
            },
        })),
        "ping" => reply(json!({})),
        "ui/request-display-mode" => reply(json!({"mode": "inline"})),
        "tools/call" => {
            let name = params.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
            let arguments = params.get("arguments").cloned().unwrap_or_else(|| json!({}));
            match host.tools.iter().find(|t| t.name == name) {
                Some(tool) if !tool.for_views => vec![Do::Post { view, message: error(&id, -32602, &format!("{name} is not offered to views.")) }],
                // Switched off in Settings: no more a view's than the model's.
                Some(tool) if !tool.enabled => vec![Do::Post { view, message: error(&id, -32602, &format!("{name} is switched off in Settings.")) }],
                Some(tool) if !tool.unavailable.is_empty() => vec![Do::Post { view, message: error(&id, -32602, &format!("{name} cannot be called: {}", tool.unavailable)) }],
                Some(tool) if tool.ask => {
                    live.asking.push_back(Ask::Call { id, name, arguments });
                    Vec::new()
                }
                Some(_) => vec![Do::Call { view, id, name, arguments }],
                None => vec![Do::Post { view, message: error(&id, -32602, &format!("The server lists no tool {name}.")) }],
            }
        }
        "ui/open-link" => {
            let url = params.get("url").and_then(Value::as_str).unwrap_or_default();
            if crate::net::origin(url).is_some() && (url.starts_with("https://") || url.starts_with("http://")) {
                live.asking.push_back(Ask::Open { id, url: url.to_string() });
                Vec::new()
            } else {
                reply(json!({"isError": true}))
            }
        }
        "ui/message" => {
            let text = text_of(params.get("content"));
            let mut todo = reply(json!({}));
            if !text.trim().is_empty() {
                todo.insert(0, Do::Compose { text });
            }
            todo
        }
        "ui/update-model-context" => {
            let mut text = text_of(params.get("content"));
            if text.is_empty() {
                if let Some(structured) = params.get("structuredContent") {
                    text = structured.to_string().chars().take(TEXT_LIMIT).collect();
                }
            }
            live.context = Some(text).filter(|t| !t.trim().is_empty());
            reply(json!({}))
        }
        _ => vec![Do::Post { view, message: error(&id, -32601, &format!("This host does not offer {method}.")) }],
    }
}

#[cfg(test)]
mod tests;
