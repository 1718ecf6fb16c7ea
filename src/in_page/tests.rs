use super::*;
use crate::llm::in_page::RECOMMENDED;

#[test]
fn sizes_read_in_decimal_units() {
    assert_eq!(human_bytes(512.0), "512 B");
    assert_eq!(human_bytes(98_000_000.0), "98 MB");
    assert_eq!(human_bytes(1_234_000_000.0), "1.2 GB");
    assert_eq!(human_bytes(-5.0), "0 B");
}

#[test]
fn progress_says_bytes_percent_and_speed() {
    let p = Progress { loaded: 41_000_000.0, total: 98_000_000.0, bytes_per_second: 12_300_000.0 };
    assert_eq!(p.describe(), "41 MB of 98 MB (42 %) · 12 MB/s");
    assert_eq!(Progress { loaded: 5e6, total: 0.0, bytes_per_second: 0.0 }.describe(), "5 MB");
    assert_eq!(Progress { loaded: 9e9, total: 1e9, bytes_per_second: 0.0 }.describe(), "9.0 GB of 1.0 GB (100 %)");
}

#[test]
fn a_loaded_model_says_how_it_runs() {
    let l = Loaded { name: "m.gguf".into(), size_bytes: 98e6, n_ctx: 4096, threads: 1, backend: String::new(), cached: true };
    assert_eq!(l.describe(), "Ready: m.gguf (98 MB), context 4096 tokens · CPU, 1 thread · from this browser's storage");
    let gpu = Loaded { backend: "webgpu".into(), threads: 2, cached: false, ..l.clone() };
    assert_eq!(gpu.describe(), "Ready: m.gguf (98 MB), context 4096 tokens · WebGPU, 2 threads");
    assert!(Status::Downloading(Progress::default()).busy());
    assert!(!Status::Ready(l).busy());
}

#[test]
fn recommended_models_are_gguf_downloads_with_their_licence() {
    for m in RECOMMENDED {
        assert!(m.url.starts_with("https://huggingface.co/") && m.url.contains("/resolve/main/") && m.url.ends_with(".gguf"), "{}", m.url);
        assert!(m.size_mb > 0 && !m.licence.is_empty() && !m.name.is_empty());
        assert!(file_name(m.url).ends_with(".gguf"));
    }
    assert_eq!(crate::llm::Preset::InPage.default_model(), RECOMMENDED[0].url);
}

#[test]
fn a_file_name_comes_from_the_last_path_segment() {
    assert_eq!(file_name("https://h/x/y/model.gguf?download=true"), "model.gguf");
    assert_eq!(file_name("models/a-00001-of-00002.gguf"), "a-00001-of-00002.gguf");
}
