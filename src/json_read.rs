//! Reading stored shapes from JSON by hand: the input is read once into a `serde_json::Value`
//! (a reader the app has anyway) and the tree is converted by plain functions built from the
//! pieces here. The trace family (`agent/trace_read`), the settings (`agent/settings_read`,
//! `tools/settings_read`) and the stored chats and exports (`storage/read`) use them.
//!
//! Why not `#[derive(Deserialize)]`: each derived reader is a generic state machine compiled
//! for the JSON reader, and together they were the largest code in the WASM bundle.
//!
//! **Invariant:** a reader built from these accepts what serde's derived reader of the same
//! type accepted, because every release's stored data and exports are read with them: missing
//! fields follow the type's `#[serde(default)]` (`Fields::or`, `or_default`), `Option`s read
//! missing or `null` as `None`, unknown fields are ignored, integers are range-checked, floats
//! may be written as integers, enums are externally tagged. The one difference: a struct
//! written as a positional array, a form nothing ever wrote, is refused.
//!
//! Errors name the path to the wrong part and what was expected. The only input text an error
//! can hold is an unknown enum tag read with `read_variant` (cut short); `read_name` quotes
//! nothing, for the shapes that hold secrets. Nothing here panics, whatever the input.

use serde_json::{Map, Value};
use std::fmt;

#[cfg(test)]
mod tests;

/// What is wrong with the input, and where: `path` leads from the value being read to the part.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadError {
    path: String,
    problem: String,
}

impl ReadError {
    pub fn new(problem: impl Into<String>) -> Self {
        ReadError { path: String::new(), problem: problem.into() }
    }

    /// The same error, seen from the value that holds the part under `segment`.
    pub fn at(mut self, segment: &str) -> Self {
        if !self.path.is_empty() && !self.path.starts_with('[') {
            self.path.insert(0, '.');
        }
        self.path.insert_str(0, segment);
        self
    }

    pub fn at_index(self, index: usize) -> Self {
        self.at(&format!("[{index}]"))
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.problem)
        } else {
            write!(f, "{}: {}", self.path, self.problem)
        }
    }
}

pub type Read<T> = Result<T, ReadError>;

/// A reader of one part of the tree.
pub type ReadFn<T> = fn(&Value) -> Read<T>;

/// The fields of a struct (or of a struct variant). Fields it does not ask for are ignored.
pub struct Fields<'a>(&'a Map<String, Value>);

impl<'a> Fields<'a> {
    pub fn of(value: &'a Value) -> Read<Self> {
        value.as_object().map(Fields).ok_or_else(|| ReadError::new("expected an object"))
    }

    fn read<T>(&self, name: &str, read: ReadFn<T>) -> Option<Read<T>> {
        self.0.get(name).map(|value| read(value).map_err(|e| e.at(name)))
    }

    /// A field that must be there.
    pub fn get<T>(&self, name: &str, read: ReadFn<T>) -> Read<T> {
        self.read(name, read).unwrap_or_else(|| Err(ReadError::new("missing").at(name)))
    }

    /// A field with `#[serde(default)]` of its own: missing reads as its type's default
    /// (`null` does not).
    pub fn or_default<T: Default>(&self, name: &str, read: ReadFn<T>) -> Read<T> {
        self.read(name, read).unwrap_or_else(|| Ok(T::default()))
    }

    /// A field of a struct with `#[serde(default)]` on the struct: missing reads as `default`,
    /// the field's value in the struct's own `Default` (`null` does not).
    pub fn or<T>(&self, name: &str, read: ReadFn<T>, default: T) -> Read<T> {
        self.read(name, read).unwrap_or(Ok(default))
    }

    /// An `Option` field: missing or `null` is `None`.
    pub fn option<T>(&self, name: &str, read: ReadFn<T>) -> Read<Option<T>> {
        self.option_or(name, read, None)
    }

    /// An `Option` field of a struct with `#[serde(default)]`: missing is `default` (the
    /// struct's own), `null` is `None`.
    pub fn option_or<T>(&self, name: &str, read: ReadFn<T>, default: Option<T>) -> Read<Option<T>> {
        match self.0.get(name) {
            None => Ok(default),
            Some(Value::Null) => Ok(None),
            Some(value) => read(value).map(Some).map_err(|e| e.at(name)),
        }
    }
}

pub fn string(value: &Value) -> Read<String> {
    value.as_str().map(str::to_owned).ok_or_else(|| ReadError::new("expected a string"))
}

pub fn boolean(value: &Value) -> Read<bool> {
    value.as_bool().ok_or_else(|| ReadError::new("expected true or false"))
}

/// Any number, integers included (as serde reads an `f64`).
pub fn float(value: &Value) -> Read<f64> {
    value.as_f64().ok_or_else(|| ReadError::new("expected a number"))
}

pub fn float32(value: &Value) -> Read<f32> {
    float(value).map(|n| n as f32)
}

/// A whole number from 0 to `max`: a number written with a fraction or an exponent is not
/// one, as serde reads integers.
pub fn whole(value: &Value, max: u64) -> Read<u64> {
    value.as_u64().filter(|&n| n <= max).ok_or_else(|| ReadError::new(format!("expected a whole number from 0 to {max}")))
}

pub fn uint32(value: &Value) -> Read<u32> {
    whole(value, u32::MAX.into()).map(|n| n as u32)
}

pub fn uint16(value: &Value) -> Read<u16> {
    whole(value, u16::MAX.into()).map(|n| n as u16)
}

/// As wide as the target's `usize` (32 bits in the browser), as serde reads it.
pub fn size(value: &Value) -> Read<usize> {
    whole(value, usize::MAX as u64).map(|n| n as usize)
}

/// A JSON value kept as it is (a tool's input, a schema).
pub fn any(value: &Value) -> Read<Value> {
    Ok(value.clone())
}

pub fn list<T>(value: &Value, read: ReadFn<T>) -> Read<Vec<T>> {
    let items = value.as_array().ok_or_else(|| ReadError::new("expected a list"))?;
    items.iter().enumerate().map(|(i, item)| read(item).map_err(|e| e.at_index(i))).collect()
}

pub fn strings(value: &Value) -> Read<Vec<String>> {
    list(value, string)
}

/// How a known tag of an enum reads.
pub enum Variant<T> {
    /// A unit variant: its tag as a string, or the tag with `null`.
    Unit(T),
    /// A struct variant: the tag with an object of its fields.
    Struct(fn(&Fields) -> Read<T>),
}

/// An externally tagged enum value: its tag and what the tag holds (`None` for the string form).
pub fn tagged(value: &Value) -> Read<(&str, Option<&Value>)> {
    let tagged = match value {
        Value::String(tag) => Some((tag.as_str(), None)),
        Value::Object(map) if map.len() == 1 => map.iter().next().map(|(tag, inner)| (tag.as_str(), Some(inner))),
        _ => None,
    };
    tagged.ok_or_else(|| ReadError::new("expected a name, or an object with one key"))
}

/// Reads the enum value `value` with `variant`, which says how its tag reads (`None`: unknown,
/// said with a bounded piece of the tag).
pub fn read_variant<T>(tag: &str, inner: Option<&Value>, variant: Option<Variant<T>>, what: &str) -> Read<T> {
    let read = match variant {
        None => {
            // The tag comes from outside: a bounded piece of it is enough to find it.
            let shown: String = tag.chars().take(40).collect();
            return Err(ReadError::new(format!("unknown {what} \"{shown}\"")));
        }
        Some(Variant::Unit(value)) => unit(inner, value),
        Some(Variant::Struct(read)) => match inner {
            Some(inner) => Fields::of(inner).and_then(|fields| read(&fields)),
            None => Err(ReadError::new("expected an object of fields")),
        },
    };
    read.map_err(|e| e.at(tag))
}

fn unit<T>(inner: Option<&Value>, value: T) -> Read<T> {
    match inner {
        None | Some(Value::Null) => Ok(value),
        Some(_) => Err(ReadError::new("expected no fields")),
    }
}

/// An enum of unit variants only (`"force"`, or `{"force": null}`), its tags looked up by
/// `named`. An unknown tag is not quoted in the error: these are read inside shapes that hold
/// secrets.
pub fn read_name<T>(value: &Value, named: fn(&str) -> Option<T>, what: &str) -> Read<T> {
    let (tag, inner) = tagged(value)?;
    match named(tag) {
        Some(known) => unit(inner, known).map_err(|e| e.at(tag)),
        None => Err(ReadError::new(format!("unknown {what}"))),
    }
}

/// `Deserialize` for each type listed: the value read whole, then converted by its reader.
macro_rules! deserialize_via_value {
    ($($ty:ty => $read:path),* $(,)?) => {$(
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <serde_json::Value as serde::Deserialize>::deserialize(deserializer)?;
                $read(&value).map_err(<D::Error as serde::de::Error>::custom)
            }
        }
    )*};
}
pub(crate) use deserialize_via_value;
