//! Reading a step's reply: a ReAct reply (`Thought:`, `Action:` with its JSON blob, or `Final
//! Answer:`), a structured one, a plan's sections, or a native tool call; and what the loop
//! does with a reply it cannot read (the error goes back to the model) or an answer.

use super::*;

/// A reply of a text strategy, understood.
pub(super) struct Understood {
    pub(super) thought: Option<String>,
    pub(super) reply: Reply,
    pub(super) notes: Vec<String>,
}

/// A reply that could not be understood: what to tell the model, and the text at fault.
pub(super) struct Misread {
    pub(super) message: String,
    pub(super) excerpt: String,
}

impl Misread {
    pub(super) fn new(message: impl Into<String>, excerpt: &str) -> Self {
        Misread { message: message.into(), excerpt: excerpt.chars().take(200).collect() }
    }
}

impl From<ParseError> for Misread {
    fn from(error: ParseError) -> Self {
        Misread { message: error.to_string(), excerpt: error.excerpt }
    }
}

impl Run<'_, '_> {
    /// The rest of a step once the reply is in: understand it, then act or finish.
    pub(super) async fn understand(&self, step: u32, response: ChatResponse) -> Flow {
        let strategy = self.strategy.get();
        if strategy == Strategy::ToolCalling {
            return self.native_reply(step, response).await;
        }

        let started = self.rec.now();
        let understood = match strategy {
            Strategy::PlanReact => self.read_plan(step, started, &response.text),
            _ if self.input.settings.structured_output_for(strategy) => self.read_structured(&response.text).map(Some),
            _ => self.read_react(&response.text).map(Some),
        };
        let understood = match understood {
            Ok(Some(understood)) => understood,
            // A reply that held only a plan: its event asks for the first action.
            Ok(None) => return Flow::Next,
            Err(error) => return self.parse_failed(step, started, error.message, error.excerpt),
        };
        let decision = match &understood.reply {
            Reply::Action { tool, input } => Decision::Action { tool: tool.clone(), input: input.clone() },
            Reply::Final { answer } => Decision::Final { answer: answer.clone() },
        };
        self.rec.record(step, started, EventKind::Decided { thought: understood.thought, decision, notes: understood.notes });
        match understood.reply {
            Reply::Final { answer } => self.answer(step, answer),
            Reply::Action { tool, input } => self.act(step, tool, input).await,
        }
    }

    pub(super) fn read_react(&self, text: &str) -> Result<Understood, Misread> {
        let parsed = parse_reply(text, &self.names)?;
        Ok(Understood { thought: parsed.thought, reply: parsed.reply, notes: parsed.notes })
    }

    /// Structured output: the reply should be one JSON object `{thought, action, action_input}`.
    /// A server that ignored the schema gets the lenient text parser instead, with a note.
    pub(super) fn read_structured(&self, text: &str) -> Result<Understood, Misread> {
        if let Ok(Value::Object(object)) = serde_json::from_str::<Value>(text.trim()) {
            if let Some(action) = object.get("action").and_then(Value::as_str) {
                let thought = object.get("thought").and_then(Value::as_str).map(str::trim).filter(|t| !t.is_empty()).map(str::to_string);
                let input = object.get("action_input").cloned().unwrap_or(Value::Null);
                let reply = if is_final_name(action) {
                    let answer = input_as_text(&input);
                    if answer.trim().is_empty() {
                        return Err(Misread::new("Your \"Final Answer\" step had an empty \"action_input\". Put the complete answer for the person there.", text));
                    }
                    Reply::Final { answer }
                } else {
                    Reply::Action { tool: action.to_string(), input }
                };
                return Ok(Understood { thought, reply, notes: Vec::new() });
            }
        }
        let mut understood = self.read_react(text)?;
        understood.notes.push("structured output was on, but the reply was not the JSON step object; it was read as text".into());
        Ok(understood)
    }

    /// Plan-ReAct: records the plan (or revised plan) and reads the action or final answer.
    /// `Ok(None)` when the reply held only a plan.
    pub(super) fn read_plan(&self, step: u32, started: f64, text: &str) -> Result<Option<Understood>, Misread> {
        let sections = parse_sections(text).map_err(|e| Misread::new(e.message, text))?;
        // `parse_sections` accepts a reply without an action or answer only when it holds a plan.
        let plan_only = sections.first.is_none();
        for (items, replan) in [(sections.plan, false), (sections.replan, true)] {
            if items.is_empty() {
                continue;
            }
            // Counted only when there is a plan: most steps have none, and this reads the run.
            let version = self.count_so_far(|kind| matches!(kind, EventKind::Plan { .. })) as u32 + 1;
            let observation = plan_only.then(|| PLAN_NOTED.to_string());
            self.rec.record(step, started, EventKind::Plan { items, version, replan, observation });
        }
        let mut notes = sections.notes;
        let reply = match sections.first {
            // The plan's event carries the request for its first action.
            None => return Ok(None),
            Some(Section::FinalAnswer) => Reply::Final { answer: sections.final_answer.unwrap_or_default() },
            Some(_) => {
                let action = sections.action.unwrap_or_default();
                let parsed = parse_reply(&action, &self.names).map_err(|e| {
                    Misread::new(format!("Your /*ACTION*/ section could not be read: {e}"), &action)
                })?;
                // Prose under /*ACTION*/ is no answer: the section is for one tool call.
                if parsed.direct {
                    return Err(Misread::new(PROSE_ACTION, &action));
                }
                notes.extend(parsed.notes);
                parsed.reply
            }
        };
        Ok(Some(Understood { thought: sections.reasoning, reply, notes }))
    }

    /// Native tool calling: text alone is the answer; each call runs in order.
    pub(super) async fn native_reply(&self, step: u32, response: ChatResponse) -> Flow {
        let started = self.rec.now();
        let text = response.text.trim();
        if response.tool_calls.is_empty() {
            // Text alone is the answer, unless the model wrote a ReAct call or answer in text
            // instead (small models often do): then it is read as it was meant, with a note.
            let (thought, decision, notes) = match parse_reply(text, &self.names) {
                Ok(Parsed { reply: Reply::Action { tool, input }, thought, mut notes, .. }) if matches!(resolve_tool(&tool, &self.names), Ok(Some(_))) => {
                    notes.push("the model wrote the tool call as text instead of a native call; it was run anyway".into());
                    (thought, Decision::Action { tool, input }, notes)
                }
                Ok(Parsed { reply: Reply::Final { answer }, thought, mut notes, .. }) if text.contains("Final Answer") => {
                    notes.push("the answer carried a ReAct \"Final Answer:\" label, which was removed".into());
                    (thought, Decision::Final { answer }, notes)
                }
                _ => (None, Decision::Final { answer: text.to_string() }, Vec::new()),
            };
            self.rec.record(step, started, EventKind::Decided { thought, decision: decision.clone(), notes });
            return match decision {
                Decision::Action { tool, input } => self.act(step, tool, input).await,
                Decision::Final { answer } => self.answer(step, answer),
            };
        }
        let mut thought = (!text.is_empty()).then(|| text.to_string());
        for call in response.tool_calls {
            let input = if call.arguments.trim().is_empty() {
                Value::Object(Default::default())
            } else {
                match serde_json::from_str::<Value>(&call.arguments) {
                    Ok(input) => input,
                    Err(e) => {
                        let message = format!(
                            "The arguments of your call to \"{}\" are not valid JSON ({e}). Call it again with a JSON object that matches its parameters.",
                            call.name
                        );
                        match self.parse_failed(step, started, message, call.arguments.clone()) {
                            Flow::Next => continue,
                            other => return other,
                        }
                    }
                }
            };
            let decision = Decision::Action { tool: call.name.clone(), input: input.clone() };
            self.rec.record(step, started, EventKind::Decided { thought: thought.take(), decision, notes: Vec::new() });
            match self.act(step, call.name, input).await {
                Flow::Next => {}
                other => return other,
            }
        }
        Flow::Next
    }

    /// Records a reply that could not be understood; ends the run unless errors are fed back.
    pub(super) fn parse_failed(&self, step: u32, started: f64, message: String, excerpt: String) -> Flow {
        let settings = self.input.settings;
        let count = self.parse_failures.get() + 1;
        self.parse_failures.set(count);
        let observation = settings.parse_error_message.clone().unwrap_or_else(|| message.clone());
        let fed_back = settings.feed_back_parse_errors;
        let excerpt = excerpt.chars().take(200).collect();
        self.rec.record(step, started, EventKind::ParseFailed { message, excerpt, count, fed_back, observation });
        if fed_back {
            Flow::Next
        } else {
            self.rec.stop(step, StopReason::ParseFailed);
            Flow::Done
        }
    }

    /// Records the final answer: a direct answer when the run called no tool at all (a call
    /// that failed was still called), whatever form the reply took; plain prose read as the
    /// answer is noted on its Decision.
    pub(super) fn answer(&self, step: u32, answer: String) -> Flow {
        let called = self.count_so_far(|kind| matches!(kind, EventKind::ToolCall { .. })) > 0;
        let source = if called { AnswerSource::Model } else { AnswerSource::Direct };
        self.rec.record(step, self.rec.now(), EventKind::FinalAnswer { answer, source });
        self.rec.stop(step, StopReason::Answered);
        Flow::Done
    }
}
