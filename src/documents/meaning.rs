//! Meaning search: passages and the query turned into vectors by an embedding model, found by
//! how close they point (cosine), and that ranking merged with the full-text one by reciprocal
//! rank fusion. Full text stays the ground: a passage is found by either way, and one both ways
//! find comes first. The vectors are kept at unit length, one byte a number (`quantised`), so
//! a stored document grows by one byte per dimension per passage.

/// One document's passages as vectors, all from one model.
#[derive(Debug, Clone, PartialEq)]
pub struct Vectors {
    pub model: String,
    pub dim: usize,
    /// Row after row, each of unit length, each number times 127.
    pub data: Vec<i8>,
}

impl Vectors {
    /// From one vector per passage (any length, made unit here). `None` when they are not all
    /// of one length or are empty.
    pub fn new(model: String, rows: &[Vec<f32>]) -> Option<Vectors> {
        let dim = rows.first()?.len();
        if dim == 0 || rows.iter().any(|r| r.len() != dim) {
            return None;
        }
        let data = rows.iter().flat_map(|r| quantised(r)).collect();
        Some(Vectors { model, dim, data })
    }

    pub fn len(&self) -> usize {
        self.data.len().checked_div(self.dim).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn row(&self, i: usize) -> &[i8] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }

    /// How close each passage points to `query` (a unit vector of the same model), -1 to 1.
    pub fn closeness(&self, query: &[f32]) -> Vec<f32> {
        if query.len() != self.dim {
            return Vec::new();
        }
        (0..self.len()).map(|i| self.row(i).iter().zip(query).map(|(&a, &b)| a as f32 * b).sum::<f32>() / 127.0).collect()
    }
}

/// `v` at unit length (all zeros stays zeros).
pub fn unit(v: &[f32]) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm == 0.0 || !norm.is_finite() {
        return vec![0.0; v.len()];
    }
    v.iter().map(|x| x / norm).collect()
}

fn quantised(v: &[f32]) -> Vec<i8> {
    unit(v).into_iter().map(|x| (x * 127.0).round().clamp(-127.0, 127.0) as i8).collect()
}

/// The request body of an OpenAI-compatible `/embeddings` call.
pub fn request_body(model: &str, texts: &[String]) -> String {
    serde_json::json!({ "model": model, "input": texts, "encoding_format": "float" }).to_string()
}

/// The vectors of an `/embeddings` answer, in the order the texts were sent. A server that
/// gives a vector per token (llama.cpp for a model with no pooling of its own) has them
/// averaged into one.
pub fn parse(body: &str, expected: usize) -> Result<Vec<Vec<f32>>, String> {
    #[derive(serde::Deserialize)]
    struct Answer {
        data: Vec<Item>,
    }
    #[derive(serde::Deserialize)]
    struct Item {
        #[serde(default)]
        index: Option<usize>,
        embedding: serde_json::Value,
    }
    let answer: Answer = serde_json::from_str(body).map_err(|_| format!("The embeddings answer is not what an OpenAI-compatible /embeddings endpoint sends: {}", body.chars().take(200).collect::<String>()))?;
    if answer.data.len() != expected {
        return Err(format!("The embeddings endpoint gave {} vectors for {expected} passages.", answer.data.len()));
    }
    let mut out = vec![Vec::new(); expected];
    for (place, item) in answer.data.into_iter().enumerate() {
        let at = item.index.unwrap_or(place);
        let slot = out.get_mut(at).ok_or("The embeddings answer numbers its vectors past the passages sent.")?;
        *slot = vector(&item.embedding).ok_or("The embeddings answer holds something other than lists of numbers.")?;
    }
    let dim = out.first().map_or(0, Vec::len);
    if dim == 0 || out.iter().any(|v| v.len() != dim) {
        return Err("The embeddings answer's vectors are empty or of different lengths.".into());
    }
    Ok(out)
}

fn vector(value: &serde_json::Value) -> Option<Vec<f32>> {
    let list = value.as_array()?;
    if list.first().is_some_and(|v| v.is_array()) {
        // One vector per token: their mean.
        let rows: Vec<Vec<f32>> = list.iter().map(vector).collect::<Option<_>>()?;
        let dim = rows.first()?.len();
        if rows.iter().any(|r| r.len() != dim) {
            return None;
        }
        let mut mean = vec![0.0f32; dim];
        for row in &rows {
            for (m, x) in mean.iter_mut().zip(row) {
                *m += x / rows.len() as f32;
            }
        }
        return Some(mean);
    }
    list.iter().map(|v| v.as_f64().map(|x| x as f32)).collect()
}

/// Reciprocal rank fusion's constant: how much the first places count over the later ones.
pub const FUSION_K: f64 = 60.0;

/// Merges rankings (best first) into one: each item scores the sum of 1 / (K + rank) over the
/// rankings that hold it. Ties keep the first ranking's order.
pub fn fuse<T: Clone + PartialEq>(rankings: &[Vec<T>]) -> Vec<(T, f64)> {
    let mut scored: Vec<(T, f64, usize)> = Vec::new();
    for ranking in rankings {
        for (rank, item) in ranking.iter().enumerate() {
            let add = 1.0 / (FUSION_K + rank as f64 + 1.0);
            match scored.iter_mut().find(|(t, _, _)| t == item) {
                Some(entry) => entry.1 += add,
                None => {
                    let order = scored.len();
                    scored.push((item.clone(), add, order));
                }
            }
        }
    }
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
    scored.into_iter().map(|(t, s, _)| (t, s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_keep_their_direction_in_a_byte_a_number() {
        let v = Vectors::new("m".into(), &[vec![3.0, 4.0], vec![0.0, -2.0]]).unwrap();
        assert_eq!((v.dim, v.len()), (2, 2));
        let close = v.closeness(&unit(&[3.0, 4.0]));
        assert!((close[0] - 1.0).abs() < 0.01, "{close:?}");
        assert!((close[1] + 0.8).abs() < 0.01, "{close:?}");
        assert!(v.closeness(&[1.0]).is_empty(), "another model's length");
        assert!(Vectors::new("m".into(), &[vec![1.0], vec![1.0, 2.0]]).is_none());
        assert!(Vectors::new("m".into(), &[]).is_none());
    }

    #[test]
    fn answers_are_read_in_order_and_token_vectors_averaged() {
        let body = r#"{"object":"list","data":[{"index":1,"embedding":[0,1]},{"index":0,"embedding":[1,0]}],"model":"x"}"#;
        assert_eq!(parse(body, 2).unwrap(), vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
        let tokens = r#"{"data":[{"embedding":[[1,2],[3,4]]}]}"#;
        assert_eq!(parse(tokens, 1).unwrap(), vec![vec![2.0, 3.0]]);
        assert!(parse(body, 3).unwrap_err().contains("2 vectors for 3"));
        assert!(parse(r#"{"data":[{"embedding":[1,2]},{"embedding":[1]}]}"#, 2).is_err());
        assert!(parse(r#"{"data":[{"embedding":"AAAA"}]}"#, 1).is_err());
        assert!(parse("<html>", 1).unwrap_err().contains("<html>"));
        assert!(request_body("nomic", &["a".into()]).contains(r#""input":["a"]"#));
    }

    #[test]
    fn what_both_rankings_find_comes_first() {
        let fused = fuse(&[vec!["a", "b", "c"], vec!["c", "d"]]);
        assert_eq!(fused.iter().map(|f| f.0).collect::<Vec<_>>(), ["c", "a", "b", "d"]);
        assert!(fused.windows(2).all(|w| w[0].1 >= w[1].1));
    }
}
