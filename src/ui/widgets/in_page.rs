//! The in-page model's load as a line: where it stands, a progress bar while it downloads, and
//! Cancel. Drawn in the chat and in Settings; the state is a page service
//! (`ui::services::in_page`).

use leptos::prelude::*;

use crate::ui::services::in_page::{InPage, Status};

/// Where the model in the page stands: bytes, percent and speed while it downloads, with
/// Cancel; what was loaded once it is ready; why not when it failed.
#[component]
pub fn StatusLine(handle: InPage) -> impl IntoView {
    let progress = move || match handle.status.get() {
        Status::Downloading(p) if p.total > 0.0 => Some((p.loaded / p.total).clamp(0.0, 1.0)),
        _ => None,
    };
    view! {
        <div class="in-page-status" class:failed=move || matches!(handle.status.get(), Status::Failed(_))>
            <span data-testid="in-page-status" role="status">{move || handle.status.with(Status::describe)}</span>
            {move || progress().map(|p| view! { <progress max="1" value=p.to_string() aria-label="Model download"></progress> })}
            <Show when=move || handle.status.with(Status::busy)>
                <button class="ghost small" data-testid="in-page-cancel" on:click=move |_| handle.cancel()>"Cancel"</button>
            </Show>
        </div>
    }
}
