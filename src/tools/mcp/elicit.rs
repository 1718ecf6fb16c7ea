//! Elicitation (`elicitation/create`, MCP 2025-11-25): in the middle of a call, a server asks
//! the person to fill in a form or to visit an address. No I/O here: what was asked, read from
//! the request and bounded; the form's fields and their defaults (SEP-1034), titled choices
//! (SEP-1330) included; what the person entered, checked against the schema before it is sent;
//! and the answer (`accept`, `decline`, `cancel`) as the specification words it. The page draws
//! the form and carries the answer back through the client.

use serde_json::{json, Map, Value};

use crate::agent::LocalBoxFuture;

/// Who answers a server's question: the page, which shows it to the person and hands back
/// their answer. A client with one declares elicitation (both modes) when it connects.
pub trait Asker {
    /// `server` is how the page names the server asking.
    fn ask(&self, server: &str, asked: Asked) -> LocalBoxFuture<'static, Answer>;
}

/// Characters kept of the server's message, and of a field's title or description.
const MESSAGE_LIMIT: usize = 2000;
const LABEL_LIMIT: usize = 300;
/// Fields read of one form, and choices of one field: more is refused, not cut.
const FIELD_LIMIT: usize = 50;
const CHOICE_LIMIT: usize = 500;
/// Characters accepted in one text field.
const TEXT_LIMIT: usize = 10_000;

/// What a server asks.
#[derive(Debug, Clone, PartialEq)]
pub enum Asked {
    Form(Form),
    /// Visit `url` (after the person agrees); nothing of the page goes with it.
    Url { message: String, url: String, origin: String, id: String },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    pub message: String,
    pub fields: Vec<Field>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The property's name: the key of its value in the answer.
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub required: bool,
    pub kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Text { format: Option<Format>, min: Option<usize>, max: Option<usize>, default: Option<String> },
    Number { integer: bool, min: Option<f64>, max: Option<f64>, default: Option<f64> },
    Flag { default: Option<bool> },
    One { choices: Vec<Choice>, default: Option<String> },
    Many { choices: Vec<Choice>, min: Option<usize>, max: Option<usize>, default: Vec<String> },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub value: String,
    pub title: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Email,
    Uri,
    Date,
    DateTime,
}

/// What the person has entered in one field, as the form holds it: numbers as typed.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    Text(String),
    Flag(bool),
    Many(Vec<String>),
}

/// The person's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The form's values, checked (`Form::check`); empty for an address visited.
    Accept(Map<String, Value>),
    Decline,
    Cancel,
}

impl Answer {
    /// The `elicitation/create` result.
    pub fn result(&self) -> Value {
        match self {
            Answer::Accept(content) if content.is_empty() => json!({"action": "accept"}),
            Answer::Accept(content) => json!({"action": "accept", "content": content}),
            Answer::Decline => json!({"action": "decline"}),
            Answer::Cancel => json!({"action": "cancel"}),
        }
    }
}

/// The question and the answer as the trace keeps them: the server's message (and the address
/// it asked to have visited), and what was sent back, a field that seems to ask for a secret
/// shown as "•••" (the record's masking covers the usual key shapes).
pub fn exchange(server: &str, asked: &Asked, answer: &Answer) -> crate::agent::AskedYou {
    let question = match asked {
        Asked::Form(form) => form.message.clone(),
        Asked::Url { message, url, .. } => format!("{message} (visit {url})"),
    };
    let secret = |name: &str| matches!(asked, Asked::Form(form) if form.fields.iter().any(|f| f.name == name && f.looks_secret()));
    let answer_text = match answer {
        Answer::Accept(content) if content.is_empty() => match asked {
            Asked::Url { .. } => "Agreed, and opened the address.".to_string(),
            Asked::Form(_) => "Accepted, with nothing filled in.".to_string(),
        },
        Answer::Accept(content) => {
            let shown: Map<String, Value> = content.iter().map(|(k, v)| (k.clone(), if secret(k) { Value::String("•••".into()) } else { v.clone() })).collect();
            format!("Sent {}", Value::Object(shown))
        }
        Answer::Decline => "Declined.".to_string(),
        Answer::Cancel => "Left unanswered (cancelled).".to_string(),
    };
    crate::agent::AskedYou { server: server.to_string(), question, answer: answer_text, accepted: matches!(answer, Answer::Accept(_)) }
}

/// Reads an `elicitation/create` request's params; the error says what is wrong with it, for the
/// server (an invalid-params answer).
pub fn read(params: &Value) -> Result<Asked, String> {
    let message = bounded(params.get("message").and_then(Value::as_str).unwrap_or(""), MESSAGE_LIMIT);
    match params.get("mode").and_then(Value::as_str).unwrap_or("form") {
        "form" => read_form(message, params.get("requestedSchema").unwrap_or(&Value::Null)).map(Asked::Form),
        "url" => {
            let url = params.get("url").and_then(Value::as_str).ok_or("A URL-mode elicitation needs a url.")?;
            let id = params.get("elicitationId").and_then(Value::as_str).ok_or("A URL-mode elicitation needs an elicitationId.")?;
            let origin = web_origin(url).ok_or("A URL-mode elicitation's url must be an http or https address.")?;
            Ok(Asked::Url { message, url: url.to_string(), origin, id: id.to_string() })
        }
        other => Err(format!("Unknown elicitation mode \"{}\".", bounded(other, 40))),
    }
}

fn read_form(message: String, schema: &Value) -> Result<Form, String> {
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err("The requested schema must be an object.".into());
    }
    let properties = match schema.get("properties") {
        Some(Value::Object(p)) => p,
        None => return Ok(Form { message, fields: Vec::new() }),
        Some(_) => return Err("The requested schema's properties must be an object.".into()),
    };
    if properties.len() > FIELD_LIMIT {
        return Err(format!("The form asks for {} fields; this client shows at most {FIELD_LIMIT}.", properties.len()));
    }
    let required: Vec<&str> = schema.get("required").and_then(Value::as_array).map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    let mut fields = Vec::with_capacity(properties.len());
    for (name, property) in properties {
        let kind = read_kind(property).map_err(|why| format!("Field \"{}\": {why}", bounded(name, 80)))?;
        let label = |key: &str| property.get(key).and_then(Value::as_str).map(|s| bounded(s, LABEL_LIMIT)).filter(|s| !s.trim().is_empty());
        fields.push(Field { name: name.clone(), title: label("title"), description: label("description"), required: required.contains(&name.as_str()), kind });
    }
    Ok(Form { message, fields })
}

fn read_kind(property: &Value) -> Result<Kind, String> {
    let count = |key: &str| property.get(key).and_then(Value::as_u64).map(|n| n as usize);
    let number = |key: &str| property.get(key).and_then(Value::as_f64);
    match property.get("type").and_then(Value::as_str) {
        Some("string") => {
            let default = property.get("default").and_then(Value::as_str).map(str::to_string);
            if let Some(choices) = choices(property)? {
                return Ok(Kind::One { choices, default });
            }
            let format = match property.get("format").and_then(Value::as_str) {
                None => None,
                Some("email") => Some(Format::Email),
                Some("uri") => Some(Format::Uri),
                Some("date") => Some(Format::Date),
                Some("date-time") => Some(Format::DateTime),
                Some(other) => return Err(format!("unknown format \"{}\"", bounded(other, 40))),
            };
            Ok(Kind::Text { format, min: count("minLength"), max: count("maxLength"), default })
        }
        Some(t @ ("number" | "integer")) => Ok(Kind::Number { integer: t == "integer", min: number("minimum"), max: number("maximum"), default: number("default") }),
        Some("boolean") => Ok(Kind::Flag { default: property.get("default").and_then(Value::as_bool) }),
        Some("array") => {
            let items = property.get("items").ok_or("a list needs its items")?;
            let choices = choices(items)?.ok_or("a list's items must be choices")?;
            let default = property.get("default").and_then(Value::as_array).map(|d| d.iter().filter_map(Value::as_str).map(str::to_string).collect()).unwrap_or_default();
            Ok(Kind::Many { choices, min: count("minItems"), max: count("maxItems"), default })
        }
        Some(other) => Err(format!("type \"{}\" cannot be asked in a form", bounded(other, 40))),
        None => Err("no type".into()),
    }
}

/// The choices of an enum (`enum`, with the older `enumNames`) or a titled one (`oneOf` or
/// `anyOf` of `{const, title}`); None when the schema offers none.
fn choices(schema: &Value) -> Result<Option<Vec<Choice>>, String> {
    let listed = |key: &str| schema.get(key).and_then(Value::as_array);
    let found: Vec<Choice> = if let Some(values) = listed("enum") {
        let names = listed("enumNames");
        values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let value = v.as_str()?.to_string();
                let title = names.and_then(|n| n.get(i)).and_then(Value::as_str).map_or_else(|| value.clone(), |t| bounded(t, LABEL_LIMIT));
                Some(Choice { value, title })
            })
            .collect()
    } else if let Some(options) = listed("oneOf").or_else(|| listed("anyOf")) {
        options
            .iter()
            .filter_map(|o| {
                let value = o.get("const")?.as_str()?.to_string();
                let title = o.get("title").and_then(Value::as_str).map_or_else(|| value.clone(), |t| bounded(t, LABEL_LIMIT));
                Some(Choice { value, title })
            })
            .collect()
    } else {
        return Ok(None);
    };
    if found.is_empty() {
        return Err("a choice with no options".into());
    }
    if found.len() > CHOICE_LIMIT {
        return Err(format!("{} options; this client shows at most {CHOICE_LIMIT}", found.len()));
    }
    Ok(Some(found))
}

impl Field {
    /// What a person sees the field called.
    pub fn label(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }

    /// What the form holds before the person changes anything: the schema's default, if any.
    pub fn start(&self) -> Entry {
        match &self.kind {
            Kind::Text { default, .. } | Kind::One { default, .. } => Entry::Text(default.clone().unwrap_or_default()),
            Kind::Number { default, .. } => Entry::Text(default.map(number_text).unwrap_or_default()),
            Kind::Flag { default } => Entry::Flag(default.unwrap_or(false)),
            Kind::Many { default, .. } => Entry::Many(default.clone()),
        }
    }

    /// Whether the field seems to ask for a secret, which a form must not (the specification
    /// sends secrets through URL mode): a password, token, key, PIN or the like, by its name or
    /// title.
    pub fn looks_secret(&self) -> bool {
        const SECRET: [&str; 14] = ["password", "passwd", "passphrase", "secret", "token", "key", "apikey", "credential", "credentials", "pin", "otp", "cvv", "cvc", "ssn"];
        [Some(self.name.as_str()), self.title.as_deref()].into_iter().flatten().any(|text| words(text).iter().any(|w| SECRET.contains(&w.as_str())))
    }

    /// The value to send for `entry`, None to leave the field out (an optional field left
    /// empty), or why it cannot be sent.
    fn value(&self, entry: &Entry) -> Result<Option<Value>, String> {
        let empty = match entry {
            Entry::Text(t) => t.trim().is_empty(),
            Entry::Many(m) => m.is_empty(),
            Entry::Flag(_) => false,
        };
        if empty {
            return if self.required { Err("Required.".into()) } else { Ok(None) };
        }
        match (&self.kind, entry) {
            (Kind::Text { format, min, max, .. }, Entry::Text(text)) => {
                let length = text.chars().count();
                if length > TEXT_LIMIT.min(max.unwrap_or(usize::MAX)) {
                    return Err(format!("At most {} characters.", TEXT_LIMIT.min(max.unwrap_or(usize::MAX))));
                }
                if let Some(min) = min.filter(|m| length < *m) {
                    return Err(format!("At least {min} characters."));
                }
                if let Some(format) = format {
                    check_format(*format, text.trim())?;
                }
                Ok(Some(Value::String(if format.is_some() { text.trim().to_string() } else { text.clone() })))
            }
            (Kind::Number { integer, min, max, .. }, Entry::Text(text)) => {
                let n = crate::number::parse_f64(text).filter(|n| n.is_finite()).ok_or("A number.")?;
                if *integer && n.fract() != 0.0 {
                    return Err("A whole number.".into());
                }
                if let Some(min) = min.filter(|m| n < *m) {
                    return Err(format!("At least {}.", number_text(min)));
                }
                if let Some(max) = max.filter(|m| n > *m) {
                    return Err(format!("At most {}.", number_text(max)));
                }
                Ok(Some(if *integer && n.abs() < 9.0e15 { json!(n as i64) } else { json!(n) }))
            }
            (Kind::Flag { .. }, Entry::Flag(on)) => Ok(Some(Value::Bool(*on))),
            (Kind::One { choices, .. }, Entry::Text(text)) => match choices.iter().find(|c| c.value == *text) {
                Some(c) => Ok(Some(Value::String(c.value.clone()))),
                None => Err("One of the choices.".into()),
            },
            (Kind::Many { choices, min, max, .. }, Entry::Many(picked)) => {
                if picked.iter().any(|p| !choices.iter().any(|c| c.value == *p)) {
                    return Err("Only the choices offered.".into());
                }
                let mut unique: Vec<&String> = Vec::new();
                for p in picked {
                    if !unique.contains(&p) {
                        unique.push(p);
                    }
                }
                if let Some(min) = min.filter(|m| unique.len() < *m) {
                    return Err(format!("Choose at least {min}."));
                }
                if let Some(max) = max.filter(|m| unique.len() > *m) {
                    return Err(format!("Choose at most {max}."));
                }
                Ok(Some(Value::Array(unique.into_iter().map(|p| Value::String(p.clone())).collect())))
            }
            _ => Err("Not a value this field takes.".into()),
        }
    }
}

impl Form {
    /// Every field as the form starts: its default, or empty.
    pub fn start(&self) -> Vec<Entry> {
        self.fields.iter().map(Field::start).collect()
    }

    /// The content to send for `entries` (one per field, in order), or, per field, why not.
    pub fn check(&self, entries: &[Entry]) -> Result<Map<String, Value>, Vec<(String, String)>> {
        let mut content = Map::new();
        let mut wrong = Vec::new();
        for (i, field) in self.fields.iter().enumerate() {
            let entry = entries.get(i).cloned().unwrap_or_else(|| field.start());
            match field.value(&entry) {
                Ok(Some(value)) => {
                    content.insert(field.name.clone(), value);
                }
                Ok(None) => {}
                Err(why) => wrong.push((field.name.clone(), why)),
            }
        }
        if wrong.is_empty() {
            Ok(content)
        } else {
            Err(wrong)
        }
    }

    /// The fields that seem to ask for a secret (`Field::looks_secret`).
    pub fn secret_fields(&self) -> Vec<&Field> {
        self.fields.iter().filter(|f| f.looks_secret()).collect()
    }
}

fn check_format(format: Format, text: &str) -> Result<(), String> {
    let ok = match format {
        Format::Email => {
            let mut parts = text.splitn(2, '@');
            let (local, domain) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
            !local.is_empty() && !domain.is_empty() && !domain.contains('@') && !text.contains(char::is_whitespace) && !domain.starts_with('.') && !domain.ends_with('.')
        }
        Format::Uri => match text.split_once(':') {
            Some((scheme, rest)) => {
                scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
                    && !rest.is_empty()
                    && !text.contains(char::is_whitespace)
            }
            None => false,
        },
        Format::Date => is_date(text),
        Format::DateTime => match text.split_once(['T', 't']) {
            Some((date, time)) => is_date(date) && is_time(time),
            None => false,
        },
    };
    if ok {
        Ok(())
    } else {
        Err(match format {
            Format::Email => "An email address.",
            Format::Uri => "An address such as https://example.org.",
            Format::Date => "A date as YYYY-MM-DD.",
            Format::DateTime => "A date and time as YYYY-MM-DDTHH:MM:SSZ.",
        }
        .into())
    }
}

fn digits(text: &str, n: usize) -> Option<u32> {
    (text.len() == n && text.bytes().all(|b| b.is_ascii_digit())).then(|| text.parse().ok()).flatten()
}

fn is_date(text: &str) -> bool {
    let mut parts = text.split('-');
    let (Some(y), Some(m), Some(d), None) = (parts.next().and_then(|y| digits(y, 4)), parts.next().and_then(|m| digits(m, 2)), parts.next().and_then(|d| digits(d, 2)), parts.next()) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// `HH:MM:SS`, an optional fraction, then `Z` or `±HH:MM` (RFC 3339).
fn is_time(text: &str) -> bool {
    let (clock, zone) = if let Some(c) = text.strip_suffix(['Z', 'z']) {
        (c, None)
    } else {
        match text.rfind(['+', '-']) {
            Some(at) => (&text[..at], Some(&text[at + 1..])),
            None => return false,
        }
    };
    let clock = clock.split_once('.').map_or(clock, |(whole, fraction)| if !fraction.is_empty() && fraction.bytes().all(|b| b.is_ascii_digit()) { whole } else { "" });
    let hms: Vec<&str> = clock.split(':').collect();
    let in_range = |t: &str, top: u32| digits(t, 2).is_some_and(|n| n <= top);
    let clock_ok = hms.len() == 3 && in_range(hms[0], 23) && in_range(hms[1], 59) && in_range(hms[2], 60);
    let zone_ok = zone.is_none_or(|z| matches!(z.split_once(':'), Some((h, m)) if in_range(h, 23) && in_range(m, 59)));
    clock_ok && zone_ok
}

/// A number as a person would type it: no `.0` on a whole one.
fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// The words of a name: split at anything not a letter or digit, and where a lower-case letter
/// meets a capital (`apiKey`), all lower case.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut last_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            last_lower = false;
            continue;
        }
        if c.is_uppercase() && last_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        last_lower = c.is_lowercase();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// The origin of an http or https address (`base::url::origin`), None for any other or for
/// one with spaces in it.
fn web_origin(url: &str) -> Option<String> {
    crate::base::url::origin(url).filter(|origin| !origin.contains(char::is_whitespace))
}

fn bounded(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests;
