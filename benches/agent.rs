//! `cargo bench`: the agent's own overhead per ReAct step (a scripted model that answers at
//! once and an instant tool, so all the time measured is ours: prompt building, parsing,
//! tracing), how the cost and the stored trace grow over a long run, and the parser's
//! throughput on realistic replies. Prints figures; the only check is on stored size (bytes,
//! not time): a long run's trace stays within twice the new text of the run.

use std::cell::Cell;
use std::hint::black_box;
use std::time::Instant;

use serde_json::Value;
use thoughtline::agent::parse::parse_reply;
use thoughtline::agent::model::ToolCall;
use thoughtline::agent::{
    run_agent, AgentSettings, CancelToken, ChatModel, ChatRequest, ChatResponse, Clock, LlmError, LocalBoxFuture,
    RunInput, Strategy, Tool, ToolContext, ToolError,
};

/// Real time, but timers never fire: the runs finish long before any limit, and this keeps
/// thread start-up (the native clock's sleep) out of the figures. Browsers use setTimeout.
struct BenchClock(Instant);

impl Clock for BenchClock {
    fn now_ms(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1000.0
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
struct Scripted {
    steps: usize,
    calls: Cell<usize>,
    strategy: Strategy,
}

impl ChatModel for Scripted {
    fn complete<'a>(&'a self, _r: &'a ChatRequest, progress: &'a dyn Fn(thoughtline::agent::Progress<'_>)) -> LocalBoxFuture<'a, Result<ChatResponse, LlmError>> {
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
        progress(thoughtline::agent::Progress::Text(&text));
        Box::pin(async move { Ok(ChatResponse { text, tool_calls, ..Default::default() }) })
    }
}

struct InstantTool {
    observation: String,
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

/// One scripted run of `steps` steps whose tool returns `observation`.
fn run_with(steps: usize, observation: &str, observer: &dyn thoughtline::agent::RunObserver) -> thoughtline::agent::Trace {
    run_strategy(Strategy::React, steps, observation, observer)
}

fn run_strategy(strategy: Strategy, steps: usize, observation: &str, observer: &dyn thoughtline::agent::RunObserver) -> thoughtline::agent::Trace {
    let model = Scripted { steps, calls: Cell::new(0), strategy };
    let tool = InstantTool { observation: observation.to_string() };
    let tools: [&dyn Tool; 1] = [&tool];
    let settings = AgentSettings { max_iterations: steps as u32 + 1, strategy, ..Default::default() };
    let clock = BenchClock(Instant::now());
    let cancel = CancelToken::new();
    let input = RunInput { question: "What is the answer?", history: &[], model: &model, tools: &tools, settings: &settings, clock: &clock, cancel: &cancel, resume: None };
    let trace = pollster::block_on(run_agent(input, observer));
    assert_eq!(trace.final_answer(), Some("The answer is 42."));
    trace
}

fn run_once(steps: usize, observation: &str) -> (f64, usize) {
    let start = Instant::now();
    let trace = run_with(steps, observation, &());
    (start.elapsed().as_secs_f64(), black_box(trace.events.len()))
}

fn per_step(steps: usize, observation: &str, repeats: usize) -> f64 {
    run_once(steps, observation); // warm-up
    let mut best = f64::MAX;
    for _ in 0..repeats {
        best = best.min(run_once(steps, observation).0);
    }
    best / steps as f64 * 1e6
}

/// Records when each model request is made, to time individual steps.
struct StepTimes(std::cell::RefCell<Vec<Instant>>);

impl thoughtline::agent::RunObserver for StepTimes {
    fn on_event(&self, event: &thoughtline::agent::Event) {
        if matches!(event.kind, thoughtline::agent::EventKind::LlmRequest { .. }) {
            self.0.borrow_mut().push(Instant::now());
        }
    }
}

/// Per-step durations (µs) of a `steps`-long run, each the minimum over `repeats` runs.
fn step_gaps(strategy: Strategy, steps: usize, observation: &str, repeats: usize) -> Vec<f64> {
    let mut best = vec![f64::MAX; steps - 1];
    for _ in 0..repeats {
        let times = StepTimes(Default::default());
        run_strategy(strategy, steps, observation, &times);
        for (i, w) in times.0.borrow().windows(2).enumerate() {
            best[i] = best[i].min((w[1] - w[0]).as_secs_f64() * 1e6);
        }
    }
    best
}

/// Bytes the trace of a 100-step run with 4 KB observations takes as JSON (as exported and
/// saved): per step early and late, and in all against the text that is new in the run.
fn stored_size(observation: &str) {
    use thoughtline::agent::EventKind;
    let trace = run_with(100, observation, &());
    let mut per_step = vec![0usize; 101];
    for event in &trace.events {
        per_step[event.step as usize] += serde_json::to_string(event).map_or(0, |json| json.len());
    }
    let mean = |r: std::ops::RangeInclusive<usize>| r.clone().map(|i| per_step[i]).sum::<usize>() as f64 / 10.0;
    let stored = serde_json::to_string(&trace).map_or(0, |json| json.len());
    let first_request = trace.events.iter().position(|e| matches!(e.kind, EventKind::LlmRequest { .. })).unwrap_or(0);
    let system = thoughtline::agent::trace::request_at(&trace.events, first_request).map_or(0, |r| r.messages[0].content.len());
    let new_text: usize = system
        + trace
            .events
            .iter()
            .map(|e| match &e.kind {
                EventKind::LlmResponse { text, .. } => text.len(),
                EventKind::ToolResult { observation, .. } => observation.len(),
                _ => 0,
            })
            .sum::<usize>();
    let ratio = stored as f64 / new_text as f64;
    println!("stored trace (JSON), 100 steps, 4 KB observations");
    println!("  steps 1-10 {:>8.0} B/step, steps 91-100 {:>8.0} B/step", mean(1..=10), mean(91..=100));
    println!(
        "  total {stored} B = {ratio:.2}× the new text ({new_text} B: system prompt, replies, observations): {}",
        if ratio <= 2.0 { "within 2×" } else { "OVER 2×" }
    );
    assert!(ratio <= 2.0, "the stored trace grew beyond twice the new text");
}

fn main() {
    println!("agent overhead per ReAct step (scripted model, instant tool; best of N runs)");
    let small = "Paris is the capital and largest city of France.";
    let big = "x".repeat(4096);
    for (label, obs) in [("short observations", small), ("4 KB observations", big.as_str())] {
        for steps in [10usize, 100] {
            let repeats = if steps == 10 { 200 } else { 20 };
            println!("  {steps:>3} steps, {label:<18}: {:>8.2} µs/step", per_step(steps, obs, repeats));
        }
    }

    // Is the cost flat as the run grows? Time each step from one model request to the next.
    let growth = |strategy: Strategy, label: &str, obs: &str| {
        let gaps = step_gaps(strategy, 100, obs, 20);
        let mean = |r: std::ops::Range<usize>| r.clone().map(|i| gaps[i]).sum::<f64>() / r.len() as f64;
        let (early, late) = (mean(0..10), mean(88..98));
        println!("  {label}: steps 2-11 {early:>7.2} µs/step, steps 90-99 {late:>7.2} µs/step (×{:.2})", late / early);
    };
    for (label, obs) in [("short observations", small), ("4 KB observations", big.as_str())] {
        growth(Strategy::React, &format!("100-step run, {label:<18}"), obs);
    }
    for strategy in [Strategy::ToolCalling, Strategy::PlanReact] {
        growth(strategy, &format!("100 steps × 4 KB, {:<15}", strategy.label().split(' ').next().unwrap_or("")), big.as_str());
    }
    stored_size(big.as_str());

    println!("agent overhead per step by strategy (10 steps, short observations, best of 200 runs)");
    for strategy in Strategy::ALL {
        let once = || {
            let start = Instant::now();
            black_box(run_strategy(strategy, 10, small, &()).events.len());
            start.elapsed().as_secs_f64()
        };
        once();
        let best = (0..200).map(|_| once()).fold(f64::MAX, f64::min);
        println!("  {:<32}: {:>8.2} µs/step", strategy.label(), best / 10.0 * 1e6);
    }

    println!("parser throughput on realistic replies");
    let replies = [
        "Thought: I should look this up on Wikipedia.\nAction:\n```json\n{\"action\": \"wikipedia\", \"action_input\": \"Albert Einstein\"}\n```",
        "I will search for it. {\"action\": \"search\", \"action_input\": {\"query\": \"attention layers 2020\", \"max_results\": 3}} Let me know.",
        "Thought: Let me compute.\nAction: calculator\nAction Input: 25% of 300",
        "Thought: I now know the final answer.\nFinal Answer: Albert Einstein (1879–1955) was a German-born theoretical physicist who developed the theory of relativity, one of the two pillars of modern physics. He received the 1921 Nobel Prize in Physics for his services to theoretical physics, and especially for his discovery of the law of the photoelectric effect.",
        "```json\n{'action': 'Wikipedia', 'action_input': 'Transformer (machine learning)',}\n```",
    ];
    let tools = ["wikipedia", "search", "calculator", "arxiv"];
    let bytes: usize = replies.iter().map(|r| r.len()).sum();
    let rounds = 20_000;
    let start = Instant::now();
    for _ in 0..rounds {
        for r in &replies {
            black_box(parse_reply(black_box(r), &tools).ok());
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "  {:.1} MB/s, {:.2} µs per reply ({} replies of {} bytes on average)",
        (bytes * rounds) as f64 / secs / 1e6,
        secs / (rounds * replies.len()) as f64 * 1e6,
        rounds * replies.len(),
        bytes / replies.len()
    );
}
