//! The shared pieces: what each kind of field accepts, where an error says the problem is, and
//! what an error may quote.

use serde_json::{json, Value};

use super::*;

fn fields(value: &Value) -> Fields<'_> {
    Fields::of(value).expect("an object")
}

#[test]
fn each_kind_of_field_reads_missing_and_null_as_serde_did() {
    let doc = json!({"n": 7, "none": null});
    let f = fields(&doc);
    assert_eq!(f.get("n", uint32), Ok(7));
    assert_eq!(f.get("gone", uint32).unwrap_err().to_string(), "gone: missing");
    assert_eq!(f.or_default("gone", uint32), Ok(0), "a field's own default: its type's");
    assert_eq!(f.or("gone", uint32, 15), Ok(15), "a struct's default: the struct's value");
    assert_eq!(f.or("n", uint32, 15), Ok(7));
    assert!(f.or("none", uint32, 15).is_err(), "null is not a missing field");
    assert!(f.or_default("none", uint32).is_err());
    assert_eq!(f.option("gone", uint32), Ok(None));
    assert_eq!(f.option("none", uint32), Ok(None));
    assert_eq!(f.option_or("gone", uint32, Some(3)), Ok(Some(3)), "missing: the struct's value");
    assert_eq!(f.option_or("none", uint32, Some(3)), Ok(None), "null: None");
    assert_eq!(f.option_or("n", uint32, None), Ok(Some(7)));
}

#[test]
fn numbers_are_range_checked_and_floats_may_be_integers() {
    let read = |text: &str| serde_json::from_str::<Value>(text).unwrap();
    assert_eq!(uint32(&read("4294967295")), Ok(u32::MAX));
    for bad in ["4294967296", "-1", "1.5", "1e3", "\"7\"", "null", "true"] {
        assert!(uint32(&read(bad)).is_err(), "{bad}");
    }
    assert_eq!(uint16(&read("65535")), Ok(u16::MAX));
    assert!(uint16(&read("65536")).is_err());
    assert_eq!(size(&read("0")), Ok(0));
    assert_eq!(float(&read("3")), Ok(3.0));
    assert_eq!(float(&read("-2.5e2")), Ok(-250.0));
    assert_eq!(float32(&read("0.7")), Ok(0.7f32));
    assert!(float(&read("\"3\"")).is_err());
    assert!(boolean(&read("0")).is_err());
    assert_eq!(string(&read("\"é\"")), Ok("é".to_string()));
    assert_eq!(any(&read("[1,{}]")), Ok(json!([1, {}])));
}

#[test]
fn errors_name_the_path_to_the_wrong_part() {
    let doc = json!({"outer": {"items": ["a", "b", 3]}});
    let inner = |v: &Value| Fields::of(v)?.get("items", strings);
    let error = fields(&doc).get("outer", inner).unwrap_err();
    assert_eq!(error.to_string(), "outer.items[2]: expected a string");
    let nested = json!([[1], [2, "x"]]);
    let error = list(&nested, |v| list(v, uint32)).unwrap_err();
    assert_eq!(error.to_string(), "[1][1]: expected a whole number from 0 to 4294967295");
    assert_eq!(Fields::of(&json!([1])).err().map(|e| e.to_string()), Some("expected an object".to_string()));
}

#[derive(Debug, PartialEq)]
enum Shape {
    Dot,
    Circle { r: u32 },
}

fn shape(value: &Value) -> Read<Shape> {
    let (tag, inner) = tagged(value)?;
    let variant = match tag {
        "dot" => Some(Variant::Unit(Shape::Dot)),
        "circle" => Some(Variant::Struct(|f| Ok(Shape::Circle { r: f.get("r", uint32)? }))),
        _ => None,
    };
    read_variant(tag, inner, variant, "shape")
}

#[test]
fn enums_read_in_every_externally_tagged_form() {
    assert_eq!(shape(&json!("dot")), Ok(Shape::Dot));
    assert_eq!(shape(&json!({"dot": null})), Ok(Shape::Dot));
    assert_eq!(shape(&json!({"circle": {"r": 2, "extra": 1}})), Ok(Shape::Circle { r: 2 }));
    assert_eq!(shape(&json!({"dot": {}})).unwrap_err().to_string(), "dot: expected no fields");
    assert_eq!(shape(&json!("circle")).unwrap_err().to_string(), "circle: expected an object of fields");
    assert!(shape(&json!({"dot": null, "circle": {"r": 1}})).is_err(), "two tags");
    assert!(shape(&json!(["dot"])).is_err());
    assert_eq!(shape(&json!("square")).unwrap_err().to_string(), "unknown shape \"square\"");
}

#[test]
fn read_name_quotes_nothing_from_the_input() {
    let named = |tag: &str| (tag == "on").then_some(true);
    let read = |v: Value| read_name(&v, named, "switch");
    assert_eq!(read(json!("on")), Ok(true));
    assert_eq!(read(json!({"on": null})), Ok(true));
    assert!(read(json!({"on": 1})).is_err());
    let secret = "sk-live-0123456789";
    for input in [json!(secret), json!({secret: null})] {
        let error = read(input).unwrap_err().to_string();
        assert_eq!(error, "unknown switch");
        assert!(!error.contains("sk-"));
    }
}
