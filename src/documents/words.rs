//! The words an index and a query are made of: lower case, letters and digits, a short list of
//! English words too common to tell passages apart left out, and plurals folded ("ferns" finds
//! "fern"). The same function cuts both sides, so they always agree.

const COMMON: [&str; 48] = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "do", "does", "for", "from", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "no",
    "not", "of", "on", "or", "so", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "what", "when", "which", "with", "you",
];

/// Calls `each` with every word of `text`, in order.
pub fn each(text: &str, mut each: impl FnMut(String)) {
    for raw in text.split(|c: char| !c.is_alphanumeric()) {
        if raw.is_empty() || raw.len() > 40 {
            continue;
        }
        let lower = raw.to_lowercase();
        if COMMON.contains(&lower.as_str()) {
            continue;
        }
        each(fold(lower));
    }
}

/// "studies" → "study", "classes" → "class", "ferns" → "fern"; short words and "-ss", "-us",
/// "-is" endings stay as they are.
fn fold(word: String) -> String {
    let n = word.len();
    if n > 4 && word.ends_with("ies") {
        return format!("{}y", &word[..n - 3]);
    }
    if n > 4 && (word.ends_with("sses") || word.ends_with("xes") || word.ends_with("ches") || word.ends_with("shes")) {
        return word[..n - 2].to_string();
    }
    if n > 3 && word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") && !word.ends_with("is") {
        return word[..n - 1].to_string();
    }
    word
}

#[cfg(test)]
mod tests {
    #[test]
    fn words_are_folded_the_same_on_both_sides() {
        let mut got = Vec::new();
        super::each("The Ferns' spores, studies of classes; boxes & bus 42 CO2 Überfluß", |w| got.push(w));
        assert_eq!(got, ["fern", "spore", "study", "class", "box", "bus", "42", "co2", "überfluß"]);
    }
}
