//! What MCP servers lend the composer: their prompts, which become a question the person can
//! still edit, and their resources, attached to the next question as context. The pickers are
//! a part of the page (`parts`), fetched only when a server has listed prompts or resources.

use leptos::prelude::*;

use crate::ui::services::mcp::Mcp;
use crate::ui::services::mcp::McpItem;

pub use crate::app::run::Attachment;

/// What the composer's MCP controls work with.
#[derive(Clone, Copy)]
pub struct Compose {
    pub mcp: Mcp,
    /// The chat's run controller, which keeps what is attached (`app::run`).
    pub run: crate::ui::services::run::RunControl,
}

impl Compose {
    /// Whether any server in use listed prompts or resources, or a run waits for a sign-in
    /// (said here, above the composer).
    pub fn has_offers(self) -> bool {
        self.mcp.waits_sign_in() || self.mcp.settings().with(|s| s.tools.mcp.servers.iter().any(|s| s.common.enabled && !s.offers.is_empty()))
    }
}

/// The attached resources, each with a way to take it off.
#[component]
fn AttachedList(compose: Compose) -> impl IntoView {
    let (attached, run) = (compose.run.attached, compose.run);
    move || {
        let list = attached.get();
        (!list.is_empty()).then(|| view! {
            <ul class="attached" data-testid="attached" aria-label="Resources attached to the next question">
                {list.into_iter().map(|a| {
                    let off = a.clone();
                    view! {
                        <li>
                            <span title=a.uri.clone()>{format!("📎 {}", a.name)}</span>
                            <button type="button" class="icon-button" aria-label=format!("Take off {}", a.name)
                                on:click=move |_| run.attach(off.clone(), false)>"✕"</button>
                        </li>
                    }
                }).collect_view()}
            </ul>
        })
    }
}

crate::ui::services::parts::part!(mcp_compose, preload = preload, pub fn pickers(compose: Compose, draft: RwSignal<String>) -> AnyView {
    view! { <Pickers compose draft/> }.into_any()
});

#[derive(Clone, Copy, PartialEq)]
enum Open {
    None,
    Prompts,
    Resources,
}

#[component]
fn Pickers(compose: Compose, draft: RwSignal<String>) -> impl IntoView {
    let open = RwSignal::new(Open::None);
    let toggle = move |which: Open| open.update(|o| *o = if *o == which { Open::None } else { which });
    let servers = move || compose.mcp.settings().with(|s| s.tools.mcp.servers.iter().filter(|s| s.common.enabled).cloned().collect::<Vec<_>>());
    let has = move |prompts: bool| servers().iter().any(|s| if prompts { !s.offers().prompts.is_empty() } else { !s.offers().resources.is_empty() });
    view! {
        <link rel="stylesheet" href="parts/compose.css"/>
        <super::sign_in_wait::SignInWait mcp=compose.mcp/>
        <AttachedList compose/>
        <div class="mcp-compose">
            <Show when=move || has(true)>
                <button type="button" class="ghost small" data-testid="prompts-toggle" aria-expanded=move || (open.get() == Open::Prompts).to_string()
                    on:click=move |_| toggle(Open::Prompts)>"✦ Prompts"</button>
            </Show>
            <Show when=move || has(false)>
                <button type="button" class="ghost small" data-testid="resources-toggle" aria-expanded=move || (open.get() == Open::Resources).to_string()
                    on:click=move |_| toggle(Open::Resources)>"📎 Resources"</button>
            </Show>
            <Show when=move || open.get() == Open::Prompts>
                <PromptPicker compose draft on_done=Callback::new(move |_| open.set(Open::None))/>
            </Show>
            <Show when=move || open.get() == Open::Resources>
                <ResourcePicker compose/>
            </Show>
        </div>
    }
}

/// Every prompt of the servers in use, with the server it comes from.
fn prompts(compose: Compose) -> Vec<(String, String, McpItem)> {
    compose.mcp.settings().with(|s| {
        s.tools.mcp.servers.iter().filter(|s| s.common.enabled).flat_map(|server| server.offers().prompts.into_iter().map(move |p| (server.url.trim().to_string(), server.display_url(), p))).collect()
    })
}

#[component]
fn PromptPicker(compose: Compose, draft: RwSignal<String>, on_done: Callback<()>) -> impl IntoView {
    let all = prompts(compose);
    let chosen = RwSignal::new(0usize);
    let values = RwSignal::new(Vec::<String>::new());
    let problem = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let list = all.clone();
    let current = move || list.get(chosen.get()).cloned();
    let use_it = {
        let all = all.clone();
        move |_| {
            let Some((server, _, prompt)) = all.get(chosen.get_untracked()).cloned() else { return };
            let given = values.get_untracked();
            let missing: Vec<String> = prompt.arguments.iter().enumerate().filter(|(i, a)| a.required && given.get(*i).is_none_or(|v| v.trim().is_empty())).map(|(_, a)| a.name.clone()).collect();
            if !missing.is_empty() {
                problem.set(Some(format!("Fill in {} first.", missing.join(", "))));
                return;
            }
            let mut arguments = serde_json::Map::new();
            for (i, a) in prompt.arguments.iter().enumerate() {
                if let Some(v) = given.get(i).filter(|v| !v.trim().is_empty()) {
                    arguments.insert(a.name.clone(), serde_json::Value::String(v.clone()));
                }
            }
            busy.set(true);
            problem.set(None);
            leptos::task::spawn_local(async move {
                let got = io::get_prompt(compose.mcp, &server, &prompt.name, serde_json::Value::Object(arguments)).await;
                busy.set(false);
                match got {
                    Ok(text) => {
                        draft.set(text);
                        on_done.run(());
                    }
                    Err(why) => problem.set(Some(why)),
                }
            });
        }
    };
    view! {
        <div class="mcp-picker" data-testid="prompt-picker">
            <label>
                "Prompt"
                <select data-testid="prompt-choice" on:change=move |ev| {
                    chosen.set(event_target_value(&ev).parse().unwrap_or(0));
                    values.set(Vec::new());
                }>
                    {all.iter().enumerate().map(|(i, (_, shown, p))| view! { <option value=i.to_string()>{format!("{} · {}", p.name, shown)}</option> }).collect_view()}
                </select>
            </label>
            {move || current().map(|(_, _, p)| view! {
                {(!p.description.is_empty()).then(|| view! { <p class="hint">{p.description.clone()}</p> })}
                {p.arguments.iter().enumerate().map(|(i, a)| view! {
                    <label>
                        {format!("{}{}", a.name, if a.required { " (required)" } else { "" })}
                        <input type="text" data-testid=format!("prompt-arg-{}", a.name) placeholder=a.description.clone()
                            on:input=move |ev| values.update(|v| {
                                if v.len() <= i {
                                    v.resize(i + 1, String::new());
                                }
                                v[i] = event_target_value(&ev);
                            })/>
                    </label>
                }).collect_view()}
            })}
            <button type="button" class="primary small" data-testid="prompt-use" disabled=move || busy.get() on:click=use_it>"Use as the question"</button>
            {move || problem.get().map(|p| view! { <p class="hint bad" role="alert" data-testid="prompt-problem">{p}</p> })}
        </div>
    }
}

#[component]
fn ResourcePicker(compose: Compose) -> impl IntoView {
    let resources: Vec<Attachment> = compose.mcp.settings().with(|s| {
        s.tools.mcp.servers.iter().filter(|s| s.common.enabled).flat_map(|server| {
            server.offers().resources.into_iter().map(move |r| Attachment { server: server.url.trim().to_string(), uri: r.uri, name: r.name })
        }).collect()
    });
    let (attached, run) = (compose.run.attached, compose.run);
    view! {
        <div class="mcp-picker" data-testid="resource-picker">
            <p class="hint">"Attached resources are read when you send, and given to the model as context with your question."</p>
            <ul>
                {resources.into_iter().map(|r| {
                    let on = {
                        let uri = r.uri.clone();
                        move || attached.with(|l| l.iter().any(|a| a.uri == uri))
                    };
                    let flip = {
                        let r = r.clone();
                        move |ev| {
                            run.attach(r.clone(), event_target_checked(&ev));
                        }
                    };
                    view! {
                        <li>
                            <label class="check">
                                <input type="checkbox" data-testid=format!("attach-{}", r.name) prop:checked=on on:change=flip/>
                                {r.name.clone()}" "<span class="hint">{r.uri.clone()}</span>
                            </label>
                        </li>
                    }
                }).collect_view()}
            </ul>
        </div>
    }
}

#[cfg(target_arch = "wasm32")]
mod io {
    use leptos::prelude::*;

    use super::Mcp;

    /// `prompts/get` on the server at `url` (as configured), bounded by its time limit.
    pub async fn get_prompt(mcp: Mcp, url: &str, name: &str, arguments: serde_json::Value) -> Result<String, String> {
        let Some(server) = mcp.settings().with_untracked(|s| s.tools.mcp.servers.iter().find(|s| s.url.trim() == url).cloned()) else {
            return Err("That server is no longer in Settings.".into());
        };
        let client = crate::ui::services::hub::hub(mcp).client(&server);
        crate::ui::services::hub::within(&server, client.get_prompt(name, arguments)).await
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod io {
    use super::Mcp;

    pub async fn get_prompt(_mcp: Mcp, _url: &str, _name: &str, _arguments: serde_json::Value) -> Result<String, String> {
        Err("Prompts need a browser.".into())
    }
}
