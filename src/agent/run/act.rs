//! Acting on a step: the tool call the model asked for (resolved, approved where it must be,
//! run under its time limit, its observation recorded and bounded) and the approval it waits on.

use super::*;

impl Run<'_, '_> {
    /// Act: find the tool, refuse loops, run it (or ask the person).
    pub(super) async fn act(&self, step: u32, requested: String, tool_input: Value) -> Flow {
        let input = self.input;
        let settings = input.settings;
        let resolved = match resolve_tool(&requested, &self.names) {
            Ok(Some(name)) => Some(name),
            _ => None,
        };
        if resolved == Some(ASK_PERSON) {
            let question = input_as_text(&tool_input).trim().to_string();
            if question.is_empty() {
                let message = format!("{ASK_PERSON} needs your question as its input.");
                return self.parse_failed(step, self.rec.now(), message, tool_input.to_string());
            }
            self.rec.record(step, self.rec.now(), EventKind::AskedPerson { question });
            self.rec.stop(step, StopReason::AskedPerson);
            return Flow::Done;
        }
        let Some(tool) = resolved.and_then(|name| input.tools.iter().find(|t| t.name() == name).copied()) else {
            let valid = self.names.iter().map(|s| s.to_string()).collect();
            self.rec.record(step, self.rec.now(), EventKind::UnknownTool { requested, valid });
            return Flow::Next;
        };
        let this_action = (tool.name().to_string(), tool_input.clone());
        let repeats = if self.last_action.borrow().as_ref() == Some(&this_action) { self.repeats.get() + 1 } else { 1 };
        self.repeats.set(repeats);
        if repeats >= settings.repeat_limit.max(2) {
            self.rec.record(
                step,
                self.rec.now(),
                EventKind::RepeatedAction { tool: this_action.0, input: this_action.1, times: repeats },
            );
            return Flow::Next;
        }
        *self.last_action.borrow_mut() = Some(this_action);
        if let Some(flow) = self.approval(step, tool, &tool_input).await {
            return flow;
        }

        let rec = &self.rec;
        let started = rec.now();
        let via = tool.origin().map(str::to_string);
        rec.record(step, started, EventKind::ToolCall { tool: tool.name().to_string(), input: tool_input.clone(), via });
        let on_model_call = |request: &ChatRequest, result: &Result<ChatResponse, LlmError>, latency: f64| {
            let latency = to_micros(latency);
            let begun = to_micros((rec.now() - latency).max(0.0));
            let purpose = LlmPurpose::Tool { tool: tool.name().to_string() };
            rec.record(step, begun, EventKind::LlmRequest { purpose, request: RequestRecord::whole(request) });
            // The tool reads its reply whole; the trace records it cut like every other.
            let (cut, discarded) = cut_reply(result.clone());
            // The tool's call is read whole: its first piece is not seen apart from the rest.
            rec.record(step, begun, response_event(&cut, discarded, latency, None));
        };
        let now_ms = || rec.now();
        // Progress starts the tool's silence limit again and is shown live.
        let heard = Cell::new(input.clock.now_ms());
        let on_progress = |text: &str| {
            heard.set(input.clock.now_ms());
            rec.observer.on_tool_progress(step, tool.name(), text);
        };
        // While the call waits on the person (a server's question), its silence limit waits too,
        // and runs whole again from their answer.
        let paused = Cell::new(false);
        let on_asking = |on: bool| {
            paused.set(on);
            heard.set(input.clock.now_ms());
        };
        // The question and the answer are a step of the call's.
        let on_asked = |asked: crate::agent::AskedYou| {
            rec.record(step, rec.now(), EventKind::ServerAsked { server: asked.server, question: asked.question, answer: asked.answer, accepted: asked.accepted });
        };
        // A view the result comes with goes to the page, beside the run's answer.
        let on_view = |view: serde_json::Value| rec.observer.on_tool_view(step, tool.name(), &view);
        let cx = ToolContext { model: input.model, on_model_call: &on_model_call, now_ms: &now_ms, on_progress: &on_progress, on_asking: &on_asking, on_asked: &on_asked, on_view: &on_view };
        let timeout_ms = tool.timeout_ms().unwrap_or(settings.tool_timeout_ms);
        let outcome = guarded_quiet(tool.call(&tool_input, &cx), input, self.run_left(), Some(timeout_ms), &heard, &paused).await;
        let name = tool.name().to_string();
        let (message, timed_out) = match outcome {
            Guarded::Done(Ok(observation)) => {
                let direct = tool.return_direct();
                rec.record(step, started, EventKind::ToolResult { tool: name, observation: observation.clone() });
                if direct {
                    rec.record(step, rec.now(), EventKind::FinalAnswer { answer: observation, source: AnswerSource::ReturnDirect });
                    rec.stop(step, StopReason::Answered);
                    return Flow::Done;
                }
                return Flow::Next;
            }
            Guarded::Done(Err(error)) => (error.message, false),
            Guarded::TimedOut => (
                format!(
                    "no answer within {:.0} s, and no word of progress. The service may be slow or unreachable; try again or use another tool.",
                    timeout_ms / 1000.0
                ),
                true,
            ),
            Guarded::Cancelled => {
                rec.stop(step, StopReason::Cancelled);
                return Flow::Done;
            }
            Guarded::OutOfTime => return Flow::Limit(self.out_of_time()),
        };
        let fed_back = settings.feed_back_tool_errors;
        rec.record(step, started, EventKind::ToolFailed { tool: name.clone(), message, timed_out, fed_back });
        if fed_back {
            Flow::Next
        } else {
            rec.stop(step, StopReason::ToolFailed { tool: name });
            Flow::Done
        }
    }

    /// A tool that needs the person's approval waits for it: `None` when the call may go
    /// ahead, else how the step ends (denied: the model is told; Stop: the run ends). The wait
    /// has no time limit but Stop: a person may be away.
    pub(super) async fn approval(&self, step: u32, tool: &dyn Tool, input: &Value) -> Option<Flow> {
        let name = tool.name().to_string();
        if !tool.needs_approval() || self.allowed.borrow().contains(&name) {
            return None;
        }
        let rec = &self.rec;
        rec.record(step, rec.now(), EventKind::ApprovalAsked { tool: name.clone(), input: input.clone(), via: tool.origin().map(str::to_string) });
        let asked = rec.now();
        let choice = match race(rec.observer.approve(tool, input), self.input.cancel.cancelled()).await {
            Either::Left(choice) => choice,
            Either::Right(()) => {
                rec.stop(step, StopReason::Cancelled);
                return Some(Flow::Done);
            }
        };
        rec.record(step, asked, EventKind::ApprovalGiven { tool: name.clone(), choice });
        match choice {
            ApprovalChoice::Once => None,
            ApprovalChoice::Always => {
                self.allowed.borrow_mut().push(name);
                None
            }
            ApprovalChoice::Denied => Some(Flow::Next),
        }
    }
}
