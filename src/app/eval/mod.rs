//! Evaluations: a set of cases (`set.rs`: read from JSON Lines or CSV, bad rows named, bounded)
//! and how each case's answer is judged (`score.rs`: exact, contains, regular expression,
//! number within a tolerance, a tool called, an answer given, a model as judge), the evaluation
//! as it runs (`run.rs`: cells by case and configuration, concurrency, Stop, a reload) and what
//! it found (`results.rs`: figures per configuration, results as JSON Lines and CSV).

pub mod config;
pub mod drive;
pub mod record;
pub mod results;
pub mod run;
pub mod score;
pub mod set;
