//! The agent-overhead bench's parts, for the native bench (`benches/agent.rs`, run by
//! `cargo bench`) and the WASM one (`tests/wasm_bench.rs`, run by `scripts/bench-wasm`): a
//! scripted model that answers at once, an instant tool, a clock whose timers never fire, and
//! the timing of whole runs and of single steps. Everything measured is the agent's own work
//! (building requests, parsing, recording, observing).
//!
//! It knows no clock of its own: each bench passes `Now` (`Instant` natively,
//! `performance.now()` in the browser), so the same code measures both targets. The functions
//! are async because a browser cannot block on a future; natively `pollster::block_on` drives
//! them, and every future here is ready at once.

// Each bench uses its own subset of these parts.
#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::hint::black_box;

use serde_json::Value;
use thoughtline::agent::model::ToolCall;
use thoughtline::agent::{
    run_agent, AgentSettings, CancelToken, ChatModel, ChatRequest, ChatResponse, Clock, Event, EventKind, LlmError,
    LocalBoxFuture, Progress, RunInput, RunObserver, Strategy, Tool, ToolContext, ToolError, Trace,
};

/// Milliseconds on a monotonic clock; only differences are used.
pub type Now = fn() -> f64;

/// The observation of the short runs: one sentence, as a search snippet.
pub const SHORT_OBSERVATION: &str = "Paris is the capital and largest city of France.";

/// The observation of the long runs: 4 KB, about a page of a Wikipedia article.
pub fn big_observation() -> String {
    "x".repeat(4096)
}

/// Real time, but timers never fire: the runs finish long before any limit, and this keeps
/// thread start-up (the native clock's sleep) and the browser's `setTimeout` out of the figures.
pub struct BenchClock(pub Now);

impl Clock for BenchClock {
    fn now_ms(&self) -> f64 {
        (self.0)()
    }
    fn unix_ms(&self) -> f64 {
        0.0
    }
    fn sleep(&self, _ms: f64) -> LocalBoxFuture<'static, ()> {
        Box::pin(std::future::pending())
    }
}

/// Answers with an action `steps - 1` times, then with a final answer, in the format of the
/// strategy being measured.
pub struct Scripted {
    pub steps: usize,
    pub calls: Cell<usize>,
    pub strategy: Strategy,
}

impl ChatModel for Scripted {
    fn complete<'a>(&'a self, _r: &'a ChatRequest, progress: &'a dyn Fn(Progress<'_>)) -> LocalBoxFuture<'a, Result<ChatResponse, LlmError>> {
        let n = self.calls.get() + 1;
        self.calls.set(n);
        let last = n >= self.steps;
        let mut tool_calls = Vec::new();
        let text = match (self.strategy, last) {
            (Strategy::React, false) => format!("Thought: I need more facts (step {n}).\nAction:\n```json\n{{\"action\": \"search\", \"action_input\": \"query number {n}\"}}\n```"),
            (Strategy::React, true) => "Thought: I can answer now.\nFinal Answer: The answer is 42.".to_string(),
            (Strategy::PlanReact, false) => {
                let plan = if n == 1 { "/*PLANNING*/\n1. Search.\n2. Search again.\n3. Answer.\n" } else { "" };
                format!("{plan}/*REASONING*/\nI need more facts (step {n}).\n/*ACTION*/\n```json\n{{\"action\": \"search\", \"action_input\": \"query number {n}\"}}\n```")
            }
            (Strategy::PlanReact, true) => "/*REASONING*/\nI can answer now.\n/*FINAL_ANSWER*/\nThe answer is 42.".to_string(),
            (Strategy::ToolCalling, false) => {
                tool_calls.push(ToolCall { id: format!("call_{n}"), name: "search".into(), arguments: format!("{{\"input\": \"query number {n}\"}}") });
                String::new()
            }
            (Strategy::ToolCalling, true) => "The answer is 42.".to_string(),
        };
        progress(Progress::Text(&text));
        Box::pin(async move { Ok(ChatResponse { text, tool_calls, ..Default::default() }) })
    }
}

/// A `search` tool that returns its observation at once.
pub struct InstantTool {
    pub observation: String,
}

impl Tool for InstantTool {
    fn name(&self) -> &str {
        "search"
    }
    fn description(&self) -> &str {
        "Looks things up."
    }
    fn call<'a>(&'a self, _i: &'a Value, _cx: &'a ToolContext<'a>) -> LocalBoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move { Ok(self.observation.clone()) })
    }
}

/// One scripted run of `steps` steps (the last one answers) whose tool returns `observation`.
pub async fn run_scripted(strategy: Strategy, steps: usize, observation: &str, now: Now, observer: &dyn RunObserver) -> Trace {
    let model = Scripted { steps, calls: Cell::new(0), strategy };
    let tool = InstantTool { observation: observation.to_string() };
    let tools: [&dyn Tool; 1] = [&tool];
    let settings = AgentSettings { max_iterations: steps as u32 + 1, strategy, ..Default::default() };
    let clock = BenchClock(now);
    let cancel = CancelToken::new();
    let input = RunInput { question: "What is the answer?", history: &[], model: &model, tools: &tools, settings: &settings, clock: &clock, cancel: &cancel, answered: None, fork: None };
    let trace = run_agent(input, observer).await;
    // Not a test of the agent: a run that went wrong would time something else.
    assert_eq!(trace.final_answer(), Some("The answer is 42."), "the scripted run did not end as scripted");
    trace
}

/// Runs every strategy, 100 steps with each observation, until `ms` have passed, so that the
/// figures after it see the code and the allocator as a long session would: optimised (a
/// browser first runs WASM from a baseline compile) and with the heap already grown (natively,
/// runs of 4 KB observations read up to half again as long before the first long run).
pub async fn warm_up(ms: f64, now: Now) {
    let big = big_observation();
    let start = now();
    while now() - start < ms {
        for strategy in Strategy::ALL {
            for observation in [SHORT_OBSERVATION, big.as_str()] {
                run_scripted(strategy, 100, observation, now, &()).await;
            }
        }
    }
}

/// µs per step of `steps`-step runs: `batch` runs in a row are timed together (so a coarse
/// clock still resolves them), and the best of `samples` such batches is kept (the least
/// disturbed by the machine), after one run to warm up.
pub async fn per_step(strategy: Strategy, steps: usize, observation: &str, batch: usize, samples: usize, now: Now) -> f64 {
    run_scripted(strategy, steps, observation, now, &()).await;
    let mut best = f64::MAX;
    for _ in 0..samples {
        let start = now();
        for _ in 0..batch {
            black_box(run_scripted(strategy, steps, observation, now, &()).await.events.len());
        }
        best = best.min(now() - start);
    }
    best * 1000.0 / (batch * steps) as f64
}

/// Records when each model request is made, to time steps within a run.
pub struct StepTimes {
    now: Now,
    times: RefCell<Vec<f64>>,
}

impl RunObserver for StepTimes {
    fn on_event(&self, event: &Event) {
        if matches!(event.kind, EventKind::LlmRequest { .. }) {
            self.times.borrow_mut().push((self.now)());
        }
    }
}

/// µs per step of a long run: over all its steps, and early against late.
pub struct LongRun {
    /// All steps, from the start of the run to its end.
    pub all: f64,
    /// The ten steps from model request 1 to 11 (those ending at requests 2-11).
    pub early: f64,
    /// The ten steps from model request 89 to 99 (those ending at 90-99; the last request, the
    /// answer, is left out so that runs of every strategy compare).
    pub late: f64,
}

/// Times `repeats` runs of `steps` steps (at least 100), after one run to warm up, as spans of
/// ten steps between model requests (a run observer notes each request). Each span's figure is
/// its best over the runs, and `all` is the sum of the best spans from start to end. Why spans:
/// on a busy machine hardly any run of tens of milliseconds goes uninterrupted, but each span of
/// a few milliseconds does in some run; and a coarse clock's step (5 µs in a browser) counts only
/// a tenth per step.
pub async fn long_run(strategy: Strategy, steps: usize, observation: &str, repeats: usize, now: Now) -> LongRun {
    run_scripted(strategy, steps, observation, now, &()).await;
    let mut best: Vec<f64> = Vec::new();
    let (mut early, mut late) = (f64::MAX, f64::MAX);
    for _ in 0..repeats {
        let times = StepTimes { now, times: RefCell::new(Vec::with_capacity(steps + 2)) };
        times.times.borrow_mut().push(now());
        run_scripted(strategy, steps, observation, now, &times).await;
        times.times.borrow_mut().push(now());
        // Start of the run, each model request, end of the run.
        let bounds = times.times.into_inner();
        let spans: Vec<f64> = (0..bounds.len() - 1).step_by(10).map(|i| bounds[(i + 10).min(bounds.len() - 1)] - bounds[i]).collect();
        if best.is_empty() {
            best = spans;
        } else {
            best.iter_mut().zip(spans).for_each(|(b, s)| *b = b.min(s));
        }
        early = early.min(bounds[11] - bounds[1]);
        late = late.min(bounds[99] - bounds[89]);
    }
    LongRun { all: best.iter().sum::<f64>() * 1000.0 / steps as f64, early: early * 100.0, late: late * 100.0 }
}
