//! The model that runs in the page, as the page sees it: where a model comes from, how a
//! download or a load is going, what was loaded, in words a person reads. The engine itself is
//! behind one seam (`browser`, the only code that talks to `in-page/engine.js`); the agent's
//! side of it is `llm::in_page`.

#[cfg(target_arch = "wasm32")]
pub mod browser;

/// Where a model comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelSource {
    /// Downloaded once, then kept in this browser (the first part's URL for a split GGUF).
    Url(String),
    /// Files on the person's own disk, read locally and sent nowhere (parts of a split GGUF).
    Files(Vec<web_sys::File>),
}

/// What this browser offers the engine.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Environment {
    pub threads: u32,
    pub supported: bool,
    /// E.g. "CPU, 1 thread: this host does not allow threads".
    pub note: String,
}

/// A download under way.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Progress {
    pub loaded: f64,
    /// 0 when the server did not say.
    pub total: f64,
    pub bytes_per_second: f64,
}

impl Progress {
    /// "41 MB of 98 MB (42 %) · 12.3 MB/s".
    pub fn describe(&self) -> String {
        let speed = if self.bytes_per_second > 0.0 { format!(" · {}/s", human_bytes(self.bytes_per_second)) } else { String::new() };
        if self.total > 0.0 {
            let percent = (self.loaded / self.total * 100.0).clamp(0.0, 100.0);
            format!("{} of {} ({percent:.0} %){speed}", human_bytes(self.loaded), human_bytes(self.total))
        } else {
            format!("{}{speed}", human_bytes(self.loaded))
        }
    }
}

/// A model that is loaded and ready.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Loaded {
    pub name: String,
    pub size_bytes: f64,
    pub n_ctx: u32,
    pub threads: u32,
    /// "CPU" or "WebGPU".
    pub backend: String,
    /// Read from this browser's storage, without a download.
    pub cached: bool,
}

impl Loaded {
    pub fn describe(&self) -> String {
        let threads = if self.threads == 1 { "1 thread".to_string() } else { format!("{} threads", self.threads) };
        format!(
            "Ready: {} ({}), context {} tokens · {}, {threads}{}",
            self.name,
            human_bytes(self.size_bytes),
            self.n_ctx,
            match self.backend.to_ascii_lowercase().as_str() {
                "" | "cpu" => "CPU",
                "webgpu" => "WebGPU",
                _ => &self.backend,
            },
            if self.cached { " · from this browser's storage" } else { "" }
        )
    }
}

/// Where the model in the page stands, for the status line.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Status {
    #[default]
    Idle,
    /// Asking the server how big the download is.
    Measuring,
    Downloading(Progress),
    Ready(Loaded),
    Failed(String),
}

impl Status {
    pub fn describe(&self) -> String {
        match self {
            Status::Idle => "Not loaded yet: it loads with the first question, or with Load.".into(),
            Status::Measuring => "Asking how big the model is…".into(),
            Status::Downloading(p) => format!("Loading the model: {}", p.describe()),
            Status::Ready(l) => l.describe(),
            Status::Failed(why) => why.clone(),
        }
    }

    pub fn busy(&self) -> bool {
        matches!(self, Status::Measuring | Status::Downloading(_))
    }
}

/// "512 B", "98 MB", "1.2 GB" (decimal units, as downloads are labelled).
pub fn human_bytes(bytes: f64) -> String {
    let bytes = bytes.max(0.0);
    if bytes < 1e3 {
        format!("{bytes:.0} B")
    } else if bytes < 1e6 {
        format!("{:.0} KB", bytes / 1e3)
    } else if bytes < 1e9 {
        format!("{:.0} MB", bytes / 1e6)
    } else {
        format!("{:.1} GB", bytes / 1e9)
    }
}

/// A GGUF's name from its URL (the last path segment), for lists and status lines.
pub fn file_name(url: &str) -> &str {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    path.rsplit('/').find(|s| !s.is_empty()).unwrap_or(url)
}

#[cfg(test)]
mod tests;
