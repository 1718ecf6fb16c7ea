//! `cargo bench --bench saves`: the bytes each save of the open chat hands to the database
//! during a 100-step run (4 KB observations) in a chat that already holds 20 runs, as the page
//! saves it (`storage::writer`, a save after every step), beside what writing the whole
//! conversation each time would cost. Prints figures; bytes, not time, so the figures repeat.

#[path = "support/mod.rs"]
mod support;

use support::{big_observation, run_scripted};
use thoughtline::agent::Strategy;
use thoughtline::conversation::{outcome, Conversation};
use thoughtline::storage::writer::ChatWriter;

fn now_ms() -> f64 {
    0.0
}

fn main() {
    let observation = big_observation();
    let earlier = pollster::block_on(run_scripted(Strategy::React, 10, &observation, now_ms, &()));
    let live = pollster::block_on(run_scripted(Strategy::React, 100, &observation, now_ms, &()));

    let mut chat = Conversation::new("bench".into());
    for i in 0..20 {
        let run = chat.ask(format!("Earlier question {i}?"));
        for event in &earlier.events {
            chat.record(run, event.clone());
        }
        chat.end(run, outcome(&earlier.events));
    }
    let mut writer = ChatWriter::default();
    let first = writer.batch(&chat, 0.0);
    writer.committed(&first);
    println!("chat with 20 runs of 10 steps: {} bytes written once, when it is first saved", first.bytes());

    // The live run: a save after every step, as the page's saves (every 250 ms) see it.
    let run = chat.ask("The live question?".into());
    let mut per_save = Vec::new();
    let mut whole = Vec::new();
    let mut step = 0;
    for event in &live.events {
        chat.record(run, event.clone());
        if event.step != step {
            step = event.step;
            let batch = writer.batch(&chat, 0.0);
            per_save.push(batch.bytes());
            writer.committed(&batch);
            whole.push(ChatWriter::default().batch(&chat, 0.0).bytes());
        }
    }
    chat.end(run, outcome(&live.events));
    let last = writer.batch(&chat, 0.0);
    per_save.push(last.bytes());

    let mean = |v: &[usize]| v.iter().sum::<usize>() as f64 / v.len().max(1) as f64;
    // Halves of 40 steps each: a whole number of turns of the chunk still filling (8 events,
    // 5 per step), so the mean compares like with like.
    let (early, late) = (&per_save[1..41], &per_save[60..100]);
    println!("saves during the 100-step run: {}", per_save.len());
    println!("bytes per save, steps 2-41:   {:>9.0}", mean(early));
    println!("bytes per save, steps 61-100: {:>9.0}", mean(late));
    println!("bytes per save, largest:      {:>9}", per_save.iter().max().unwrap_or(&0));
    println!("bytes at the run's end:       {:>9}", last.bytes());
    println!("whole conversation per save, steps 2-41 / 61-100: {:.0} / {:.0}", mean(&whole[1..41]), mean(&whole[60..100]));
    println!("late/early: {:.2} (flat is about 1)", mean(late) / mean(early));
    let step_bytes = |s: u32| live.events.iter().filter(|e| e.step == s).map(|e| thoughtline::storage::event::event_json(e).len()).sum::<usize>();
    println!("new events per step (for scale), step 5 / 95: {} / {}", step_bytes(5), step_bytes(95));
}
