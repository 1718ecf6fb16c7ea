use super::*;

/// The form of the conformance suite's SEP-1034 scenario: every field optional, each with a
/// default.
fn defaults_form() -> Form {
    let params = json!({
        "message": "Accept with the defaults",
        "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": true}
        }, "required": []}
    });
    match read(&params) {
        Ok(Asked::Form(form)) => form,
        other => panic!("{other:?}"),
    }
}

fn form(properties: Value, required: &[&str]) -> Form {
    match read(&json!({"message": "m", "requestedSchema": {"type": "object", "properties": properties, "required": required}})) {
        Ok(Asked::Form(form)) => form,
        other => panic!("{other:?}"),
    }
}

fn text(s: &str) -> Entry {
    Entry::Text(s.to_string())
}

#[test]
fn accepting_a_form_untouched_sends_each_default_with_its_type() {
    let form = defaults_form();
    let content = form.check(&form.start()).expect("the defaults are valid");
    assert_eq!(Value::Object(content.clone()), json!({"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": true}));
    assert!(content["age"].is_i64(), "an integer goes as an integer");
    assert_eq!(Answer::Accept(content).result()["action"], "accept");
}

#[test]
fn the_trace_keeps_the_question_and_the_answer_but_not_what_seems_secret() {
    let form = form(json!({"name": {"type": "string"}, "api_key": {"type": "string"}}), &["name"]);
    let asked = Asked::Form(Form { message: "Who are you?".into(), ..form });
    let sent = Answer::Accept(Map::from_iter([("name".to_string(), json!("Ada")), ("api_key".to_string(), json!("abc-123"))]));
    let kept = exchange("https://s.example/mcp", &asked, &sent);
    assert_eq!((kept.server.as_str(), kept.question.as_str(), kept.accepted), ("https://s.example/mcp", "Who are you?", true));
    assert!(kept.answer.contains("\"name\":\"Ada\"") && kept.answer.contains("\"api_key\":\"•••\"") && !kept.answer.contains("abc-123"), "{}", kept.answer);
    let declined = exchange("s", &asked, &Answer::Decline);
    assert_eq!((declined.answer.as_str(), declined.accepted), ("Declined.", false));
    assert!(!exchange("s", &asked, &Answer::Cancel).accepted);
    let url = read(&json!({"mode": "url", "message": "Pay here", "url": "https://pay.example/x", "elicitationId": "e1"})).unwrap();
    let visited = exchange("s", &url, &Answer::Accept(Map::new()));
    assert_eq!((visited.question.as_str(), visited.answer.as_str()), ("Pay here (visit https://pay.example/x)", "Agreed, and opened the address."));
}

#[test]
fn decline_and_cancel_carry_no_content() {
    assert_eq!(Answer::Decline.result(), json!({"action": "decline"}));
    assert_eq!(Answer::Cancel.result(), json!({"action": "cancel"}));
    assert_eq!(Answer::Accept(Map::new()).result(), json!({"action": "accept"}));
}

#[test]
fn every_kind_of_field_is_read_with_its_bounds() {
    let f = form(
        json!({
            "email": {"type": "string", "format": "email", "title": "Email", "minLength": 3, "maxLength": 50},
            "count": {"type": "integer", "minimum": 1, "maximum": 10},
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
            "old": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]},
            "tags": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"anyOf": [{"const": "x", "title": "Ex"}, {"const": "y", "title": "Why"}]}, "default": ["x"]},
            "plain": {"type": "array", "items": {"type": "string", "enum": ["p", "q"]}}
        }),
        &["email", "count"],
    );
    let by = |name: &str| f.fields.iter().find(|x| x.name == name).unwrap();
    assert_eq!(by("email").kind, Kind::Text { format: Some(Format::Email), min: Some(3), max: Some(50), default: None });
    assert!(by("email").required && !by("size").required);
    assert_eq!(by("email").label(), "Email");
    assert_eq!(by("count").kind, Kind::Number { integer: true, min: Some(1.0), max: Some(10.0), default: None });
    assert_eq!(by("size").kind, Kind::One { choices: vec![Choice { value: "s".into(), title: "Small".into() }, Choice { value: "l".into(), title: "Large".into() }], default: None });
    assert!(matches!(&by("old").kind, Kind::One { choices, .. } if choices[1].title == "Beta"));
    assert!(matches!(&by("tags").kind, Kind::Many { min: Some(1), max: Some(2), default, .. } if default == &vec!["x".to_string()]));
    assert!(matches!(&by("plain").kind, Kind::Many { choices, .. } if choices.len() == 2 && choices[0].title == "p"));
}

#[test]
fn values_are_checked_against_the_schema_before_they_are_sent() {
    let f = form(
        json!({
            "email": {"type": "string", "format": "email"},
            "count": {"type": "integer", "minimum": 1, "maximum": 10},
            "size": {"type": "string", "enum": ["s", "l"]},
            "tags": {"type": "array", "maxItems": 1, "items": {"type": "string", "enum": ["x", "y"]}},
            "note": {"type": "string", "minLength": 2}
        }),
        &["email", "count"],
    );
    // Order of the fields: as the server wrote them (serde_json keeps the map sorted without
    // preserve_order, so look each one up).
    let at = |name: &str| f.fields.iter().position(|x| x.name == name).unwrap();
    let mut entries = f.start();
    let wrong = f.check(&entries).unwrap_err();
    assert_eq!(wrong.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().len(), 2, "two required fields are empty: {wrong:?}");
    entries[at("email")] = text("not an address");
    entries[at("count")] = text("2.5");
    entries[at("size")] = text("m");
    entries[at("tags")] = Entry::Many(vec!["x".into(), "y".into()]);
    entries[at("note")] = text("a");
    let wrong = f.check(&entries).unwrap_err();
    let why = |name: &str| wrong.iter().find(|(n, _)| n == name).map(|(_, w)| w.clone()).unwrap_or_default();
    assert_eq!(why("email"), "An email address.");
    assert_eq!(why("count"), "A whole number.");
    assert_eq!(why("size"), "One of the choices.");
    assert_eq!(why("tags"), "Choose at most 1.");
    assert_eq!(why("note"), "At least 2 characters.");
    entries[at("count")] = text("11");
    assert_eq!(f.check(&entries).unwrap_err().iter().find(|(n, _)| n == "count").unwrap().1, "At most 10.");

    entries[at("email")] = text(" ada@example.org ");
    entries[at("count")] = text("3");
    entries[at("size")] = text("");
    entries[at("tags")] = Entry::Many(vec!["y".into()]);
    entries[at("note")] = text("ok");
    let content = f.check(&entries).unwrap();
    assert_eq!(Value::Object(content), json!({"email": "ada@example.org", "count": 3, "tags": ["y"], "note": "ok"}), "an optional field left empty is left out");
}

#[test]
fn dates_times_and_addresses_are_checked_as_written() {
    for (format, good, bad) in [
        (Format::Date, "2024-02-29", "2023-02-29"),
        (Format::Date, "2026-11-29", "2026-13-01"),
        (Format::DateTime, "2026-11-29T10:05:00Z", "2026-11-29 10:05"),
        (Format::DateTime, "2026-11-29T10:05:00.25+01:00", "2026-11-29T25:00:00Z"),
        (Format::Uri, "https://example.org/a?b", "example.org"),
        (Format::Uri, "mailto:ada@example.org", "https://exa mple.org"),
        (Format::Email, "a@b", "a@@b"),
    ] {
        assert!(check_format(format, good).is_ok(), "{good}");
        assert!(check_format(format, bad).is_err(), "{bad}");
    }
}

#[test]
fn a_field_that_looks_like_a_secret_is_noticed() {
    let f = form(
        json!({
            "apiKey": {"type": "string"},
            "name": {"type": "string", "title": "Your password"},
            "access_token": {"type": "string"},
            "keyboard": {"type": "string"},
            "monkey": {"type": "string"},
            "city": {"type": "string"}
        }),
        &[],
    );
    let mut secret: Vec<&str> = f.secret_fields().iter().map(|x| x.name.as_str()).collect();
    secret.sort();
    assert_eq!(secret, ["access_token", "apiKey", "name"]);
}

#[test]
fn a_url_request_names_its_origin_and_other_requests_are_refused_with_a_reason() {
    let asked = read(&json!({"mode": "url", "message": "Sign in", "url": "https://User@Pay.Example.org:8443/start?x=1", "elicitationId": "e1"})).unwrap();
    assert_eq!(asked, Asked::Url { message: "Sign in".into(), url: "https://User@Pay.Example.org:8443/start?x=1".into(), origin: "https://pay.example.org:8443".into(), id: "e1".into() });
    assert!(read(&json!({"mode": "url", "message": "m", "url": "javascript:alert(1)", "elicitationId": "e"})).unwrap_err().contains("http or https"));
    assert!(read(&json!({"mode": "url", "message": "m", "url": "https://a.example"})).unwrap_err().contains("elicitationId"));
    assert!(read(&json!({"mode": "telepathy", "message": "m"})).unwrap_err().contains("Unknown elicitation mode"));
    assert!(read(&json!({"message": "m", "requestedSchema": {"type": "array"}})).is_err());
    assert!(read(&json!({"message": "m", "requestedSchema": {"type": "object", "properties": {"o": {"type": "object"}}}})).unwrap_err().contains("\"o\""));
    let many: Map<String, Value> = (0..51).map(|i| (format!("f{i}"), json!({"type": "string"}))).collect();
    assert!(read(&json!({"message": "m", "requestedSchema": {"type": "object", "properties": many}})).unwrap_err().contains("at most 50"));
}

#[test]
fn what_a_server_writes_is_bounded() {
    let long = "x".repeat(5000);
    let asked = read(&json!({"message": long, "requestedSchema": {"type": "object", "properties": {"a": {"type": "string", "title": long}}}})).unwrap();
    let Asked::Form(f) = asked else { panic!() };
    assert_eq!(f.message.chars().count(), MESSAGE_LIMIT + 1);
    assert_eq!(f.fields[0].label().chars().count(), LABEL_LIMIT + 1);
    assert_eq!(f.check(&[text(&"y".repeat(TEXT_LIMIT + 1))]).unwrap_err()[0].1, format!("At most {TEXT_LIMIT} characters."));
}
