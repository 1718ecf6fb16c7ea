//! "Save as HTML": the conversation as one self-contained page for mail, tickets and archives.
//! Its styles are inline and it has no script: it reads in any browser, or a mail client's
//! preview, with scripts off. Every text in it is escaped (a model's reply or a tool's result is
//! shown as the text it is, never as markup), and its own policy forbids scripts and anything
//! fetched, should a text ever get through.

use crate::agent::trace::row::{Part, Row};
use crate::agent::{Event, Tone};
use crate::conversation::{Conversation, Outcome};

/// The page, whole. `note` is said under the title (what a shared link left out).
pub fn page(chat: &Conversation, note: Option<&str>) -> String {
    let title = chat.title();
    let mut out = String::with_capacity(16 * 1024);
    out.push_str("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    push(&mut out, &["<title>", &escape(&title), " · Thoughtline</title><style>", STYLE, "</style></head><body>"]);
    push(&mut out, &["<header><h1>", &escape(&title), "</h1><p class=\"meta\">"]);
    let runs = chat.runs.len();
    out.push_str(&format!("{runs} run{} of a Thoughtline conversation, every step as the agent took it.", if runs == 1 { "" } else { "s" }));
    out.push_str("</p>");
    if let Some(note) = note {
        push(&mut out, &["<p class=\"note\">", &escape(note), "</p>"]);
    }
    out.push_str("</header>");
    for (i, run) in chat.runs.iter().enumerate() {
        push(&mut out, &["<section class=\"run\"><h2>Run ", &(i + 1).to_string(), ": ", &escape(&run.question), "</h2>"]);
        let lines = run.lines();
        for number in 0..lines {
            let Some(line) = run.line(number) else { continue };
            if lines > 1 {
                let named = if number == 0 { "as first asked".to_string() } else { format!("branch {} of {lines}", number + 1) };
                push(&mut out, &["<h3>", &escape(&capitalised(&named)), "</h3>"]);
                if line.fork.is_some() {
                    let shared = line.events.len() - line.own().len();
                    out.push_str(&format!("<p class=\"meta\">Its first {shared} steps are those of the line it was made from.</p>"));
                }
            }
            if let Some(outcome) = line.outcome {
                let (class, said) = match outcome {
                    Outcome::Answer(_) => ("answer", "Answer"),
                    Outcome::Asks(_) => ("asks", "The agent asks"),
                    Outcome::Ended(_) => ("ended", "Run ended"),
                };
                push(&mut out, &["<div class=\"outcome ", class, "\"><b>", said, "</b><div class=\"text\">", &escape(outcome.text()), "</div></div>"]);
            }
            let steps = if number == 0 { line.events } else { line.own() };
            out.push_str("<ol class=\"steps\">");
            for event in steps {
                step(&mut out, event);
            }
            out.push_str("</ol>");
        }
        out.push_str("</section>");
    }
    out.push_str("</body></html>\n");
    out
}

fn step(out: &mut String, event: &Event) {
    let tone = match event.kind.tone() {
        Tone::Pending => "pending",
        Tone::Success => "success",
        Tone::Error => "error",
        Tone::Neutral => "neutral",
    };
    let Row { summary, parts, meta } = event.kind.row();
    push(out, &["<li class=\"step ", tone, "\" data-kind=\"", event.kind.name(), "\"><span class=\"label\">", &(event.index + 1).to_string(), ". ", event.kind.label(), "</span>"]);
    if !summary.is_empty() {
        push(out, &[" <span class=\"summary\">", &escape(&summary), "</span>"]);
    }
    for part in parts {
        match part {
            Part::Thought(t) => push(out, &["<p class=\"thought\">", &escape(&t), "</p>"]),
            Part::Action { tool, input } => push(out, &["<p class=\"action\"><b>", &escape(&tool), "</b></p><pre>", &escape(&input), "</pre>"]),
            Part::Call { name, arguments } => push(out, &["<p class=\"action\"><b>", &escape(&name), "</b></p><pre>", &escape(&arguments), "</pre>"]),
            Part::Text(t) | Part::Output(t) => push(out, &["<pre>", &escape(&t), "</pre>"]),
            Part::Code(t) => push(out, &["<pre class=\"code\"><code>", &escape(&t), "</code></pre>"]),
            Part::Answer(t) => push(out, &["<div class=\"text\">", &escape(&t), "</div>"]),
            Part::Items(items) => {
                out.push_str("<ol class=\"items\">");
                for item in items {
                    push(out, &["<li>", &escape(&item), "</li>"]);
                }
                out.push_str("</ol>");
            }
            Part::Note(t) => push(out, &["<p class=\"meta\">", &escape(&t), "</p>"]),
        }
    }
    if !meta.is_empty() {
        push(out, &["<p class=\"meta\">", &escape(&meta), "</p>"]);
    }
    out.push_str("</li>");
}

fn push(out: &mut String, pieces: &[&str]) {
    pieces.iter().for_each(|p| out.push_str(p));
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// Text as HTML text: nothing in it is markup.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The page's look: the trace's colours (blue in progress, green success, red error, grey
/// otherwise), light or dark as the reader's system is.
const STYLE: &str = "
:root{color-scheme:light dark;--fg:#1d2430;--muted:#5b6575;--bg:#fff;--card:#f6f7f9;--line:#d9dde3;--blue:#2563eb;--green:#15803d;--red:#b91c1c;--grey:#6b7280}
@media (prefers-color-scheme:dark){:root{--fg:#e6e9ee;--muted:#9aa4b2;--bg:#14171c;--card:#1c2027;--line:#2f3540;--blue:#60a5fa;--green:#4ade80;--red:#f87171;--grey:#9ca3af}}
body{font:15px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--fg);background:var(--bg);max-width:980px;margin:0 auto;padding:24px}
h1{font-size:1.5rem;margin:0 0 4px}h2{font-size:1.15rem;margin:28px 0 8px}h3{font-size:1rem;margin:18px 0 6px}
.meta{color:var(--muted);font-size:.85rem;margin:2px 0}.note{background:var(--card);border-left:3px solid var(--grey);padding:6px 10px}
.outcome{background:var(--card);border-radius:8px;padding:10px 12px;margin:8px 0}.outcome.answer{border-left:4px solid var(--green)}.outcome.ended{border-left:4px solid var(--red)}.outcome.asks{border-left:4px solid var(--blue)}
.text,pre{white-space:pre-wrap;overflow-wrap:anywhere}pre{font:13px/1.45 ui-monospace,Menlo,Consolas,monospace;background:var(--card);padding:8px;border-radius:6px;margin:4px 0;max-height:none}
.steps{list-style:none;padding:0;margin:8px 0}.step{border-left:4px solid var(--grey);background:var(--card);border-radius:6px;padding:8px 12px;margin:6px 0}
.step.pending{border-color:var(--blue)}.step.success{border-color:var(--green)}.step.error{border-color:var(--red)}
.label{font-weight:600}.step.pending .label{color:var(--blue)}.step.success .label{color:var(--green)}.step.error .label{color:var(--red)}
.thought{font-style:italic;margin:4px 0}.action{margin:4px 0 0}.items{margin:4px 0}
";
