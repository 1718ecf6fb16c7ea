//! A share link's record packed by the browser's gzip `CompressionStream`, and unpacked by its
//! `DecompressionStream`, read a chunk at a time and stopped at a bound: a link of a few
//! kilobytes can unpack to gigabytes.

use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

// web-sys has these only behind its unstable flag; they are in every engine the page runs in.
#[wasm_bindgen]
extern "C" {
    type CompressionStream;
    #[wasm_bindgen(constructor, catch)]
    fn new(format: &str) -> Result<CompressionStream, JsValue>;
    #[wasm_bindgen(method, getter)]
    fn readable(this: &CompressionStream) -> web_sys::ReadableStream;
    #[wasm_bindgen(method, getter)]
    fn writable(this: &CompressionStream) -> web_sys::WritableStream;

    type DecompressionStream;
    #[wasm_bindgen(constructor, catch)]
    fn new(format: &str) -> Result<DecompressionStream, JsValue>;
    #[wasm_bindgen(method, getter)]
    fn readable(this: &DecompressionStream) -> web_sys::ReadableStream;
    #[wasm_bindgen(method, getter)]
    fn writable(this: &DecompressionStream) -> web_sys::WritableStream;
}

/// Why a packed record did not unpack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unpack {
    /// More than the bound: reading stopped there.
    TooBig,
    /// Not gzip, or not what was packed (its checksum disagrees).
    Broken,
}

/// `bytes` gzip-packed.
pub async fn gzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let fail = |_| "This browser cannot pack a link (it has no CompressionStream). Send the file instead.".to_string();
    let packer = CompressionStream::new("gzip").map_err(fail)?;
    let pair = web_sys::ReadableWritablePair::new(&packer.readable(), &packer.writable());
    let stream = source(bytes).map_err(fail)?.pipe_through(&pair);
    read_all(stream, usize::MAX).await.map_err(|_| "The link could not be packed.".to_string())
}

/// What gzip-packed `bytes` unpack to, refused past `limit` bytes.
pub async fn gunzip(bytes: &[u8], limit: usize) -> Result<Vec<u8>, Unpack> {
    let unpacker = DecompressionStream::new("gzip").map_err(|_| Unpack::Broken)?;
    let pair = web_sys::ReadableWritablePair::new(&unpacker.readable(), &unpacker.writable());
    let stream = source(bytes).map_err(|_| Unpack::Broken)?.pipe_through(&pair);
    read_all(stream, limit).await
}

fn source(bytes: &[u8]) -> Result<web_sys::ReadableStream, JsValue> {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    Ok(web_sys::Blob::new_with_u8_array_sequence(&parts)?.stream())
}

async fn read_all(stream: web_sys::ReadableStream, limit: usize) -> Result<Vec<u8>, Unpack> {
    let reader: web_sys::ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
    let mut out = Vec::new();
    loop {
        let chunk = JsFuture::from(reader.read()).await.map_err(|_| Unpack::Broken)?;
        if js_sys::Reflect::get(&chunk, &"done".into()).ok().and_then(|d| d.as_bool()).unwrap_or(true) {
            return Ok(out);
        }
        let value: js_sys::Uint8Array = js_sys::Reflect::get(&chunk, &"value".into()).map_err(|_| Unpack::Broken)?.unchecked_into();
        let len = value.length() as usize;
        if out.len() + len > limit {
            // Stops the unpacking: nothing more is made.
            let _ = reader.cancel();
            return Err(Unpack::TooBig);
        }
        let start = out.len();
        out.resize(start + len, 0);
        value.copy_to(&mut out[start..]);
    }
}
